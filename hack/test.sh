#!/usr/bin/env bash
# The whole test suite: installs or builds the real servers (cached after the first run), then runs every
# Go test, integration tests included. Under CI=true a missing server fails the run instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
export ZONEKEEPER_TESTBIN
ZONEKEEPER_TESTBIN=$(./hack/testbed.sh | tail -n 1)
# Static builds, as `make build` and the image make them: the image test (test/image) then links the
# binary from the packages the tests compiled instead of compiling everything a second time (cgo on or
# off changes every package that imports net). Nothing of ours uses cgo.
export CGO_ENABLED=0
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed: $unformatted" >&2
  exit 1
fi
if [ $# -gt 0 ]; then # a developer's own selection (-run, -v, ...): one plain go test over everything
  exec go test -count=1 -timeout 40m "$@" ./...
fi
# Every package but test/e2e, then test/e2e several tests at a time, each in its own process
# (hack/e2e.sh says why); one after the other, so that compiling does not slow the timed e2e tests.
go test -count=1 -timeout 40m $(go list ./... | grep -v '/test/e2e$')
./hack/e2e.sh
