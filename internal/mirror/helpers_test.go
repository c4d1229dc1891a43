package mirror

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pair is a source and a destination etcd, each a real server on loopback.
type pair struct {
	src, dst  *testbed.Etcd
	sc, dc    *clientv3.Client
	rulesFile string
	baseFlags []string
}

func startPair(t testing.TB) *pair {
	t.Helper()
	p := &pair{src: testbed.StartEtcd(t), dst: testbed.StartEtcd(t)}
	p.sc, p.dc = client(t, p.src.Endpoint), client(t, p.dst.Endpoint)
	p.rulesFile = t.TempDir() + "/rules.yaml"
	writeFile(t, p.rulesFile, wanRules)
	p.baseFlags = []string{"--src-endpoints=" + p.src.Endpoint, "--dst-endpoints=" + p.dst.Endpoint,
		"--src-directory=/skydns", "--dst-directory=/external", "--rules-filepath=" + p.rulesFile}
	return p
}

func client(t testing.TB, endpoint string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func putKV(t testing.TB, c *clientv3.Client, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.Put(ctx, kv[i], kv[i+1])
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// putMany writes the map in transactions of 128.
func putMany(t testing.TB, c *clientv3.Client, kvs map[string]string) {
	t.Helper()
	var ops []clientv3.Op
	flush := func() {
		if len(ops) == 0 {
			return
		}
		if _, err := c.Txn(context.Background()).Then(ops...).Commit(); err != nil {
			t.Fatal(err)
		}
		ops = nil
	}
	for k, v := range kvs {
		ops = append(ops, clientv3.OpPut(k, v))
		if len(ops) == 128 {
			flush()
		}
	}
	flush()
}

func delKey(t testing.TB, c *clientv3.Client, key string) {
	t.Helper()
	if _, err := c.Delete(context.Background(), key); err != nil {
		t.Fatal(err)
	}
}

func getPrefix(t testing.TB, c *clientv3.Client, prefix string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out
}

// expectPrefix waits until the prefix holds exactly want.
func expectPrefix(t testing.TB, c *clientv3.Client, prefix string, want map[string]string, timeout time.Duration) {
	t.Helper()
	testbed.Eventually(t, timeout, "destination "+prefix, func() error {
		return sameMap(getPrefix(t, c, prefix), want)
	})
}

func sameMap(got, want map[string]string) error {
	var diffs []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, "missing "+k)
		} else if g != v {
			diffs = append(diffs, fmt.Sprintf("%s = %s, want %s", k, g, v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, "unexpected "+k)
		}
	}
	if len(diffs) > 0 {
		if len(diffs) > 10 {
			diffs = append(diffs[:10], fmt.Sprintf("... %d more", len(diffs)-10))
		}
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	return nil
}

// runOnce runs `zonekeeper mirror --once` in-process and returns the exit code and the log.
func runOnce(t testing.TB, args ...string) (int, string) {
	t.Helper()
	log := &testbed.LogBuffer{}
	code := Main(context.Background(), append(args, "--once"), os.Stdout, log, func(string) string { return "" })
	return code, log.String()
}

// running is a `zonekeeper mirror` (watch mode) running in-process.
type running struct {
	log    *testbed.LogBuffer
	cancel context.CancelFunc
	done   chan int
}

func runMirror(t testing.TB, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{log: &testbed.LogBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() { r.done <- Main(ctx, args, os.Stdout, r.log, func(string) string { return "" }) }()
	t.Cleanup(func() {
		code := r.stop(t)
		if t.Failed() {
			t.Logf("mirror log (exit %d):\n%s", code, r.log.String())
		}
	})
	return r
}

func (r *running) stop(t testing.TB) int {
	r.cancel()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(15 * time.Second):
		t.Error("mirror did not stop within 15 s of cancellation")
		return -1
	}
}

// Values as external-dns and zonekeeper write them.
const (
	aValue     = `{"host":"10.0.0.5","ttl":300,"targetstrip":1}`
	aWAN       = `{"host":"203.0.113.7","ttl":900,"targetstrip":1}`
	aaaaValue  = `{"host":"fd00::5","targetstrip":1}`
	aaaaWAN    = `{"host":"203.0.113.7","targetstrip":1,"ttl":900}`
	cnameValue = `{"host":"lb.example.net","ttl":300,"targetstrip":1}`
	txtValue   = `{"text":"\"heritage=external-dns,external-dns/owner=e2e,external-dns/resource=ingress/default/web\"","targetstrip":1}`
)

func tlsClient(t *testing.T, endpoint string, p pki) *clientv3.Client {
	t.Helper()
	s := Side{Name: "dst", Endpoints: []string{endpoint}, CAFile: p.ca, CertFile: p.clientCert, KeyFile: p.clientKey}
	c, err := s.Client(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
