#!/usr/bin/env bash
# Runs test/e2e with several top-level tests at a time, each in its own process. Most of the suite's
# wall time is spent waiting (outages of 30-60 s, peers' intervals, convergence polls), not computing,
# and the tests cannot share one process: they set process environment (t.Setenv) for the providers
# and the real external-dns reads it the same way. So the test binary is compiled once and every test
# runs in its own process; tests that need a fixed port (the external-dns webhook server's
# 127.0.0.1:8888) run one after another in one job.
#
# Usage: hack/e2e.sh [JOBS]   (default: E2E_JOBS or 3). Prints one line per test as it ends and the
# whole output of every failed test; exits 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-${E2E_JOBS:-3}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go test -c -o "$work/e2e.test" ./test/e2e
# Longest first (from hack/e2e-durations.txt, seconds per test on a 2-core machine), so the long tests
# do not start last; a test missing from the file is taken as long.
"$work/e2e.test" -test.list '.*' | grep '^Test' >"$work/all"
known=hack/e2e-durations.txt
awk 'NR==FNR { if ($1 !~ /^#/) d[$1]=$2; next } { print ((($1 in d) ? d[$1] : 100000)), $1 }' \
  "$known" "$work/all" | sort -rn | awk '{print $2}' >"$work/ordered"
# One job for the tests bound to the webhook port, in the order above; every other test is a job.
serial=$(grep -E 'Webhook' "$work/ordered" | paste -sd'|' -)
{
  [ -n "$serial" ] && echo "^(${serial})\$"
  grep -vE 'Webhook' "$work/ordered" | sed 's/.*/^&$/'
} >"$work/jobs"

run_one() {
  local pattern=$1 work=$2 name log start rc
  name=$(printf '%s' "$pattern" | tr -c 'A-Za-z0-9_' '_' | cut -c1-120)
  log="$work/$name.log"
  start=$(date +%s)
  rc=0
  (cd test/e2e && "$work/e2e.test" -test.run "$pattern" -test.count=1 -test.timeout=25m -test.v) >"$log" 2>&1 || rc=$?
  local took=$(( $(date +%s) - start ))
  if [ $rc -eq 0 ] && grep -q '^--- PASS\|^=== RUN' "$log"; then
    # One line per top-level test with its own duration, for hack/e2e-durations.txt.
    grep -E '^--- (PASS|SKIP)' "$log" | sed 's/^--- \([A-Z]*\): \([^ ]*\) (\([0-9.]*\)s)/e2e \1 \2 \3s/'
    if grep -q '^--- SKIP' "$log"; then grep -B2 -A8 '^--- SKIP' "$log"; fi
  else
    echo "e2e FAIL $pattern after ${took}s (exit $rc); its output:"
    cat "$log"
    echo "FAIL	$pattern" >>"$work/failed"
  fi
}
export -f run_one

start=$(date +%s)
echo "e2e: $(wc -l <"$work/all") tests in $(wc -l <"$work/jobs") jobs, $jobs at a time"
xargs -a "$work/jobs" -d '\n' -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$work"
took=$(( $(date +%s) - start ))
if [ -s "$work/failed" ]; then
  cat "$work/failed"
  echo "FAIL	github.com/zonekeeper/zonekeeper/test/e2e	${took}s"
  exit 1
fi
echo "ok  	github.com/zonekeeper/zonekeeper/test/e2e	${took}s"
