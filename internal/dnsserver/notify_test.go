package dnsserver

import (
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// secondary is a stand-in for a secondary server's NOTIFY handling: it records the NOTIFYs it gets
// and answers them (or refuses them).
type secondary struct {
	mu       sync.Mutex
	got      []string // zone and TSIG status of each NOTIFY
	rcode    int
	gate     chan struct{} // when set, answers wait until it is closed
	addr     string
	shutdown func()
}

func startSecondary(t *testing.T, rcode int) *secondary {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &secondary{rcode: rcode, addr: pc.LocalAddr().String()}
	srv := &dns.Server{PacketConn: pc, TsigSecret: map[string]string{xfrKey: xfrSecret},
		MsgAcceptFunc: func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept },
		Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
			status := "unsigned"
			if r.IsTsig() != nil {
				status = "signed"
				if w.TsigStatus() != nil {
					status = "bad signature"
				}
			}
			s.mu.Lock()
			s.got = append(s.got, fmt.Sprintf("%s %s %s aa=%v", dns.OpcodeToString[r.Opcode], r.Question[0].Name, status, r.Authoritative))
			gate := s.gate
			s.mu.Unlock()
			if gate != nil {
				<-gate
			}
			m := new(dns.Msg)
			m.SetRcode(r, s.rcode)
			if r.IsTsig() != nil {
				m.SetTsig(xfrKey, dns.HmacSHA256, 300, time.Now().Unix())
			}
			_ = w.WriteMsg(m)
		})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return s
}

func (s *secondary) notifies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// Every change is followed by a signed NOTIFY per zone to each secondary; a burst of changes is
// coalesced into a round or two, not one NOTIFY per change.
func TestNotifyAfterChanges(t *testing.T) {
	signed := startSecondary(t, dns.RcodeSuccess)
	plain := startSecondary(t, dns.RcodeSuccess)
	s := start(t, Config{
		Zones:    []string{testZone, "other.test."},
		TSIGKeys: map[string]string{xfrKey: xfrSecret},
		Notify:   []NotifyTarget{{Addr: signed.addr, Key: "xfr-key"}, {Addr: plain.addr}},
	})
	if got := signed.notifies(); len(got) != 0 {
		t.Fatalf("NOTIFY before any change: %v", got)
	}
	set(t, s, "default", "www.example.test. 60 IN A 192.0.2.1")
	waitNotifies(t, signed, 2)
	waitNotifies(t, plain, 2)
	for _, n := range signed.notifies() {
		if n != "NOTIFY example.test. signed aa=true" && n != "NOTIFY other.test. signed aa=true" {
			t.Errorf("signed secondary got %q", n)
		}
	}
	for _, n := range plain.notifies() {
		if n != "NOTIFY example.test. unsigned aa=true" && n != "NOTIFY other.test. unsigned aa=true" {
			t.Errorf("plain secondary got %q", n)
		}
	}
	// Hold the secondary's answers: a round is in flight while 50 changes arrive, which must then
	// cost one more round, not 50.
	gate := make(chan struct{})
	signed.mu.Lock()
	signed.gate = gate
	signed.mu.Unlock()
	before := len(signed.notifies())
	set(t, s, "default", "first.example.test. 60 IN A 192.0.2.1")
	waitNotifies(t, signed, before+2)
	for i := range 50 {
		set(t, s, "default", fmt.Sprintf("h%d.example.test. 60 IN A 192.0.2.%d", i, i+1))
	}
	signed.mu.Lock()
	signed.gate = nil
	signed.mu.Unlock()
	close(gate)
	waitNotifies(t, signed, before+4)
	time.Sleep(300 * time.Millisecond) // a further round would have gone out by now
	// Two rounds of two zones, plus a resend or two if the held answers outlived a try's timeout;
	// without coalescing it would be 102.
	if n := len(signed.notifies()) - before; n < 4 || n > 10 {
		t.Errorf("51 changes gave %d NOTIFYs for 2 zones; want two coalesced rounds", n)
	}
}

// A secondary that refuses is not asked again for that change.
func TestNotifyRefusedIsNotRetried(t *testing.T) {
	refusing := startSecondary(t, dns.RcodeRefused)
	s := start(t, Config{Notify: []NotifyTarget{{Addr: refusing.addr}}})
	set(t, s, "default", "www.example.test. 60 IN A 192.0.2.1")
	waitNotifies(t, refusing, 1)
	time.Sleep(300 * time.Millisecond)
	if got := refusing.notifies(); len(got) != 1 {
		t.Errorf("refused NOTIFY sent %d times", len(got))
	}
}

func TestNotifyConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}, Notify: []NotifyTarget{{Addr: "ns2.example.test"}}}, `notify[0]: "ns2.example.test" is not IP[:PORT]`},
		{Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}, Notify: []NotifyTarget{{Addr: "192.0.2.53", Key: "nokey"}}}, `notify[0]: key "nokey" is not among the TSIG keys`},
	} {
		if _, err := New(c.cfg, nil); err == nil || err.Error() != "dns server config: "+c.want {
			t.Errorf("New = %v, want %s", err, c.want)
		}
	}
	s, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}, Notify: []NotifyTarget{{Addr: "192.0.2.53"}}}, nil)
	if err != nil || s.cfg.Notify[0].Addr != "192.0.2.53:53" {
		t.Errorf("default port: %v %v", s, err)
	}
}

func waitNotifies(t *testing.T, s *secondary, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.notifies()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("got %v, want %d NOTIFYs", s.notifies(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Close does not wait for a secondary that never answers.
func TestCloseCutsAPendingNotify(t *testing.T) {
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	s, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}, Notify: []NotifyTarget{{Addr: silent.LocalAddr().String()}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	set(t, s, "default", "www.example.test. 60 IN A 192.0.2.1")
	time.Sleep(3600 * time.Millisecond) // tries of 0.5, 1 and 2 s timed out; the fourth, of 4 s, is out
	start := time.Now()
	_ = s.Close()
	// Waiting for the try in flight would take another 3.9 s.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
}

// BIND key files with hmac-md5 (either spelling) and other algorithms load; only a key that signs
// NOTIFYs must be one miekg/dns can sign with. An IPv6 secondary in brackets gets port 53.
func TestNotifyKeysAndAddresses(t *testing.T) {
	path := t.TempDir() + "/keys"
	content := `key "old" { algorithm hmac-md5.sig-alg.reg.int; secret "` + xfrSecret + `"; };
key "old2" { algorithm hmac-md5; secret "` + xfrSecret + `"; };
key "new" { algorithm hmac-sha512; secret "` + xfrSecret + `"; };
key "odd" { algorithm gss-tsig; secret "` + xfrSecret + `"; };
`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	algs, err := ReadTSIGKeyAlgorithms(path)
	if err != nil {
		t.Fatal(err)
	}
	if algs["old."] != dns.HmacMD5 || algs["old2."] != dns.HmacMD5 || algs["new."] != dns.HmacSHA512 || algs["odd."] != "gss-tsig." {
		t.Fatalf("algorithms %v", algs)
	}
	keys, err := ReadTSIGKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The keys load whatever their algorithm; a NOTIFY key must be one miekg/dns signs with.
	cfg := Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}, TSIGKeys: keys, TSIGAlgorithms: algs,
		Notify: []NotifyTarget{{Addr: "[2001:db8::53]", Key: "new"}}}
	s, err := New(cfg, nil)
	if err != nil || s.cfg.Notify[0].Addr != "[2001:db8::53]:53" {
		t.Fatalf("New = %v, %v", err, s)
	}
	for _, key := range []string{"odd", "old"} {
		cfg.Notify = []NotifyTarget{{Addr: "192.0.2.53", Key: key}}
		if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), "cannot sign with algorithm") {
			t.Errorf("key %s cannot sign NOTIFYs: %v", key, err)
		}
	}
}

// Every try is signed: miekg/dns strips the TSIG record when it signs, so a resent message must be
// built again.
func TestRetriedNotifyIsSigned(t *testing.T) {
	sec := startSecondary(t, dns.RcodeSuccess)
	gate := make(chan struct{})
	sec.mu.Lock()
	sec.gate = gate // hold the first answer past the first try's timeout
	sec.mu.Unlock()
	s := start(t, Config{TSIGKeys: map[string]string{xfrKey: xfrSecret}, Notify: []NotifyTarget{{Addr: sec.addr, Key: "xfr-key"}}})
	set(t, s, "default", "www.example.test. 60 IN A 192.0.2.1")
	waitNotifies(t, sec, 2) // the first try and its resend
	sec.mu.Lock()
	sec.gate = nil
	sec.mu.Unlock()
	close(gate)
	for _, n := range sec.notifies() {
		if n != "NOTIFY example.test. signed aa=true" {
			t.Errorf("got %q", n)
		}
	}
}
