package pacing

import "sync"

// Pool hands out one Bucket per account key, so that every zone and view of a process that uses the
// same account (the same credentials at the same endpoint) draws from one budget. A provider kind makes
// one Pool when it starts and shares it between its instances.
type Pool struct {
	mu      sync.Mutex
	buckets map[string]*Bucket
	metrics Metrics
	name    string
}

// NewPool returns an empty pool for the provider called name; metrics may be nil.
func NewPool(name string, m Metrics) *Pool {
	return &Pool{buckets: map[string]*Bucket{}, metrics: m, name: name}
}

// Bucket returns the account's bucket, made at perSecond the first time the key is asked for.
func (p *Pool) Bucket(key string, perSecond float64) *Bucket {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.buckets[key]; ok {
		return b
	}
	return p.makeLocked(key, New(perSecond))
}

// ClassBucket returns the bucket of one operation class ("read", "write", "delete") of the account,
// for an API that limits each class apart (Azure Resource Manager), made at perSecond with burst the
// first time. Its rate is reported under the account "KEY CLASS".
func (p *Pool) ClassBucket(key, class string, perSecond float64, burst int) *Bucket {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := key + " " + class
	if b, ok := p.buckets[id]; ok {
		return b
	}
	return p.makeLocked(id, NewBurst(perSecond, burst))
}

// makeLocked registers b under key; callers hold p.mu.
func (p *Pool) makeLocked(key string, b *Bucket) *Bucket {
	if p.metrics != nil {
		b.OnRate(func(r float64) { p.metrics.APIRate(p.name, key, r) })
	}
	p.buckets[key] = b
	return b
}

// Metrics receives the budget's figures; internal/metrics implements it. Account keys must name no
// secret: they are label values.
type Metrics interface {
	// APICall counts one attempt of one API call (call is the operation, e.g.
	// "ListResourceRecordSets"; zone is empty for calls about no zone); throttled when the API
	// answered "too many requests".
	APICall(provider, zone, call string, throttled bool)
	// APIRate is an account's current rate in requests per second.
	APIRate(provider, account string, perSecond float64)
}
