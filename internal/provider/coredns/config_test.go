package coredns

import (
	"strings"
	"testing"
)

func TestConfigFromEnv(t *testing.T) {
	for _, v := range []string{"ETCD_URLS", "ETCD_CA_FILE", "ETCD_CERT_FILE", "ETCD_KEY_FILE", "ETCD_TLS_SERVER_NAME", "ETCD_TLS_INSECURE", "ETCD_USERNAME", "ETCD_PASSWORD"} {
		t.Setenv(v, "")
	}
	c, err := ConfigFromEnv()
	if err != nil || len(c.Endpoints) != 1 || c.Endpoints[0] != DefaultEndpoint || c.Prefix != DefaultPrefix {
		t.Fatalf("defaults: %+v, %v", c, err)
	}

	t.Setenv("ETCD_URLS", "https://a:2379, https://b:2379")
	t.Setenv("ETCD_TLS_INSECURE", "yes")
	t.Setenv("ETCD_USERNAME", "zk")
	t.Setenv("ETCD_PASSWORD", "s3cret")
	c, err = ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Endpoints) != 2 || c.Endpoints[1] != "https://b:2379" || !c.TLSInsecure || c.Username != "zk" || c.Password != "s3cret" {
		t.Fatalf("parsed %+v", c)
	}
	if secure, _ := c.secure(); !secure {
		t.Fatal("https endpoints must use TLS")
	}
	if s := c.String(); strings.Contains(s, "s3cret") || !strings.Contains(s, "redacted") {
		t.Fatalf("String() leaks or hides the password badly: %s", s)
	}
	if tc, err := c.tlsConfig(); err != nil || tc.MinVersion < 0x0303 || !tc.InsecureSkipVerify {
		t.Fatalf("tls config %+v, %v", tc, err)
	}

	for _, bad := range []struct{ env, value, want string }{
		{"ETCD_URLS", "unix:///run/etcd.sock", "only http and https"},
		{"ETCD_URLS", "http://a:2379,https://b:2379", "must agree"},
		{"ETCD_URLS", "localhost:2379", "scheme"},
	} {
		t.Run(bad.value, func(t *testing.T) {
			t.Setenv(bad.env, bad.value)
			_, err := ConfigFromEnv()
			if err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Fatalf("%s=%s: error %v, want one mentioning %q", bad.env, bad.value, err, bad.want)
			}
		})
	}
	t.Run("cert without key", func(t *testing.T) {
		t.Setenv("ETCD_URLS", "https://a:2379")
		t.Setenv("ETCD_CERT_FILE", "/tmp/cert.pem")
		if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "together") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("missing CA file", func(t *testing.T) {
		c := Config{Endpoints: []string{"https://a:2379"}, CAFile: "/nonexistent/ca.pem"}
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), "ETCD_CA_FILE") {
			t.Fatalf("error %v", err)
		}
	})
}

func TestKeyLayout(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"", "/skydns/"}, {"skydns", "/skydns/"}, {"/skydns", "/skydns/"}, {"/a/b/", "/a/b/"}} {
		if got := normalizePrefix(c.in); got != c.want {
			t.Errorf("normalizePrefix(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	l := keyLayout{prefix: "/skydns/"}
	if got := l.entryKey("www.example.com", "1a2b3c4d"); got != "/skydns/com/example/www/1a2b3c4d" {
		t.Errorf("entryKey = %s", got)
	}
	for _, c := range []struct {
		key   string
		strip int
		want  string
		ok    bool
	}{
		{"/skydns/com/example/www/1a2b3c4d", 1, "www.example.com", true},
		{"/skydns/com/example/www", 0, "www.example.com", true},
		{"/skydns/com/example/www/x/y", 2, "www.example.com", true},
		{"/skydns/com", 1, "", false},
		{"/other/com/example/www/1", 1, "", false},
	} {
		got, ok := l.nameOf(c.key, c.strip)
		if got != c.want || ok != c.ok {
			t.Errorf("nameOf(%s, %d) = %q %t, want %q %t", c.key, c.strip, got, ok, c.want, c.ok)
		}
	}
	if recordID("A", "10.0.0.1") != recordID("A", "10.0.0.1") || recordID("A", "10.0.0.1") == recordID("TXT", "10.0.0.1") {
		t.Error("record ids must be stable per (type, target) and differ across types")
	}
}
