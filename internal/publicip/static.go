package publicip

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
)

// StaticSource returns a fixed address (--public-ip), which Set may replace while running.
type StaticSource struct {
	mu    sync.Mutex
	addrs []netip.Addr
}

// NewStaticSource returns a source answering addrs (at most one IPv4 and one IPv6 address).
func NewStaticSource(addrs ...netip.Addr) (*StaticSource, error) {
	s := &StaticSource{}
	return s, s.Set(addrs...)
}

// Set replaces the addresses.
func (s *StaticSource) Set(addrs ...netip.Addr) error {
	if err := checkStatic(addrs); err != nil {
		return err
	}
	s.mu.Lock()
	s.addrs = append([]netip.Addr(nil), addrs...)
	s.mu.Unlock()
	return nil
}

// Name implements Source.
func (s *StaticSource) Name() string { return "static" }

// Lookup implements Source.
func (s *StaticSource) Lookup(context.Context) ([]netip.Addr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.addrs) == 0 {
		return nil, errors.New("no static address set")
	}
	return append([]netip.Addr(nil), s.addrs...), nil
}

func checkStatic(addrs []netip.Addr) error {
	var v4, v6 int
	for _, a := range addrs {
		switch {
		case !a.IsValid():
			return errors.New("--public-ip: an invalid address")
		case a.Unmap().Is4():
			v4++
		default:
			v6++
		}
	}
	if v4 > 1 || v6 > 1 {
		return fmt.Errorf("--public-ip: at most one IPv4 and one IPv6 address, got %d and %d", v4, v6)
	}
	return nil
}

// ParseStatic parses the values of --public-ip (each an IPv4 or IPv6 address; a value may also hold
// both, separated by a comma) into addresses for Config.Static.
func ParseStatic(values []string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, v := range values {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("--public-ip=%q: not an IP address", f)
			}
			if a.Zone() != "" {
				return nil, fmt.Errorf("--public-ip=%q: an address with a zone cannot be published", f)
			}
			out = append(out, a.Unmap())
		}
	}
	if err := checkStatic(out); err != nil {
		return nil, err
	}
	return out, nil
}
