package deploy

import (
	"bytes"
	"os"
	"testing"
)

// The chart installs the DNSEndpoint CRD from its crds/ folder; it must be the one the project ships in
// config/crd (the one the e2e tests install and the source is written against).
func TestChartShipsTheProjectCRD(t *testing.T) {
	chart, err := os.ReadFile("../../charts/zonekeeper/crds/dnsendpoints.externaldns.k8s.io.yaml")
	if err != nil {
		t.Fatal(err)
	}
	project, err := os.ReadFile("../../config/crd/dnsendpoints.externaldns.k8s.io.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(chart, project) {
		t.Fatal("charts/zonekeeper/crds and config/crd hold different DNSEndpoint CRDs: copy config/crd into the chart")
	}
}
