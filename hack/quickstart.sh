#!/usr/bin/env bash
# The offline quickstart: zonekeeper reads the Services and Ingresses in examples/quickstart (status
# included, as a cluster would report them) and answers DNS for example.com itself, with two views:
#   internal — clients on 127.0.0.1 — the addresses the objects report;
#   external — every other client   — the public address 203.0.113.7, TTL 900.
# Then, from another terminal:
#   dig @127.0.0.1 -p 15353 dev1.example.com +short                # 192.168.10.51
#   dig @127.0.0.1 -p 15353 -b 127.0.0.2 dev1.example.com +short   # 203.0.113.7
# Ctrl-C stops it. QUICKSTART_PORT changes the port.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${QUICKSTART_PORT:-15353}
exec go run ./cmd/zonekeeper --source=manifest --manifest=examples/quickstart \
  --provider=builtin --builtin-listen="127.0.0.1:$port" --domain-filter=example.com \
  --view=internal --view-subnets=internal=127.0.0.1/32 \
  --view=external --view-targets=external=public --view-ttl=external=900 --public-ip=203.0.113.7 \
  --txt-owner-id=quickstart --policy=sync --metrics-address=127.0.0.1:0 "$@"
