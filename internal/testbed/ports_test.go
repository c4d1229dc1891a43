package testbed

import (
	"net"
	"strconv"
	"testing"
	"time"
)

// Ports come from below the ephemeral range, so no outgoing connection can take them between the
// probe and the server's bind.
func TestFreePortsBelowEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	ports := FreePorts(t, 200)
	seen := map[int]bool{}
	for _, p := range ports {
		if p < lowestTestPort || p >= low {
			t.Errorf("port %d outside %d..%d", p, lowestTestPort, low-1)
		}
		if seen[p] {
			t.Errorf("port %d returned twice", p)
		}
		seen[p] = true
	}
}

func TestPortFreeSeesTCPAndUDP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if port := l.Addr().(*net.TCPAddr).Port; portFree(port) {
		t.Errorf("TCP port %d is bound but reported free", port)
	}
	u, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if port := u.LocalAddr().(*net.UDPAddr).Port; portFree(port) {
		t.Errorf("UDP port %d is bound but reported free", port)
	}
}

func TestFreePortsRefusesANarrowRange(t *testing.T) {
	if _, err := freePorts(1, lowestTestPort+10); err == nil {
		t.Error("an ephemeral range starting just above the test range was accepted")
	}
}

// While held, a port cannot be bound by anyone else, and connections to it fail; released, it binds.
func TestHoldPorts(t *testing.T) {
	port := FreePort(t)
	held := holdPorts([]int{port})
	if len(held) != 1 {
		t.Fatalf("held %d ports, want 1", len(held))
	}
	if portFree(port) {
		t.Error("a held port was reported free")
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err == nil {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("a connection to a held port could read data")
		}
		c.Close()
	}
	releasePorts(held)
	if !portFree(port) {
		t.Error("a released port is not free")
	}
}
