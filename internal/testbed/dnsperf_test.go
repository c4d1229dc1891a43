package testbed

import (
	"testing"
	"time"
)

func TestParseDNSPerf(t *testing.T) {
	const out = `Statistics:

  Queries sent:         4
  Queries completed:    4 (100.00%)
  Queries lost:         0 (0.00%)

  Response codes:       NOERROR 3 (75.00%), NXDOMAIN 1 (25.00%)
  Average packet size:  request 34, response 68
  Run time (s):         0.001498
  Queries per second:   2670.226969

  Average Latency (s):  0.000137 (min 0.000061, max 0.000194)
  Latency StdDev (s):   0.000061
`
	r, err := ParseDNSPerf(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 4 || r.Completed != 4 || r.Lost != 0 || int(r.QPS) != 2670 || r.AvgLatency != 137*time.Microsecond ||
		r.MaxLatency != 194*time.Microsecond || r.Rcodes["NOERROR"] != 3 || r.Rcodes["NXDOMAIN"] != 1 {
		t.Fatalf("parsed %+v", r)
	}
	if _, err := ParseDNSPerf("Error: input file contains no data\n"); err == nil {
		t.Fatal("a report without statistics parsed")
	}
}
