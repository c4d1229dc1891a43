package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// expectIdle waits for the in-process instance to settle, then asserts that it runs no reconcile over
// quiet, and returns the CPU it used meanwhile in CPU-seconds per idle minute (this test process:
// zonekeeper and the idle test; the servers run outside it).
func expectIdle(t *testing.T, z *instance, quiet time.Duration) float64 {
	t.Helper()
	time.Sleep(3 * time.Second)
	syncs := func() float64 {
		_, body, err := z.get("/metrics")
		if err != nil {
			t.Fatal(err)
		}
		return metricSum(body, "zonekeeper_sync_duration_seconds_count")
	}
	before := syncs()
	cpu := processCPU(t)
	time.Sleep(quiet)
	idle := processCPU(t) - cpu
	if n := syncs() - before; n != 0 {
		t.Errorf("not idle: %v reconciles in %s", n, quiet)
	}
	return idle.Seconds() * float64(time.Minute) / float64(quiet)
}

// expectReplicaIdle is expectIdle for a zonekeeper running as its own process (the leader-election
// scenarios): it reads the process's reconcile count from its metrics endpoint and its CPU from
// /proc, asserts that no reconcile ran over quiet, and returns CPU-seconds per idle minute.
func expectReplicaIdle(t *testing.T, name string, pid int, metricsAddr string, quiet time.Duration) float64 {
	t.Helper()
	time.Sleep(3 * time.Second)
	syncs := func() float64 {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			t.Fatalf("%s metrics: %v", name, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return metricSum(string(body), "zonekeeper_sync_duration_seconds_count")
	}
	before, cpu := syncs(), procCPU(t, pid)
	time.Sleep(quiet)
	idle := procCPU(t, pid) - cpu
	if n := syncs() - before; n != 0 {
		t.Errorf("%s not idle: %v reconciles in %s", name, n, quiet)
	}
	perMinute := idle.Seconds() * float64(time.Minute) / float64(quiet)
	// A hot loop (issue 11 defect 1 spun at a full core) costs tens of CPU-seconds a minute; renewing
	// the Lease every 500 ms and the informers' watches cost a fraction of one.
	if perMinute > 3 {
		t.Errorf("%s used %.2f CPU-seconds per idle minute", name, perMinute)
	}
	return perMinute
}

// procCPU is the user and system CPU time process pid has used (/proc/PID/stat, fields 14 and 15,
// in clock ticks of 1/100 s: Linux's USER_HZ on every architecture Go supports).
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) may hold spaces; the fields after it start past its closing ')'.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
