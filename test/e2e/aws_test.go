package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	awsprovider "github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Route 53 end to end: Services and Ingresses on a real kube-apiserver, the sources, the TXT registry,
// the aws provider through the real aws-sdk-go-v2, and the controller, built as internal/app will build
// them, against the Route 53 emulator on loopback. The flags these tests stand for:
//
//	--provider=aws --registry=txt --txt-owner-id=e2e --policy=sync --domain-filter=externaldns.test
//	(AWS_ENDPOINT_URL_ROUTE_53 / AWS_ENDPOINT_URL_STS pointing at the emulator)

const awsZone = "externaldns.test"

// awsStack is one running pipeline.
type awsStack struct {
	srv      *route53emu.Server
	prov     *awsprovider.Provider
	ctrl     *controller.Controller
	logs     *testbed.LogBuffer
	rejected *rejections
	done     chan error
}

// rejections records what the controller tells the objects' owners.
type rejections struct {
	mu  sync.Mutex
	got []string
}

func (r *rejections) Published(string, []*endpoint.Endpoint) {}
func (r *rejections) Rejected(resource string, rec *endpoint.Endpoint, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, resource+": "+err.Error())
}
func (r *rejections) Conflict(string, string)       {}
func (r *rejections) InvalidInput(endpoint.Problem) {}
func (r *rejections) all() string                   { r.mu.Lock(); defer r.mu.Unlock(); return strings.Join(r.got, "\n") }

// awsCredentials gives the SDK static keys and nothing else from the environment.
func awsCredentials(t testing.TB) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDE2E")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "e2e-secret-never-logged")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
	for _, k := range []string{"AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ENDPOINT_URL"} {
		t.Setenv(k, "")
	}
}

func startEmulator(t testing.TB, opts route53emu.Options, zones ...route53emu.SeedZone) *route53emu.Server {
	t.Helper()
	srv := route53emu.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	if _, err := srv.Seed(route53emu.Seed{Zones: zones}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ENDPOINT_URL_ROUTE_53", hs.URL)
	t.Setenv("AWS_ENDPOINT_URL_STS", hs.URL)
	return srv
}

// startAWS runs the pipeline over Services and Ingresses.
func startAWS(t *testing.T, e *env, srv *route53emu.Server, tcfg txt.Config, pcfg awsprovider.Config, domains ...string) *awsStack {
	t.Helper()
	return startAWSWith(t, e, srv, tcfg, pcfg, nil, domains...)
}

// startAWSWith is startAWS with the controller's settings adjusted by settings (nil: as startAWS).
func startAWSWith(t *testing.T, e *env, srv *route53emu.Server, tcfg txt.Config, pcfg awsprovider.Config, settings func(*controller.Settings), domains ...string) *awsStack {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st := &awsStack{srv: srv, logs: &testbed.LogBuffer{}, rejected: &rejections{}, done: make(chan error, 1)}
	log := slog.New(slog.NewTextHandler(st.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc, err := source.NewService(ctx, e.kube.Kube(t), source.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ing, err := source.NewIngress(ctx, e.kube.Kube(t), source.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(domains) == 0 {
		domains = []string{awsZone}
	}
	pcfg.DomainFilter = domains
	pcfg.EvaluateTargetHealth = true
	pcfg.Logger = log
	if pcfg.RetryMaxBackoff == 0 {
		pcfg.RetryMaxBackoff = 50 * time.Millisecond
	}
	st.prov, err = awsprovider.New(ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	tcfg.OwnerID = "e2e"
	tcfg.CacheInterval = time.Hour
	reg, err := txt.New(st.prov, tcfg)
	if err != nil {
		t.Fatal(err)
	}
	filter, err := plan.NewDomainFilter(domains, nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	cs := controller.Settings{
		OwnerID: "e2e", Policy: plan.PolicySync, DomainFilter: filter,
		Interval: time.Hour, Debounce: 100 * time.Millisecond, Notifier: st.rejected,
	}
	if settings != nil {
		settings(&cs)
	}
	st.ctrl = controller.New(source.NewMulti(svc, ing), reg, cs, log)
	go func() { st.done <- st.ctrl.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-st.done
		if t.Failed() {
			t.Logf("controller log:\n%s", tail(st.logs.String(), 8000))
		}
		checkNoSecretsLogged(t, "zonekeeper", st.logs.String(), configuredSecrets(nil))
	})
	return st
}

// sets returns the zone's record sets (SOA and NS left out) as "name type [setid] → values".
func (st *awsStack) sets(zone string) map[string]string {
	out := map[string]string{}
	for _, z := range st.srv.Dump() {
		if strings.TrimSuffix(z.Name, ".") != zone {
			continue
		}
		for _, rs := range z.Records {
			if rs.Type == "SOA" || rs.Type == "NS" {
				continue
			}
			key := strings.TrimSuffix(rs.Name, ".") + " " + rs.Type
			if rs.SetIdentifier != nil {
				key += " " + *rs.SetIdentifier
			}
			var vals []string
			if rs.AliasTarget != nil {
				vals = append(vals, "ALIAS "+strings.TrimSuffix(rs.AliasTarget.DNSName, ".")+" "+rs.AliasTarget.HostedZoneID)
			} else if rs.ResourceRecords != nil {
				for _, v := range rs.ResourceRecords.Items {
					vals = append(vals, v.Value)
				}
			}
			sort.Strings(vals)
			out[key] = strings.Join(vals, ",")
		}
	}
	return out
}

// expectSets waits until the zone holds exactly want.
func (st *awsStack) expectSets(t *testing.T, timeout time.Duration, zone string, want map[string]string) {
	t.Helper()
	testbed.Eventually(t, timeout, "zone "+zone, func() error {
		got := st.sets(zone)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("got %v\nwant %v", got, want)
		}
		return nil
	})
}

func (st *awsStack) running() bool {
	select {
	case err := <-st.done:
		st.done <- err
		return false
	default:
		return true
	}
}

func annotated(svc *corev1.Service, kv ...string) *corev1.Service {
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		svc.Annotations["external-dns.alpha.kubernetes.io/"+kv[i]] = kv[i+1]
	}
	return svc
}

// A LoadBalancer Service with a hostname annotation gets its A record and ownership TXT; deleting it
// under sync deletes exactly those, and the records that were in the zone before stay.
func TestAWSServicePublishedThenDeleted(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone, Records: []route53emu.RecordSet{
		{Name: "keep." + awsZone, Type: "A", TTL: route53emu.NumberOf(300), ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: "192.0.2.50"}}}},
		{Name: "keep." + awsZone, Type: "TXT", TTL: route53emu.NumberOf(300), ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: `"v=spf1 -all"`}}}},
	}})
	svc := e.createService(t, annotated(loadBalancer("cccc", "default", nil), "hostname", "cccc."+awsZone), "10.20.0.1")
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{})
	before := map[string]string{"keep." + awsZone + " A": "192.0.2.50", "keep." + awsZone + " TXT": `"v=spf1 -all"`}
	published := map[string]string{
		"cccc." + awsZone + " A":     "10.20.0.1",
		"a-cccc." + awsZone + " TXT": ownership("e2e", "service/default/cccc"),
	}
	for k, v := range before {
		published[k] = v
	}
	st.expectSets(t, converge, awsZone, published)

	if err := e.client.CoreV1().Services("default").Delete(context.Background(), svc.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	st.expectSets(t, 5*time.Second, awsZone, before)
}

// A weighted set on a name that holds a simple one: Route 53's refusal reaches the Service's owner,
// and the other Service of the same sync is published.
func TestAWSWeightedBesideSimpleRejected(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone, Records: []route53emu.RecordSet{
		{Name: "bbbb." + awsZone, Type: "A", TTL: route53emu.NumberOf(300), ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: "192.0.2.7"}}}},
	}})
	e.createService(t, annotated(loadBalancer("nginx", "default", nil), "hostname", "bbbb."+awsZone, "set-identifier", "nginx", "aws-weight", "100"), "10.20.0.2")
	e.createService(t, annotated(loadBalancer("other", "default", nil), "hostname", "dddd."+awsZone), "10.20.0.3")
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{})
	st.expectSets(t, converge, awsZone, map[string]string{
		"bbbb." + awsZone + " A":     "192.0.2.7",
		"dddd." + awsZone + " A":     "10.20.0.3",
		"a-dddd." + awsZone + " TXT": ownership("e2e", "service/default/other"),
	})
	want := "RRSet with DNS name bbbb.externaldns.test., type A, SetIdentifier nginx cannot be created as a non-weighted set exists with the same name and type"
	testbed.Eventually(t, 5*time.Second, "rejection reported on the Service", func() error {
		for _, line := range strings.Split(st.rejected.all(), "\n") {
			if strings.HasPrefix(line, "service/default/nginx: ") && strings.Contains(line, want) {
				return nil
			}
		}
		return fmt.Errorf("reported: %q", st.rejected.all())
	})
	if !strings.Contains(st.logs.String(), "resource=service/default/nginx") {
		t.Fatal("the log line of the rejection does not name the Service")
	}
}

// --txt-prefix=prefix_ with a target annotation: a CNAME and a prefix_ TXT, never a TXT beside the CNAME.
func TestAWSTargetAnnotationWithTXTPrefix(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone})
	e.createIngress(t, ingress("web", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": "www." + awsZone,
		"external-dns.alpha.kubernetes.io/target":   "edge.example.net",
	}), "10.20.0.4")
	st := startAWS(t, e, srv, txt.Config{Prefix: "prefix_"}, awsprovider.Config{})
	st.expectSets(t, converge, awsZone, map[string]string{
		"www." + awsZone + " CNAME":            "edge.example.net",
		"prefix_cname-www." + awsZone + " TXT": ownership("e2e", "ingress/default/web"),
	})
}

// An Ingress on an ALB: A and AAAA aliases with the ALB's canonical zone; when the load balancer is
// recreated under a new hostname, the aliases follow in one sync (an event, not the resync).
func TestAWSIngressALBAliasFollows(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone})
	alb1 := "k8s-default-web-1111111111.us-east-1.elb.amazonaws.com"
	alb2 := "k8s-default-web-2222222222.us-east-1.elb.amazonaws.com"
	ing := e.createIngressWithHostname(t, ingress("web", "default", nil, "app."+awsZone), alb1)
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{})
	aliases := func(lb string) map[string]string {
		return map[string]string{
			"app." + awsZone + " A":        "ALIAS " + lb + " Z35SXDOTRQ7X7K",
			"app." + awsZone + " AAAA":     "ALIAS " + lb + " Z35SXDOTRQ7X7K",
			"a-app." + awsZone + " TXT":    ownership("e2e", "ingress/default/web"),
			"aaaa-app." + awsZone + " TXT": ownership("e2e", "ingress/default/web"),
		}
	}
	st.expectSets(t, converge, awsZone, aliases(alb1))
	st.srv.ClearCalls()
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: alb2}}
	if _, err := e.client.NetworkingV1().Ingresses("default").UpdateStatus(context.Background(), ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	st.expectSets(t, 5*time.Second, awsZone, aliases(alb2))
	if c := st.srv.Counters().Calls; c["ChangeResourceRecordSets"] != 1 || c["ListResourceRecordSets"] != 0 || c["ListHostedZones"] != 0 {
		t.Fatalf("the move cost %v, want one ChangeResourceRecordSets and no listing", c)
	}
}

func (e *env) createIngressWithHostname(t *testing.T, ing *networkingv1.Ingress, hostname string) *networkingv1.Ingress {
	t.Helper()
	created := e.createIngress(t, ing, "")
	created.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: hostname}}
	updated, err := e.client.NetworkingV1().Ingresses(ing.Namespace).UpdateStatus(context.Background(), created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return updated
}

// IRSA: no keys, AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE set, the STS endpoint pointing at the
// emulator: the provider authenticates through AssumeRoleWithWebIdentity and syncs.
func TestAWSIRSA(t *testing.T) {
	awsCredentials(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{STS: route53emu.STSOptions{AllowedSubjects: []string{"system:serviceaccount:kube-system:zonekeeper"}}},
		route53emu.SeedZone{Name: awsZone})
	enc := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
	token := filepath.Join(t.TempDir(), "token")
	jwt := enc(map[string]string{"alg": "RS256"}) + "." + enc(map[string]any{"aud": "sts.amazonaws.com", "sub": "system:serviceaccount:kube-system:zonekeeper"}) + ".c2ln"
	if err := os.WriteFile(token, []byte(jwt), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::210987654321:role/zonekeeper")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", token)
	e.createService(t, annotated(loadBalancer("irsa", "default", nil), "hostname", "irsa."+awsZone), "10.20.0.5")
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{})
	st.expectSets(t, converge, awsZone, map[string]string{
		"irsa." + awsZone + " A":     "10.20.0.5",
		"a-irsa." + awsZone + " TXT": ownership("e2e", "service/default/irsa"),
	})
	if n := srv.Counters().Calls["sts:AssumeRoleWithWebIdentity"]; n == 0 {
		t.Fatal("no AssumeRoleWithWebIdentity call")
	}
	for _, c := range srv.Calls() {
		if !strings.HasPrefix(c.Operation, "sts:") && !strings.HasPrefix(c.AccessKeyID, "ASIA") {
			t.Fatalf("%s was signed with %q, not the web identity session", c.Operation, c.AccessKeyID)
		}
	}
}

// 5,000 hostnames in two zones under Route 53's quota of 5 requests/s, with a client allowed more so
// that it is throttled: the sync converges, the controller keeps running, and every hostname has
// exactly its record and its TXT.
func TestAWSFiveThousandHostnamesThrottled(t *testing.T) {
	if testing.Short() {
		t.Skip("5,000 hostnames")
	}
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	zones := []string{"one.test", "two.test"}
	srv := startEmulator(t, route53emu.Options{RateLimit: 5}, route53emu.SeedZone{Name: zones[0]}, route53emu.SeedZone{Name: zones[1]})
	const perService, services = 100, 50
	for s := range services {
		zone := zones[s%2]
		hosts := make([]string, perService)
		for h := range hosts {
			hosts[h] = fmt.Sprintf("h%d-%d.%s", s, h, zone)
		}
		e.createService(t, annotated(loadBalancer(fmt.Sprintf("s%d", s), "default", nil), "hostname", strings.Join(hosts, ",")), fmt.Sprintf("10.30.%d.1", s))
	}
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{RequestsPerSecond: 10, BatchChangeInterval: 0}, zones...)
	testbed.Eventually(t, 3*time.Minute, "5,000 hostnames published", func() error {
		n := len(st.sets(zones[0])) + len(st.sets(zones[1]))
		if n != 2*services*perService {
			return fmt.Errorf("%d record sets", n)
		}
		return nil
	})
	for s := range services {
		zone := zones[s%2]
		sets := st.sets(zone)
		for h := range perService {
			name := fmt.Sprintf("h%d-%d.%s", s, h, zone)
			if got := sets[name+" A"]; got != fmt.Sprintf("10.30.%d.1", s) {
				t.Fatalf("%s A = %q", name, got)
			}
			if got := sets["a-"+name+" TXT"]; got != ownership("e2e", fmt.Sprintf("service/default/s%d", s)) {
				t.Fatalf("a-%s TXT = %q", name, got)
			}
		}
	}
	if !st.running() {
		t.Fatal("the controller stopped")
	}
	// The test is about throttling: it proves nothing unless the emulator did throttle, and the client
	// saw it.
	throttled := 0
	for key, n := range srv.Counters().Errors {
		if strings.HasSuffix(key, ":Throttling") {
			throttled += n
		}
	}
	if throttled == 0 {
		t.Errorf("the emulator never answered Throttling (errors %v): the test did not test throttling", srv.Counters().Errors)
	}
	if st.prov.Limiter().Throttles() == 0 {
		t.Errorf("the emulator throttled %d requests, but the client's limiter counted none", throttled)
	}
	t.Logf("calls %v, errors %v, client rate now %.1f/s after %d throttles", srv.Counters().Calls, srv.Counters().Errors, st.prov.Limiter().Rate(), st.prov.Limiter().Throttles())
}
