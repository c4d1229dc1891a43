package plan_test

import (
	"fmt"
	"net/netip"
	"syscall"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// benchmarkInput builds n record sets in a realistic steady state: 80% in sync, 8% to update, 5% to
// create, 5% to delete, 2% held by another owner that we also want.
func benchmarkInput(n int) plan.Input {
	in := plan.Input{OwnerID: "cluster-a", Policy: plan.PolicySync}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("svc-%d.ns-%d.example.com", i, i%97)
		resource := fmt.Sprintf("service/ns-%d/svc-%d", i%97, i)
		recordType, target, other := benchmarkTargets(i)
		desired := endpoint.NewWithTTL(name, recordType, 300, target).WithLabel(endpoint.ResourceLabelKey, resource)
		current := endpoint.NewWithTTL(name, recordType, 300, target).
			WithLabel(endpoint.OwnerLabelKey, "cluster-a").WithLabel(endpoint.ResourceLabelKey, resource)
		switch bucket := i % 100; {
		case bucket < 80: // in sync
		case bucket < 88: // targets changed
			current.Targets = endpoint.Targets{other}
		case bucket < 93: // new
			current = nil
		case bucket < 98: // gone
			desired = nil
		default: // someone else's
			current.Targets = endpoint.Targets{other}
			current.Labels[endpoint.OwnerLabelKey] = "cluster-b"
		}
		if desired != nil {
			in.Desired = append(in.Desired, desired)
		}
		if current != nil {
			in.Current = append(in.Current, current)
		}
	}
	return in
}

func benchmarkTargets(i int) (recordType, target, other string) {
	switch i % 10 {
	case 0:
		return endpoint.RecordTypeCNAME, fmt.Sprintf("lb-%d.elb.example.net", i), fmt.Sprintf("lb-%d-old.elb.example.net", i)
	case 1:
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 14: byte(i >> 8), 15: byte(i)})
		return endpoint.RecordTypeAAAA, a.String(), a.Next().String()
	default:
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		return endpoint.RecordTypeA, a.String(), a.Next().String()
	}
}

func BenchmarkCalculate(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		in := benchmarkInput(n)
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var res plan.Result
			cpu := processCPU(b)
			for b.Loop() {
				res = plan.Calculate(in)
			}
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(res.Changes.Len()), "changes")
		})
	}
}

// BenchmarkCalculateOneName is the plan of an event that names one object: one record to create
// and one to update.
func BenchmarkCalculateOneName(b *testing.B) {
	in := plan.Input{OwnerID: "cluster-a", Policy: plan.PolicySync,
		Desired: []*endpoint.Endpoint{
			endpoint.NewWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/web"),
			endpoint.NewWithTTL("web.example.com", endpoint.RecordTypeAAAA, 300, "2001:db8::1").WithLabel(endpoint.ResourceLabelKey, "service/default/web"),
		},
		Current: []*endpoint.Endpoint{
			endpoint.NewWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.2").
				WithLabel(endpoint.OwnerLabelKey, "cluster-a").WithLabel(endpoint.ResourceLabelKey, "service/default/web"),
		},
	}
	b.ReportAllocs()
	var res plan.Result
	for b.Loop() {
		res = plan.Calculate(in)
	}
	b.ReportMetric(float64(res.Changes.Len()), "changes")
}

// processCPU is the CPU time the process has used so far, in nanoseconds, on all its threads (the
// garbage collector's included). Per plan it moves less than wall time does when other programs
// share the machine's cores, which makes two versions comparable on a busy machine.
func processCPU(b *testing.B) int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

func TestBenchmarkInputIsRealistic(t *testing.T) {
	res := plan.Calculate(benchmarkInput(1000))
	c := res.Changes
	if len(c.Create) != 50 || len(c.UpdateNew) != 80 || len(c.Delete) != 50 || len(res.OwnerMismatches) != 20 {
		t.Fatalf("benchmark mix drifted: %d creates, %d updates, %d deletes, %d mismatches",
			len(c.Create), len(c.UpdateNew), len(c.Delete), len(res.OwnerMismatches))
	}
}
