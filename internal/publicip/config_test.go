package publicip

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

func TestConfigErrors(t *testing.T) {
	v4 := netip.MustParseAddr("203.0.113.1")
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"nothing", Config{}, "no public address source configured"},
		{"two v4", Config{Static: []netip.Addr{v4, netip.MustParseAddr("203.0.113.2")}}, "at most one IPv4 and one IPv6"},
		{"node without kube", Config{NodeName: "worker-1"}, "need Kubernetes access"},
		{"service half", Config{Kube: &kube.Client{}, ServiceName: "x"}, "want namespace/name"},
		{"echo scheme", Config{EchoURL: "ftp://x/y"}, "--public-ip-echo-url"},
		{"stun no port", Config{STUNServer: "stun.example.net"}, "--public-ip-stun-server=\"stun.example.net\": want host:port"},
		{"unknown order", Config{Static: []netip.Addr{v4}, Order: []string{"dns"}}, `unknown source "dns"`},
		{"order leaves one out", Config{Static: []netip.Addr{v4}, STUNServer: "127.0.0.1:3478", Order: []string{KindSTUN}}, `leaves out the configured source "static"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if (Config{}).Enabled() || !(Config{STUNServer: "x:1"}).Enabled() {
		t.Fatal("Enabled")
	}
}

func TestParseStatic(t *testing.T) {
	got, err := ParseStatic([]string{"203.0.113.1", " 2001:db8::1 "})
	if err != nil || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := ParseStatic([]string{"203.0.113.1,2001:db8::1"}); err != nil || len(got) != 2 {
		t.Fatalf("comma form: %v %v", got, err)
	}
	for _, bad := range [][]string{{"203.0.113.300"}, {"example.com"}, {"fe80::1%eth0"}, {"2001:db8::1", "2001:db8::2"}} {
		if _, err := ParseStatic(bad); err == nil || !strings.Contains(err.Error(), "--public-ip") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseServiceRef(t *testing.T) {
	ns, n, err := ParseServiceRef("ingress-nginx/ingress-nginx-controller")
	if err != nil || ns != "ingress-nginx" || n != "ingress-nginx-controller" {
		t.Fatalf("%q %q %v", ns, n, err)
	}
	for _, bad := range []string{"svc", "/svc", "ns/", "a/b/c"} {
		if _, _, err := ParseServiceRef(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCheckAddress(t *testing.T) {
	for _, tc := range []struct {
		addr         string
		allowPrivate bool
		ok           bool
	}{
		{"203.0.113.7", false, true},
		{"8.8.8.8", false, true},
		{"100.63.255.255", false, true}, // just below CGNAT
		{"100.128.0.0", false, true},    // just above CGNAT
		{"172.15.255.255", false, true},
		{"172.32.0.0", false, true},
		{"2001:db8::1", false, true},
		{"2a00:1450::1", false, true},
		{"100.64.0.0", false, false},
		{"100.127.255.255", false, false},
		{"172.16.0.0", false, false},
		{"172.31.255.255", false, false},
		{"10.255.255.255", false, false},
		{"192.168.0.1", false, false},
		{"127.0.0.1", false, false},
		{"169.254.1.1", false, false},
		{"fc00::1", false, false},
		{"fdff::1", false, false},
		{"fe80::1", false, false},
		{"::1", false, false},
		{"::ffff:10.0.0.1", false, false},
		{"10.0.0.1", true, true},
		{"100.64.0.1", true, true},
		{"fd00::1", true, true},
		{"0.0.0.0", true, false},
		{"::", true, false},
		{"224.0.0.1", true, false},
		{"ff02::1", true, false},
		{"255.255.255.255", true, false},
	} {
		err := checkAddress(netip.MustParseAddr(tc.addr), tc.allowPrivate)
		if (err == nil) != tc.ok {
			t.Errorf("%s allowPrivate=%v: %v", tc.addr, tc.allowPrivate, err)
		}
		if err != nil && !strings.Contains(err.Error(), tc.addr) {
			t.Errorf("%s: error %q does not name the address", tc.addr, err)
		}
	}
}
