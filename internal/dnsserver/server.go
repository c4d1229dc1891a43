// Package dnsserver is zonekeeper's own authoritative DNS server. It answers for a fixed set of zones
// over UDP and TCP, with one version of the zones per view (selected by the client's subnet), and is
// never a recursive resolver: a name outside its zones is REFUSED.
//
// The records of each view live in an immutable snapshot behind an atomic pointer. Queries load the
// pointer and never lock or wait; a writer (Update) builds the next snapshot beside the current one,
// sharing every name it did not touch, and swaps it in whole, so a query sees either all of a batch or
// none of it.
package dnsserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// Server is the authoritative server. Create it with New, start it with Start, stop it with Close.
type Server struct {
	cfg   Config
	log   *slog.Logger
	views *viewTable
	// zoneNames are the served zones, longest first.
	zoneNames []string

	notify *notifier

	mu      sync.Mutex
	servers []*dns.Server
	addrs   []string
}

// New checks the configuration, reads the zone files and builds the (empty) views. It does not listen
// yet. log may be nil.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("dns server config: %w", err)
	}
	s := &Server{cfg: c, log: log, views: newViewTable(&c)}
	s.notify = newNotifier(c.Notify, c.Zones, c.TSIGKeys, c.TSIGAlgorithms, log)
	s.zoneNames = sortedZones(c.Zones)
	serial := uint32(time.Now().Unix())

	// Zone files are read once; records for all views go to every view.
	perView := map[string][]staticRecord{}
	for _, f := range c.ZoneFiles {
		recs, err := readZoneFile(f, log)
		if err != nil {
			return nil, err
		}
		if f.View == "" {
			for name := range s.views.byName {
				perView[name] = append(perView[name], recs...)
			}
		} else {
			perView[f.View] = append(perView[f.View], recs...)
		}
	}
	for name, v := range s.views.byName {
		names := newNameIndex().edit()
		base := &snapshot{serial: serial}
		for _, z := range s.zoneNames {
			base.zones = append(base.zones, newZone(&c, z, serial))
			names.set(&node{name: z})
		}
		base.names = names.done()
		tx := &Txn{base: base, touched: map[string]*node{}}
		if err := loadStatic(tx, perView[name], log); err != nil {
			return nil, fmt.Errorf("view %s: %w", name, err)
		}
		next := tx.commit()
		if next == nil {
			next = base
		}
		next.serial = serial // the zone files are the starting state, not a change
		for i, z := range next.zones {
			next.zones[i] = z.withSerial(serial)
		}
		v.snap.Store(next)
	}
	return s, nil
}

// sortedZones orders zones longest first, so the first suffix match is the closest enclosing zone.
func sortedZones(zones []string) []string {
	out := append([]string(nil), zones...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Views returns the names of the views.
func (s *Server) Views() []string {
	var out []string
	for _, vc := range s.cfg.Views {
		out = append(out, vc.Name)
	}
	return out
}

// Zones returns the served zones (fully qualified, lower case).
func (s *Server) Zones() []string { return append([]string(nil), s.cfg.Zones...) }

// DefaultTTL is the TTL the server suggests for records written without one.
func (s *Server) DefaultTTL() uint32 { return s.cfg.DefaultTTL }

// Update runs fn with a batch of changes to the dynamic records of a view and makes everything fn
// applied visible at once. Writers to the same view are serialised; queries never wait for them.
func (s *Server) Update(viewName string, fn func(tx *Txn)) error {
	v, ok := s.views.byName[viewName]
	if !ok {
		return fmt.Errorf("dns server: unknown view %q", viewName)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	tx := &Txn{base: v.snap.Load(), touched: map[string]*node{}}
	fn(tx)
	if next := tx.commit(); next != nil {
		v.snap.Store(next)
		s.notify.changed()
	}
	return nil
}

// Serial returns the current SOA serial of a view.
func (s *Server) Serial(viewName string) (uint32, error) {
	v, ok := s.views.byName[viewName]
	if !ok {
		return 0, fmt.Errorf("dns server: unknown view %q", viewName)
	}
	return v.snap.Load().serial, nil
}

// Start listens on every configured address (UDP and TCP on the same port) and serves in the
// background until Close.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.servers) > 0 {
		return errors.New("dns server: already started")
	}
	for _, addr := range s.cfg.Listen {
		pc, l, err := listenPair(addr)
		if err != nil {
			s.closeLocked()
			return fmt.Errorf("dns server: listen %s: %w", addr, err)
		}
		s.addrs = append(s.addrs, l.Addr().String())
		udp := &dns.Server{PacketConn: pc, Handler: s, UDPSize: dns.MaxMsgSize, TsigSecret: s.cfg.TSIGKeys, MsgAcceptFunc: acceptQuery}
		tcp := &dns.Server{Listener: l, Handler: s, TsigSecret: s.cfg.TSIGKeys, MsgAcceptFunc: acceptQuery,
			ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, IdleTimeout: func() time.Duration { return 10 * time.Second }}
		for _, srv := range []*dns.Server{udp, tcp} {
			started := make(chan struct{})
			failed := make(chan error, 1)
			srv.NotifyStartedFunc = func() { close(started) }
			s.servers = append(s.servers, srv)
			go func() {
				if err := srv.ActivateAndServe(); err != nil {
					s.log.Error("DNS server stopped", "addr", addr, "err", err)
					failed <- err
				}
			}()
			select {
			case <-started:
			case err := <-failed:
				s.closeLocked()
				return fmt.Errorf("dns server: serve %s: %w", addr, err)
			}
		}
		s.log.Info("Serving DNS", "addr", l.Addr().String(), "zones", s.cfg.Zones, "views", s.Views())
	}
	s.notify.start()
	return nil
}

// listenPair binds UDP and TCP on the same address; with port 0 it retries until both get the same
// free port.
func listenPair(addr string) (net.PacketConn, net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, err
	}
	for range 20 {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, nil, err
		}
		p := port
		if p == "0" {
			p = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		}
		pc, err := net.ListenPacket("udp", net.JoinHostPort(host, p))
		if err == nil {
			return pc, l, nil
		}
		l.Close()
		if port != "0" {
			return nil, nil, err
		}
	}
	return nil, nil, errors.New("no port free for both UDP and TCP")
}

// Addrs returns the bound addresses (host:port), one per configured listen address.
func (s *Server) Addrs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.addrs...)
}

// Close stops serving.
func (s *Server) Close() error {
	s.notify.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeLocked()
}

func (s *Server) closeLocked() error {
	var errs []error
	for _, srv := range s.servers {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, srv.ShutdownContext(ctx))
		cancel()
	}
	s.servers, s.addrs = nil, nil
	return errors.Join(errs...)
}

// acceptQuery is miekg/dns's default filter with NOTIFY refused as not implemented: the server is a
// primary only.
func acceptQuery(dh dns.Header) dns.MsgAcceptAction {
	if int(dh.Bits>>11)&0xF == dns.OpcodeNotify {
		return dns.MsgRejectNotImplemented
	}
	return dns.DefaultMsgAcceptFunc(dh)
}
