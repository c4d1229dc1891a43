package conformance

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
)

// ZoneFileTXTOnWire is Subject.TXTOnWire for providers of servers that take zone-file presentation
// (BIND, PowerDNS): a quoted target's strings are stored without their quotes.
func ZoneFileTXTOnWire(target string) string { return strings.Join(dnstext.Strings(target), "") }
