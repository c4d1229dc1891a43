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
# Every package but test/e2e, and test/e2e several tests at a time, each in its own process (hack/e2e.sh
# says why), side by side: e2e is mostly waiting (outages, peers' intervals, polls; load under 2 on its
# own) and so are the slowest packages (test/image on podman, test/deploy on a kube-apiserver), so one
# after the other held the CPU idle for most of half an hour. The e2e tests' deadlines hold at load
# 13-36. -p: test binaries run UNIT_JOBS at a time (go test's default is the CPU count, 2 here), for
# the same reason. -vet=off: `go vet ./...` above has run every analyzer on these packages already.
# e2e's report follows the unit tests' (not interleaved with them); either failing fails the run.
e2e_out=$(mktemp)
# Its own process group, so that an interrupted run stops it and the servers it started.
setsid ./hack/e2e.sh >"$e2e_out" 2>&1 &
e2e_pid=$!
trap 'kill -- -"$e2e_pid" 2>/dev/null || true; rm -f "$e2e_out"' EXIT
unit_rc=0
go test -count=1 -vet=off -p "${UNIT_JOBS:-4}" -timeout 40m $(go list ./... | grep -v '/test/e2e$') || unit_rc=$?
e2e_rc=0
wait "$e2e_pid" || e2e_rc=$?
cat "$e2e_out"
[ "$unit_rc" -eq 0 ] && [ "$e2e_rc" -eq 0 ]
