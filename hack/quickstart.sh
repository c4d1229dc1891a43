#!/usr/bin/env bash
# The offline quickstart: the manifest source over examples/quickstart, the inmemory provider, one run.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./cmd/zonekeeper --source=manifest --manifest=examples/quickstart \
  --provider=inmemory --inmemory-zone=example.com --txt-owner-id=quickstart --policy=sync --once "$@"
