package azure

import (
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
)

// Azure Resource Manager's documented request limits ("Understand how Azure Resource Manager throttles
// requests", the token bucket Microsoft moved subscriptions to in 2024): per subscription, service
// principal and operation type, reads 250 tokens refilled at 25 per second, writes 200 at 10, deletes
// 200 at 10. Each type is its own bucket, so the provider keeps three per account.
const (
	ReadsPerSecond   = 25
	ReadBurst        = 250
	WritesPerSecond  = 10
	WriteBurst       = 200
	DeletesPerSecond = 10
	DeleteBurst      = 200
)

// Rates are the starting rates and bursts of an account's three buckets; zero fields take ARM's
// documented defaults.
type Rates struct {
	ReadsPerSecond, WritesPerSecond, DeletesPerSecond float64
	ReadBurst, WriteBurst, DeleteBurst                int
}

func (r Rates) withDefaults() Rates {
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&r.ReadsPerSecond, ReadsPerSecond)
	def(&r.WritesPerSecond, WritesPerSecond)
	def(&r.DeletesPerSecond, DeletesPerSecond)
	defInt(&r.ReadBurst, ReadBurst)
	defInt(&r.WriteBurst, WriteBurst)
	defInt(&r.DeleteBurst, DeleteBurst)
	return r
}

// budget is the request budget of one account (subscription, principal, tenant and endpoint): a read,
// a write and a delete bucket of one pacing.Pool. It is an azcore per-retry policy, so every attempt
// azcore's retry policy makes (a retried 429 too) waits for a token and is counted in the metrics;
// a 429 halves the class's rate, empties its bucket and pauses the class for the Retry-After. azcore
// then sleeps the same Retry-After before its retry, which therefore finds the pause over: the two
// waits overlap instead of adding up.
type budget struct {
	provider         string
	read, write, del *pacing.Bucket
	metrics          pacing.Metrics
	now              func() time.Time
}

func newBudget(provider string, pool *pacing.Pool, key string, r Rates, m pacing.Metrics) *budget {
	r = r.withDefaults()
	return &budget{provider: provider, metrics: m, now: time.Now,
		read:  pool.ClassBucket(key, "read", r.ReadsPerSecond, r.ReadBurst),
		write: pool.ClassBucket(key, "write", r.WritesPerSecond, r.WriteBurst),
		del:   pool.ClassBucket(key, "delete", r.DeletesPerSecond, r.DeleteBurst)}
}

// bucketOf is the bucket an HTTP method draws from, as ARM counts it: GET and HEAD read, DELETE
// deletes, everything else writes.
func (b *budget) bucketOf(method string) *pacing.Bucket {
	switch method {
	case http.MethodGet, http.MethodHead:
		return b.read
	case http.MethodDelete:
		return b.del
	}
	return b.write
}

// Do implements policy.Policy for one attempt.
func (b *budget) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	bk := b.bucketOf(raw.Method)
	if err := bk.Wait(raw.Context()); err != nil {
		return nil, err
	}
	res, err := req.Next()
	throttled := err == nil && res.StatusCode == http.StatusTooManyRequests
	if b.metrics != nil {
		zone, call := callOf(raw)
		b.metrics.APICall(b.provider, zone, call, throttled)
	}
	switch {
	case throttled:
		bk.Throttled(pacing.RetryAfter(res.Header.Get("Retry-After"), b.now()))
	case err == nil:
		bk.Succeeded()
	}
	return res, err
}

// callOf names a request's zone (empty for calls about no zone) and operation by the swagger's
// operationId, from its method and path (…/dnsZones[/{zone}[/all|/{type}/{name}]] or
// …/privateDnsZones[/{zone}[/ALL|/{type}/{name}]]).
func callOf(req *http.Request) (zone, call string) {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	i, private := -1, false
	for j, s := range segs {
		switch strings.ToLower(s) {
		case "dnszones":
			i = j
		case "privatednszones":
			i, private = j, true
		}
	}
	zones := "Zones_"
	if private {
		zones = "PrivateZones_"
	}
	if i < 0 {
		return "", req.Method + " " + req.URL.Path
	}
	rest := segs[i+1:]
	switch {
	case len(rest) == 0:
		if segs[0] == "subscriptions" && len(segs) > 2 && strings.EqualFold(segs[2], "resourceGroups") {
			return "", zones + "ListByResourceGroup"
		}
		return "", zones + "List"
	case len(rest) == 1:
		return rest[0], zones + map[string]string{http.MethodGet: "Get", http.MethodPut: "CreateOrUpdate", http.MethodPatch: "Update", http.MethodDelete: "Delete"}[req.Method]
	case len(rest) == 2 && strings.EqualFold(rest[1], "all"):
		if private {
			return rest[0], "RecordSets_List"
		}
		return rest[0], "RecordSets_ListAllByDnsZone"
	case len(rest) == 2 && strings.EqualFold(rest[1], "recordsets"):
		return rest[0], "RecordSets_ListByDnsZone"
	case len(rest) == 2:
		return rest[0], "RecordSets_ListByType"
	}
	return rest[0], "RecordSets_" + map[string]string{http.MethodGet: "Get", http.MethodPut: "CreateOrUpdate", http.MethodPatch: "Update", http.MethodDelete: "Delete"}[req.Method]
}

// accountKey names the budget's account: ARM counts per subscription and principal (tenant and
// endpoint keep two clouds or tenants apart). It names no secret: it is a metric label.
func accountKey(f FileConfig) string {
	principal := f.ClientID
	if principal == "" || strings.EqualFold(principal, "msi") {
		principal = f.UserAssignedIdentityID
	}
	if principal == "" {
		principal = "managed-identity"
	}
	endpoint := f.ResourceManagerEndpoint
	if endpoint == "" {
		endpoint = f.Cloud
	}
	return "subscription=" + f.SubscriptionID + " principal=" + principal + " tenant=" + f.TenantID + " endpoint=" + endpoint
}
