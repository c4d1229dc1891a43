package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// lookupA asks the DNS server at addr for name's A records.
func lookupA(addr, name string) ([]string, error) {
	_, out, err := query(addr, "", "udp", name, dns.TypeA)
	return out, err
}

// runOnce runs `zonekeeper --once` with the given flags against the env's cluster.
func (e *env) runOnce(t *testing.T, flags ...string) {
	t.Helper()
	if code, _, stderr := e.run(t, append([]string{"--once"}, flags...)...); code != 0 {
		t.Fatalf("zonekeeper %v: exit %d\n%s", flags, code, tail(stderr, 6000))
	}
}

// run runs one zonekeeper command line against the env's cluster and returns its exit code and output.
func (e *env) run(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr testbed.LogBuffer
	args = append(args, "--kubeconfig="+e.kube.Kubeconfig)
	code := app.Main(ctx, args, &stdout, &stderr, os.Getenv)
	return code, stdout.String(), stderr.String()
}

// expectPlan runs `zonekeeper plan` and checks its exit code and that its output mentions contains.
func (e *env) expectPlan(t *testing.T, wantCode int, contains string, flags ...string) {
	t.Helper()
	code, out, errOut := e.run(t, append([]string{"plan"}, flags...)...)
	if code != wantCode || !strings.Contains(out, contains) {
		t.Fatalf("zonekeeper plan: exit %d, want %d with %q\n%s\n%s", code, wantCode, contains, out, tail(errOut, 4000))
	}
}

// The rfc2136 and pdns providers as a user runs them: external-dns's flags on the zonekeeper command,
// through `zonekeeper plan` (exit 2, then 0), `--dry-run` (writes nothing) and `--once`.
func TestProvidersThroughTheCommandLine(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	e.createIngress(t, ingress("web", "default", nil, "web.example.com"), "192.0.2.80")

	t.Run("rfc2136", func(t *testing.T) {
		key := testbed.NewTSIGKey(t, "zonekeeper-key", "hmac-sha512")
		bind := testbed.StartBIND(t, testbed.BINDConfig{Keys: []testbed.TSIGKey{key}, Zones: []testbed.BINDZone{{
			Name: "example.com", UpdateKey: key.Name, TransferKey: key.Name,
		}}})
		host, port := splitAddr(t, bind.Addr)
		secretFile := t.TempDir() + "/tsig.secret"
		if err := os.WriteFile(secretFile, []byte(key.Secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		flags := []string{"--source=ingress", "--provider=rfc2136", "--rfc2136-host=" + host, fmt.Sprintf("--rfc2136-port=%d", port),
			"--rfc2136-zone=example.com", "--rfc2136-tsig-keyname=" + key.Name, "--rfc2136-tsig-secret-file=" + secretFile,
			"--rfc2136-tsig-secret-alg=hmac-sha512", "--rfc2136-tsig-axfr", "--txt-owner-id=e2e", "--policy=sync"}
		e.expectPlan(t, app.ExitHasChanges, "CREATE  web.example.com A 192.0.2.80", flags...)
		e.runOnce(t, append(flags, "--dry-run")...)
		if got, err := lookupA(bind.Addr, "web.example.com"); err != nil || len(got) != 0 {
			t.Fatalf("--dry-run wrote to BIND: %v, %v", got, err)
		}
		e.runOnce(t, flags...)
		if got, err := lookupA(bind.Addr, "web.example.com"); err != nil || strings.Join(got, ",") != "192.0.2.80" {
			t.Fatalf("BIND answers %v, %v", got, err)
		}
		e.expectPlan(t, app.ExitOK, "No changes", flags...)
	})
	t.Run("pdns", func(t *testing.T) {
		pdns := testbed.StartPowerDNS(t, "example.com")
		t.Setenv("EXTERNAL_DNS_PDNS_API_KEY", pdns.APIKey) // the key from the environment, as in a Secret
		flags := []string{"--source=ingress", "--provider=pdns", "--pdns-server=" + pdns.APIURL,
			"--domain-filter=example.com", "--txt-owner-id=e2e", "--policy=sync"}
		e.expectPlan(t, app.ExitHasChanges, "CREATE  web.example.com A 192.0.2.80", flags...)
		e.runOnce(t, append(flags, "--dry-run")...)
		if got, err := lookupA(pdns.Addr, "web.example.com"); err != nil || len(got) != 0 {
			t.Fatalf("--dry-run wrote to PowerDNS: %v, %v", got, err)
		}
		e.runOnce(t, flags...)
		if got, err := lookupA(pdns.Addr, "web.example.com"); err != nil || strings.Join(got, ",") != "192.0.2.80" {
			t.Fatalf("PowerDNS answers %v, %v", got, err)
		}
		e.expectPlan(t, app.ExitOK, "No changes", flags...)
	})
}

// --provider=aws as EKS users run it (the chart's EKS value set), against the Route 53 emulator
// through the real SDK: published by --once, planned as in sync afterwards.
func TestAWSThroughTheCommandLine(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	awsCredentials(t)
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone})
	e.createService(t, loadBalancer("web", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": "cccc." + awsZone,
	}), "203.0.113.30")
	flags := []string{"--source=service", "--source=ingress", "--provider=aws", "--domain-filter=" + awsZone,
		"--aws-zone-type=public", "--registry=txt", "--txt-owner-id=external-dns", "--policy=sync"}
	e.expectPlan(t, app.ExitHasChanges, "CREATE  cccc."+awsZone+" A 203.0.113.30", flags...)
	e.runOnce(t, flags...)
	var found []string
	for _, z := range srv.Dump() {
		for _, r := range z.Records {
			found = append(found, r.Type+" "+strings.TrimSuffix(r.Name, "."))
		}
	}
	got := strings.Join(found, ",")
	if !strings.Contains(got, "A cccc."+awsZone) || !strings.Contains(got, "TXT a-cccc."+awsZone) {
		t.Fatalf("Route 53 holds %s", got)
	}
	e.expectPlan(t, app.ExitOK, "No changes", flags...)
}

// The running command (metrics on, so the provider is instrumented) with an Ingress on an ALB: the
// aliases are written, and later resyncs find them in sync instead of rewriting them every time.
// --provider-cache-time=1s makes every resync list the zone again (by default a resync only probes a
// zone this small, and lists it every 20 s), so the aliases are read back from Route 53 each time.
func TestAWSAliasThroughTheRunningCommand(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	awsCredentials(t)
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone})
	alb := "k8s-default-web-3333333333.us-east-1.elb.amazonaws.com"
	e.createIngressWithHostname(t, ingress("web", "default", nil, "alb."+awsZone), alb)
	z := e.start(t, "--source=ingress", "--provider=aws", "--domain-filter="+awsZone, "--txt-owner-id=e2e",
		"--policy=sync", "--interval=1s", "--provider-cache-time=1s")
	want := map[string]string{
		"alb." + awsZone + " A":        "ALIAS " + alb + " Z35SXDOTRQ7X7K",
		"alb." + awsZone + " AAAA":     "ALIAS " + alb + " Z35SXDOTRQ7X7K",
		"a-alb." + awsZone + " TXT":    ownership("e2e", "ingress/default/web"),
		"aaaa-alb." + awsZone + " TXT": ownership("e2e", "ingress/default/web"),
	}
	st := &awsStack{srv: srv}
	st.expectSets(t, converge, awsZone, want)
	srv.ClearCalls()
	time.Sleep(3500 * time.Millisecond) // three resyncs
	if c := srv.Counters().Calls; c["ChangeResourceRecordSets"] != 0 || c["ListResourceRecordSets"] == 0 {
		t.Errorf("resyncs in steady state cost %v: want listings (--provider-cache-time=1s drops the cache at each resync) and no change", c)
	}
	st.expectSets(t, time.Second, awsZone, want)
	if !z.running() {
		t.Fatal("zonekeeper exited")
	}
}
