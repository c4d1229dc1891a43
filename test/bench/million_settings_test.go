package bench

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMillionSettingsDefaultToAMillionEndpoints(t *testing.T) {
	s, err := millionSettingsFrom(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if s.Endpoints() != 1_000_000 || s.Changes != 50 || s.Idle < time.Minute {
		t.Errorf("defaults: %+v (%d endpoints), want 1,000,000 endpoints, 50 changes and an idle window holding a 1m resync", s, s.Endpoints())
	}
}

func TestMillionSettingsFromEnvironment(t *testing.T) {
	s, err := millionSettingsFrom(env(map[string]string{
		"MIL_OBJECTS": "20k", "MIL_HOSTS": "50", "MIL_IDLE": "90s", "MIL_CHANGES": "10", "MIL_CHANGE_GAP": "0s",
		"MIL_CONVERGE_TIMEOUT": "2h", "MIL_CHANGE_TIMEOUT": "1m", "MIL_ZONEKEEPER": "/x/zk", "MIL_OUT": "/x/out.md",
		"MIL_ARGS": " --interval=10m  --log-level=warn ",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := millionSettings{Objects: 20000, Hosts: 50, Idle: 90 * time.Second, Changes: 10, ChangeGap: 0,
		ConvergeTimeout: 2 * time.Hour, ChangeTimeout: time.Minute, Zonekeeper: "/x/zk", Out: "/x/out.md"}
	want.Args = []string{"--interval=10m", "--log-level=warn"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v, want %+v", s, want)
	}
}

// Each malformed variable is refused with its name in the message.
func TestMillionSettingsRefuseBadValues(t *testing.T) {
	for name, value := range map[string]string{
		"MIL_OBJECTS": "1k,2k", "MIL_HOSTS": "1001", "MIL_IDLE": "0s", "MIL_CHANGE_GAP": "-1s", "MIL_CHANGES": "1",
		"MIL_CONVERGE_TIMEOUT": "soon", "MIL_CHANGE_TIMEOUT": "5", "MIL_ARGS": "--interval=10m 10m",
	} {
		_, err := millionSettingsFrom(env(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: error %v does not name the variable", name, value, err)
		}
	}
	if _, err := millionSettingsFrom(env(map[string]string{"MIL_HOSTS": "0"})); err == nil {
		t.Error("0 hosts per Ingress was accepted")
	}
	if _, err := millionSettingsFrom(env(map[string]string{"MIL_OBJECTS": "20", "MIL_CHANGES": "50"})); err == nil {
		t.Error("20 Ingresses for 50 changes on distinct Ingresses was accepted")
	}
}

func TestMillionTableSaysWhatWasMeasured(t *testing.T) {
	r := millionResult{Objects: 10000, Hosts: 100, Idle: 2 * time.Minute, Converge: 90 * time.Second, ConvergeCPU: 135 * time.Second,
		RSSConverged: 3 << 30, Latencies: []time.Duration{100 * time.Millisecond, 300 * time.Millisecond}, LoadStart: "1.00 2.00 3.00"}
	md := r.markdown()
	for _, want := range []string{"1,000,000 endpoints: 10,000 Ingresses × 100 host rules", "| time to converge (all 1,000,000 names answered with their address) | 90.0 s (at most",
		"| CPU until converged (cores busy on average) | 2m15s (1.50) |", "3072 MB", "100 ms / 300 ms / 300 ms", "load average at start 1.00 2.00 3.00"} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
}
