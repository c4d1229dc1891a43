package bench

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestSettingsDefaultsAreTheIssues(t *testing.T) {
	s, err := settingsFrom(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Counts, []int{1000, 20000, 100000}) || s.Idle != 10*time.Minute || s.Changes != 50 ||
		!reflect.DeepEqual(s.Tools, []string{"external-dns", "zonekeeper"}) || s.ExternalDNSVersion != "v0.23.0" {
		t.Errorf("defaults: %+v", s)
	}
}

func TestSettingsFromEnvironment(t *testing.T) {
	s, err := settingsFrom(env(map[string]string{
		"SBS_N": "1k, 20K,500", "SBS_IDLE": "2m", "SBS_CHANGES": "10", "SBS_TOOLS": "zonekeeper",
		"SBS_SETTLE": "0s", "SBS_ZONEKEEPER": "/x/zk", "SBS_OUT": "/x/out.md", "SBS_EXTERNAL_DNS": "v0.21.0",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Counts, []int{1000, 20000, 500}) || s.Idle != 2*time.Minute || s.Changes != 10 ||
		!reflect.DeepEqual(s.Tools, []string{"zonekeeper"}) || s.Settle != 0 || s.Zonekeeper != "/x/zk" ||
		s.Out != "/x/out.md" || s.ExternalDNSVersion != "v0.21.0" {
		t.Errorf("got %+v", s)
	}
}

// Each malformed variable is refused with its name in the message.
func TestSettingsRefuseBadValues(t *testing.T) {
	for name, value := range map[string]string{
		"SBS_N": "1k,lots", "SBS_IDLE": "0s", "SBS_SETTLE": "-1s", "SBS_CHANGES": "1",
		"SBS_TOOLS": "external-dns,kubectl", "SBS_CONVERGE_TIMEOUT": "soon", "SBS_CHANGE_TIMEOUT": "5",
	} {
		_, err := settingsFrom(env(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: error %v does not name the variable", name, value, err)
		}
	}
	if _, err := settingsFrom(env(map[string]string{"SBS_N": "20", "SBS_CHANGES": "50"})); err == nil {
		t.Error("20 Ingresses for 50 changes on distinct Ingresses was accepted")
	}
}
