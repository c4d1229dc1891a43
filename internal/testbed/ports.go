package testbed

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// lowestTestPort is the bottom of the range FreePorts picks from; the top is the start of the kernel's
// ephemeral range.
const lowestTestPort = 10000

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago (and, for DNS servers, whose UDP
// twin was free too).
func FreePort(t testing.TB) int {
	t.Helper()
	return FreePorts(t, 1)[0]
}

// FreePorts returns n distinct ports as FreePort does.
//
// The ports are picked at random below the kernel's ephemeral range (ip_local_port_range). A port
// that the kernel handed out for "listen on port 0" lies inside that range, and between the probe and
// the server's own bind the kernel may give the same port to any outgoing connection on the machine —
// a CI run once lost etcd to exactly that ("bind: address already in use"). Below the range only
// another test picking the same port at random can collide, and the probe catches ports in use.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports, err := freePorts(n, ephemeralLow())
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	return ports
}

func freePorts(n, ephemeralLow int) ([]int, error) {
	if ephemeralLow-lowestTestPort < 1000 {
		return nil, fmt.Errorf("the ephemeral port range starts at %d, leaving no room for test ports above %d", ephemeralLow, lowestTestPort)
	}
	var ports []int
	for tries := 0; len(ports) < n; tries++ {
		if tries == 1000 {
			return nil, fmt.Errorf("no free port in %d..%d after %d tries", lowestTestPort, ephemeralLow-1, tries)
		}
		port := lowestTestPort + rand.IntN(ephemeralLow-lowestTestPort)
		if slices.Contains(ports, port) || !portFree(port) {
			continue
		}
		ports = append(ports, port)
	}
	return ports, nil
}

// portFree reports whether both the TCP and the UDP port can be bound on 127.0.0.1 now.
func portFree(port int) bool {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	defer l.Close()
	u, err := net.ListenPacket("udp", addr)
	if err != nil {
		return false
	}
	u.Close()
	return true
}

// ephemeralLow returns the first port of the kernel's ephemeral range, or Linux's default when the
// range cannot be read.
func ephemeralLow() int {
	const linuxDefault = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return linuxDefault
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return linuxDefault
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return linuxDefault
	}
	return low
}

// holdPorts listens on the ports on 127.0.0.1 and resets every connection at once, as a host whose
// server is down does, while no other process can bind the ports. (A socket bound without listening
// would refuse connections more faithfully, but on Linux it neither binds beside the server's
// TIME_WAIT connections nor keeps out a later listener with SO_REUSEADDR.) Ports that cannot be
// bound are skipped. The result is for releasePorts.
func holdPorts(ports []int) []net.Listener {
	var held []net.Listener
	for _, port := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		go resetConnections(l)
		held = append(held, l)
	}
	return held
}

func resetConnections(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		_ = c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}
}

// releasePorts closes the listeners of holdPorts.
func releasePorts(held []net.Listener) {
	for _, l := range held {
		l.Close()
	}
}

// portReservation keeps the ports of a stopped server that a test will start again, so that no other
// test's server can take them in between.
type portReservation struct {
	ports []int
	held  []net.Listener
}

func (r *portReservation) hold() {
	if r.held == nil {
		r.held = holdPorts(r.ports)
	}
}

func (r *portReservation) release() {
	releasePorts(r.held)
	r.held = nil
}
