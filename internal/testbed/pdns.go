package testbed

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// PowerDNS is a PowerDNS Authoritative server (4.7, gsqlite3 backend) on loopback: DNS on Addr (UDP
// and TCP), the HTTP API at APIURL with APIKey. It can be stopped and started again on the same ports
// and database, to test how clients ride out an outage.
type PowerDNS struct {
	// Addr is the DNS address, 127.0.0.1:PORT.
	Addr string
	// APIURL is the webserver base URL, http://127.0.0.1:PORT (API paths start at /api/v1).
	APIURL string
	// APIKey is the X-API-Key the server accepts: random per server.
	APIKey string
	proc   *process
	ports  portReservation // DNS and API
}

// powerDNSSchemas are where Debian's pdns-backend-sqlite3 puts the sqlite schema.
var powerDNSSchemas = []string{
	"/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql",
	"/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql",
}

// StartPowerDNS starts pdns_server with an empty sqlite database and creates the given zones (Native,
// with an NS record ns1.<zone>) through the API.
func StartPowerDNS(t testing.TB, zones ...string) *PowerDNS {
	t.Helper()
	bin := Binary(t, "pdns_server")
	sqlite := Binary(t, "sqlite3")
	schema := ""
	for _, s := range powerDNSSchemas {
		if _, err := os.Stat(s); err == nil {
			schema = s
			break
		}
	}
	if schema == "" {
		msg := "PowerDNS sqlite schema not found (package pdns-backend-sqlite3): run hack/testbed.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "pdns.sqlite3")
	sql, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sqlite, db)
	cmd.Stdin = bytes.NewReader(sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("creating the PowerDNS database: %v\n%s", err, out)
	}
	var key [16]byte
	_, _ = rand.Read(key[:])
	ports := FreePorts(t, 2)
	dnsPort, apiPort := ports[0], ports[1]
	p := &PowerDNS{
		ports:  portReservation{ports: ports},
		Addr:   fmt.Sprintf("127.0.0.1:%d", dnsPort),
		APIURL: fmt.Sprintf("http://127.0.0.1:%d", apiPort),
		APIKey: "testbed-" + hex.EncodeToString(key[:]),
	}
	p.proc = &process{name: bin, dir: dir, args: []string{
		"--no-config",
		"--launch=gsqlite3",
		"--gsqlite3-database=" + db,
		"--local-address=127.0.0.1",
		fmt.Sprintf("--local-port=%d", dnsPort),
		"--api=yes",
		"--api-key=" + p.APIKey,
		"--webserver=yes",
		"--webserver-address=127.0.0.1",
		fmt.Sprintf("--webserver-port=%d", apiPort),
		"--webserver-allow-from=127.0.0.0/8",
		"--security-poll-suffix=", // no "phone home" DNS query
		"--socket-dir=" + dir,
		"--guardian=no",
		"--daemon=no",
		"--disable-syslog",
		"--write-pid=no",
		// Answer from the database on every query: tests check DNS right after an API change.
		"--cache-ttl=0",
		"--negquery-cache-ttl=0",
		"--query-cache-ttl=0",
		"--zone-cache-refresh-interval=0",
	}}
	if err := p.Start(); err != nil {
		t.Fatalf("pdns_server: %v", err)
	}
	t.Cleanup(p.close)
	for _, z := range zones {
		p.CreateZone(t, z)
	}
	return p
}

// Start starts (or restarts) the server and waits until the API answers.
func (p *PowerDNS) Start() error {
	p.ports.release()
	if err := p.proc.start(); err != nil {
		return err
	}
	return waitFor(p.proc, 20*time.Second, func(ctx context.Context) error {
		status, body, err := p.request(ctx, http.MethodGet, "/api/v1/servers/localhost", nil)
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("API: %d %s", status, body)
		}
		return nil
	})
}

// Stop stops the server; its database and its ports stay for a later Start.
func (p *PowerDNS) Stop() {
	p.proc.stop()
	p.ports.hold()
}

func (p *PowerDNS) close() {
	p.proc.stop()
	p.ports.release()
}

// Log returns what the server printed.
func (p *PowerDNS) Log() string { return p.proc.log() }

// CreateZone creates a Native zone with an NS record ns1.<zone>.
func (p *PowerDNS) CreateZone(t testing.TB, name string) {
	t.Helper()
	fqdn := strings.TrimSuffix(name, ".") + "."
	body := map[string]any{"name": fqdn, "kind": "Native", "nameservers": []string{"ns1." + fqdn}}
	if status, out := p.API(t, http.MethodPost, "/api/v1/servers/localhost/zones", body); status != http.StatusCreated {
		t.Fatalf("PowerDNS: creating zone %s: %d %s", name, status, out)
	}
}

// API sends one request to the API (body encoded as JSON unless nil) and returns the status and body.
func (p *PowerDNS) API(t testing.TB, method, path string, body any) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status, out, err := p.request(ctx, method, path, body)
	if err != nil {
		t.Fatalf("PowerDNS %s %s: %v", method, path, err)
	}
	return status, out
}

func (p *PowerDNS) request(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.APIURL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Key", p.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}
