package mirror

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseArgsEtcdInjectorFlags(t *testing.T) {
	c, err := ParseArgs([]string{
		"--src-endpoints=http://10.0.0.1:2379,http://10.0.0.2:2379", "--dst-endpoints", "http://10.0.0.3:2379",
		"-s", "/skydns-internal", "-d", "/skydns", "-f", "rules.yaml",
		"--ignore=/skydns-internal/com/example/local", "--ignore", "/skydns-internal/a,/skydns-internal/b",
		"--delete", "-x",
	}, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Src.Endpoints, " ") != "http://10.0.0.1:2379 http://10.0.0.2:2379" || c.Dst.Endpoints[0] != "http://10.0.0.3:2379" {
		t.Errorf("endpoints %v %v", c.Src.Endpoints, c.Dst.Endpoints)
	}
	if c.SrcDirectory != "/skydns-internal" || c.DstDirectory != "/skydns" || c.RulesFile != "rules.yaml" {
		t.Errorf("directories/rules: %+v", c)
	}
	if strings.Join(c.Ignore, " ") != "/skydns-internal/com/example/local /skydns-internal/a /skydns-internal/b" {
		t.Errorf("ignore %v", c.Ignore)
	}
	if !c.Delete || c.Once || c.LogLevel != "debug" || c.ResyncInterval != 10*time.Minute || c.MaxTxnOps != 128 {
		t.Errorf("switches: %+v", c)
	}
	if c.srcDir != "/skydns-internal/" || c.dstDir != "/skydns/" {
		t.Errorf("normalised %q %q", c.srcDir, c.dstDir)
	}
}

func TestParseArgsEtcdInjectorEnvironment(t *testing.T) {
	env := map[string]string{
		"ETCD_SRC_ENDPOINTS": "http://10.0.0.1:2379,http://10.0.0.2:2379",
		"ETCD_DST_ENDPOINTS": "https://10.0.0.3:2379",
		"ETCD_SRC_DIRECTORY": "/src",
		"ETCD_DST_DIRECTORY": "/dst",
		"RULES_FILEPATH":     "/etc/rules.yaml",
		"IGNORE_KEYS":        "/src/a,/src/b",
		"ETCD_SRC_USERNAME":  "reader",
		"ETCD_SRC_PASSWORD":  "s3cret",
		"ETCD_DST_USERNAME":  "writer",
		"ETCD_DST_PASSWORD":  "t0psecret",
		"ETCD_DST_CA_FILE":   "/ca.pem",
		// zonekeeper's generic form for flags etcd-injector had no variable for.
		"ZONEKEEPER_MIRROR_DELETE":           "true",
		"ZONEKEEPER_MIRROR_RESYNC_INTERVAL":  "90s",
		"ZONEKEEPER_MIRROR_DST_TLS_INSECURE": "yes",
	}
	c, err := ParseArgs([]string{"--dst-directory=/flag-wins"}, envOf(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Src.Endpoints) != 2 || c.Dst.Endpoints[0] != "https://10.0.0.3:2379" || c.SrcDirectory != "/src" {
		t.Errorf("from env: %+v", c)
	}
	if c.DstDirectory != "/flag-wins" {
		t.Errorf("a flag must win over the environment: %q", c.DstDirectory)
	}
	if c.RulesFile != "/etc/rules.yaml" || len(c.Ignore) != 2 || !c.Delete || c.ResyncInterval != 90*time.Second {
		t.Errorf("from env: %+v", c)
	}
	if c.Src.Username != "reader" || c.Src.Password != "s3cret" || c.Dst.Username != "writer" || c.Dst.CAFile != "/ca.pem" || !c.Dst.Insecure {
		t.Errorf("credentials/TLS from env: %+v %+v", c.Src, c.Dst)
	}
	// The password never appears in a description of the side.
	for _, s := range []string{c.Src.String(), c.Dst.String()} {
		if strings.Contains(s, "s3cret") || strings.Contains(s, "t0psecret") {
			t.Errorf("password in %s", s)
		}
	}
}

func TestParseArgsErrors(t *testing.T) {
	base := []string{"--src-endpoints=http://127.0.0.1:2379", "--dst-endpoints=http://127.0.0.1:2379", "-s=/a", "-d=/b"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--dst-endpoints=http://x:1", "-s=/a", "-d=/b"}, "--src-endpoints: at least one etcd endpoint is required"},
		{[]string{"--src-endpoints=http://x:1", "--dst-endpoints=http://x:1"}, "--src-directory is required"},
		{append(base, "--resync-interval=soon"), `"soon" is not a positive duration`},
		{append(base, "--max-txn-ops=1"), "at least 2"},
		{append(base, "--log-format=xml"), "text or json"},
		{append(base, "--src-ca-file=/ca.pem"), "need https:// endpoints"},
		{append(base[1:], "--src-endpoints=ftp://x:1"), `scheme "ftp"`},
		{append(base[1:], "--src-endpoints=https://a:1,http://b:1"), "different schemes"},
		{append(base, "--dst-cert-file=/c.pem"), "--dst-cert-file and --dst-key-file must be set together"},
		{append(base, "stray"), "unexpected arguments: stray"},
	}
	for _, c := range cases {
		_, err := ParseArgs(c.args, envOf(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := ParseArgs([]string{"-h"}, envOf(nil), io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
	_, err := ParseArgs(base, envOf(map[string]string{"ZONEKEEPER_MIRROR_DELETE": "maybe"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "ZONEKEEPER_MIRROR_DELETE") {
		t.Errorf("bad env: %v", err)
	}
}

func TestIgnoreOutsideSourceIsAWarning(t *testing.T) {
	c, err := ParseArgs([]string{"--src-endpoints=http://x:1", "--dst-endpoints=http://x:1", "-s=/src/com/example", "-d=/dst", "--ignore=/skydns/com/example/local"}, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "--ignore=/skydns/com/example/local") {
		t.Errorf("warnings %v", w)
	}
}
