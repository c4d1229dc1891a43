package crd

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

var projectCRD = filepath.Join("..", "..", "..", "config", "crd", "dnsrecords.externaldns.k8s.io.yaml")

// The project's DNSRecord CRD (config/crd, and the chart's copy) is external-dns v0.23.0's, field for
// field: the same group, names, scope, version, subresource, printer columns and schema. Only the
// descriptions (our own words) and controller-gen's annotation differ, so either CRD serves both tools.
func TestDNSRecordCRDIsExternalDNSs(t *testing.T) {
	ours := testbed.ReadCRDFile(t, projectCRD)
	if len(ours) != 1 {
		t.Fatalf("%s holds %d CRDs", projectCRD, len(ours))
	}
	theirs := testbed.ExternalDNSDNSRecordCRD(t)
	a, b := withoutDescriptions(ours[0].Object["spec"]), withoutDescriptions(theirs.Object["spec"])
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("config/crd's DNSRecord CRD differs from %s's:\nours:   %v\ntheirs: %v", testbed.ExternalDNSV023Module, a, b)
	}
	if ours[0].GetName() != theirs.GetName() || ours[0].GetAnnotations()["api-approved.kubernetes.io"] != theirs.GetAnnotations()["api-approved.kubernetes.io"] {
		t.Fatalf("name or api-approved annotation: %s %v", ours[0].GetName(), ours[0].GetAnnotations())
	}
	chart, err := os.ReadFile(filepath.Join("..", "..", "..", "charts", "zonekeeper", "crds", "dnsrecords.externaldns.k8s.io.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	project, err := os.ReadFile(projectCRD)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(chart, project) {
		t.Fatal("charts/zonekeeper/crds and config/crd hold different DNSRecord CRDs: copy config/crd into the chart")
	}
}

func withoutDescriptions(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k != "description" {
				out[k] = withoutDescriptions(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutDescriptions(x)
		}
		return out
	}
	return v
}
