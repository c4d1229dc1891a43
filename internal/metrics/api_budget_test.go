package metrics

import (
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/controller"
)

// Issue 16: the API budget is visible per provider and zone (calls by kind, throttles), per account
// (current rate), and a zone left out because it cannot be listed is named (issue 11).
func TestAPIBudgetMetrics(t *testing.T) {
	m := New("test")
	m.APICall("aws", "example.com", "GetHostedZone", false)
	m.APICall("aws", "example.com", "ChangeResourceRecordSets", true)
	m.APICall("aws", "", "ListHostedZones", false)
	m.APIRate("aws", "profile= role= endpoint=", 2.5)
	m.Reconciled(controller.Report{View: "", UnreadableZones: []string{"denied.test"}})
	body := scrape(t, m)
	for _, want := range []string{
		`zonekeeper_provider_api_calls_total{call="GetHostedZone",provider="aws",zone="example.com"} 1`,
		`zonekeeper_provider_api_calls_total{call="ListHostedZones",provider="aws",zone=""} 1`,
		`zonekeeper_provider_api_throttles_total{call="ChangeResourceRecordSets",provider="aws",zone="example.com"} 1`,
		`zonekeeper_provider_throttled_total{provider="aws"} 1`,
		`zonekeeper_provider_api_rate{account="profile= role= endpoint=",provider="aws"} 2.5`,
		`zonekeeper_zone_unreadable{view="",zone="denied.test"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s", want)
		}
	}
	m.Reconciled(controller.Report{View: ""})
	if body := scrape(t, m); strings.Contains(body, `zonekeeper_zone_unreadable{view="",zone="denied.test"}`) {
		t.Error("a zone readable again must leave the gauge")
	}
}
