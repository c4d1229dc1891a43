package publicip

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// Discoverer keeps the public address current: one lookup round on Start, then one every
// RefreshInterval (and at once after SetStatic). A round tries the sources in priority order and takes
// the first that yields an acceptable address; when all fail, the last good address stays in force.
type Discoverer struct {
	cfg     Config
	sources []Source
	static  *StaticSource
	log     *slog.Logger
	metrics Metrics
	now     func() time.Time

	// round serialises lookup rounds (the refresh loop and Refresh/SetStatic callers).
	round sync.Mutex
	// failing holds each failing source's last reason, so a persistent failure is logged at Warn once
	// and then at Debug; it is guarded by round.
	failing map[string]string

	mu      sync.Mutex
	current Address
	known   bool
	subs    []func(Address)
	started bool

	kick chan struct{}
	done chan struct{}
}

// New checks the configuration and builds the sources. It does no lookup.
func New(cfg Config) (*Discoverer, error) {
	sources, static, err := cfg.sources()
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		return nil, errors.New("no public address source configured")
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = DefaultRefreshInterval
	}
	if cfg.LookupTimeout <= 0 {
		cfg.LookupTimeout = DefaultLookupTimeout
	}
	d := &Discoverer{
		cfg:     cfg,
		sources: sources,
		static:  static,
		log:     cfg.Logger,
		metrics: cfg.Metrics,
		now:     time.Now,
		failing: map[string]string{},
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if d.log == nil {
		d.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if d.metrics == nil {
		d.metrics = noMetrics{}
	}
	return d, nil
}

// Sources returns the names of the sources in priority order.
func (d *Discoverer) Sources() []string {
	out := make([]string, len(d.sources))
	for i, s := range d.sources {
		out[i] = s.Name()
	}
	return out
}

// Start runs the first lookup round (so Current has an answer when Start returns, unless every source
// failed) and then refreshes in a goroutine until ctx ends; Done is closed when it has stopped.
// Calling Start again does nothing.
func (d *Discoverer) Start(ctx context.Context) {
	d.mu.Lock()
	if d.started {
		d.mu.Unlock()
		return
	}
	d.started = true
	d.mu.Unlock()

	d.Refresh(ctx)
	go d.loop(ctx)
}

// Done is closed when the refresh goroutine started by Start has returned.
func (d *Discoverer) Done() <-chan struct{} { return d.done }

func (d *Discoverer) loop(ctx context.Context) {
	defer close(d.done)
	defer d.closeSources()
	t := time.NewTicker(d.cfg.RefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.kick:
		}
		d.Refresh(ctx)
	}
}

// closeSources releases what sources hold between lookups (an HTTP client's idle connections).
func (d *Discoverer) closeSources() {
	for _, s := range d.sources {
		if c, ok := s.(interface{ Close() }); ok {
			c.Close()
		}
	}
}

// Current returns the address in force; false until a lookup has succeeded.
func (d *Discoverer) Current() (Address, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.current, d.known
}

// Subscribe registers fn to be called, from the refresh goroutine, each time the address (V4 or V6)
// changes — not on a refresh that finds the same address, and not when only the source changes. fn
// must not block for long: the next round waits for it.
func (d *Discoverer) Subscribe(fn func(Address)) {
	d.mu.Lock()
	d.subs = append(d.subs, fn)
	d.mu.Unlock()
}

// SetStatic replaces the static address (the --public-ip source) and asks the refresh goroutine for a
// round at once. It fails when no static source is configured.
func (d *Discoverer) SetStatic(addrs ...netip.Addr) error {
	if d.static == nil {
		return errors.New("no static public address is configured")
	}
	if err := d.static.Set(addrs...); err != nil {
		return err
	}
	select {
	case d.kick <- struct{}{}:
	default: // a round is already due
	}
	return nil
}

// Refresh runs one lookup round now and returns the address in force afterwards.
func (d *Discoverer) Refresh(ctx context.Context) (Address, bool) {
	d.round.Lock()
	defer d.round.Unlock()
	for _, s := range d.sources {
		if ctx.Err() != nil {
			break // shutting down is not a failed lookup
		}
		addr, err := d.lookup(ctx, s)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			d.failed(s.Name(), err)
			continue
		}
		d.recovered(s.Name())
		d.adopt(addr)
		break
	}
	return d.Current()
}

// lookup asks one source and checks what it answers: the first acceptable address of each family is
// kept; rejected candidates are logged when another one is kept, and are the error when none is.
func (d *Discoverer) lookup(ctx context.Context, s Source) (Address, error) {
	lctx, cancel := context.WithTimeout(ctx, d.cfg.LookupTimeout)
	defer cancel()
	addrs, err := s.Lookup(lctx)
	if err != nil {
		return Address{}, err
	}
	a := Address{Source: s.Name()}
	var rejected []string
	for _, x := range addrs {
		x = x.Unmap()
		if err := checkAddress(x, d.cfg.AllowPrivate); err != nil {
			rejected = append(rejected, err.Error())
			continue
		}
		switch {
		case x.Is4() && !a.V4.IsValid():
			a.V4 = x
		case x.Is6() && !a.V6.IsValid():
			a.V6 = x
		}
	}
	if !a.V4.IsValid() && !a.V6.IsValid() {
		if len(rejected) == 0 {
			return Address{}, errors.New("the source returned no address")
		}
		return Address{}, errors.New("rejected: " + strings.Join(rejected, "; "))
	}
	for _, r := range rejected {
		d.log.Warn("Public address candidate rejected", "source", s.Name(), "reason", r, "using", a.String())
	}
	return a, nil
}

// failed logs and counts a failed lookup. The same reason from the same source again is logged at
// Debug, so a source that stays broken does not flood the log; the counter still counts every one.
func (d *Discoverer) failed(source string, err error) {
	d.metrics.LookupFailed(source)
	reason := err.Error()
	cur, known := d.Current()
	keeping := "none"
	if known {
		keeping = cur.String() + " from " + cur.Source
	}
	level := slog.LevelWarn
	if d.failing[source] == reason {
		level = slog.LevelDebug
	}
	d.failing[source] = reason
	d.log.Log(context.Background(), level, "Public address lookup failed", "source", source, "reason", reason, "keeping", keeping)
}

func (d *Discoverer) recovered(source string) {
	if _, ok := d.failing[source]; ok {
		delete(d.failing, source)
		d.log.Info("Public address lookup works again", "source", source)
	}
}

// adopt makes a the address in force, telling the log and metrics when the address or its source
// changed and the subscribers when the address changed.
func (d *Discoverer) adopt(a Address) {
	d.mu.Lock()
	old, known := d.current, d.known
	addrChanged := !known || !old.sameAddrs(a)
	if addrChanged {
		a.Since = d.now()
	} else {
		a.Since = old.Since
	}
	d.current, d.known = a, true
	subs := slices.Clone(d.subs)
	d.mu.Unlock()

	if !addrChanged && old.Source == a.Source {
		return
	}
	attrs := []any{"address", a.String(), "source", a.Source}
	if known {
		attrs = append(attrs, "previous", old.String(), "previous_source", old.Source)
	}
	d.log.Info("Public address in force", attrs...)
	d.metrics.AddressInForce(a)
	if addrChanged {
		for _, fn := range subs {
			fn(a)
		}
	}
}
