package emuproxy

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Proxy is a loopback HTTP CONNECT proxy (for HTTPS_PROXY) that opens each tunnel to the local
// listener its host:port is routed to, and refuses every other host: nothing leaves the machine.
type Proxy struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex
	routes  map[string]string // "host:port" → local "ip:port"
	tunnels map[string]int
	refused map[string]int
	conns   sync.WaitGroup
}

// NewProxy starts a proxy on a loopback port. routes maps "host:port" (port optional: 443) to the
// address of a local listener; Route adds more later.
func NewProxy(routes map[string]string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, routes: map[string]string{}, tunnels: map[string]int{}, refused: map[string]int{}}
	for h, a := range routes {
		p.Route(h, a)
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Route sends tunnels to host (with ":443" when it has no port) to addr.
func (p *Proxy) Route(host, addr string) {
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "443")
	}
	p.mu.Lock()
	p.routes[strings.ToLower(host)] = addr
	p.mu.Unlock()
}

// URL is the proxy's URL, for HTTPS_PROXY.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Tunnels returns how many tunnels each routed host:port has had.
func (p *Proxy) Tunnels() map[string]int { return p.copyCounts(p.tunnels) }

// Refused returns the hosts the proxy refused to open a tunnel to, with counts.
func (p *Proxy) Refused() map[string]int { return p.copyCounts(p.refused) }

func (p *Proxy) copyCounts(m map[string]int) map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Close stops the proxy and waits for its tunnels to end.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.conns.Wait()
	return err
}

// Transport is an HTTP transport that goes through the proxy and trusts only ca: what an unmodified
// SDK gets from HTTPS_PROXY and SSL_CERT_FILE.
func (p *Proxy) Transport(ca *CA) *http.Transport {
	u, _ := url.Parse(p.URL())
	return &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}}
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	p.mu.Lock()
	addr, ok := p.routes[host]
	if r.Method != http.MethodConnect || !ok {
		p.refused[r.Method+" "+host]++
		p.mu.Unlock()
		http.Error(w, "this proxy only opens CONNECT tunnels to the routed hosts: "+strings.Join(p.routeNames(), ", "), http.StatusForbidden)
		return
	}
	p.tunnels[host]++
	p.mu.Unlock()
	up, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(r.Context(), "tcp", addr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	// Hijack first, then write the 200 on the raw connection, and read the client's side through the
	// hijacked buffer: the client sends its TLS ClientHello right after the 200, and those bytes may
	// already sit in the server's read buffer. Answering through the ResponseWriter before hijacking
	// raced with that (CI: "first record does not look like a TLS handshake").
	down, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		_ = up.Close()
		_ = down.Close()
		return
	}
	p.conns.Add(1)
	defer p.conns.Done()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, buffered.Reader)
		closeWrite(up)
		close(done)
	}()
	_, _ = io.Copy(down, up)
	_ = down.Close()
	<-done
	_ = up.Close()
}

// closeWrite half-closes a TCP connection, so the other side sees the end of what was sent.
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	_ = c.Close()
}

// routeNames lists the routed hosts; p.mu is held.
func (p *Proxy) routeNames() []string {
	out := make([]string, 0, len(p.routes))
	for h := range p.routes {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// Serve serves h over TLS with the CA's certificate for hosts on a loopback port, routes hosts
// (port 443) to it through the proxy, and returns the listener's address. The server stops when ctx
// ends.
func (p *Proxy) Serve(ctx context.Context, ca *CA, h http.Handler, hosts ...string) (string, error) {
	cfg, err := ca.ServerTLS(append(hosts, "127.0.0.1")...)
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, TLSConfig: cfg, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(tls.NewListener(ln, cfg)) }()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	for _, host := range hosts {
		p.Route(host, ln.Addr().String())
	}
	return ln.Addr().String(), nil
}
