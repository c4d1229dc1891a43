package rfc2136

import (
	"fmt"
	"strings"

	"github.com/miekg/dns"
)

// RcodeError is a non-NOERROR answer of the server to an UPDATE or a zone transfer.
type RcodeError struct {
	Zone   string // "example.com"
	Server string // host:port
	Key    string // TSIG key name, "" when unsigned
	// Principal is the Kerberos principal (user@REALM) of a GSS-TSIG request, "" otherwise.
	Principal string
	Rcode     int // dns.RcodeRefused, …
	// TSIGError is the TSIG error the server reported (dns.RcodeBadSig, dns.RcodeBadKey,
	// dns.RcodeBadTime), 0 when none.
	TSIGError uint16
	// Op is "UPDATE" or "AXFR".
	Op string
	// Hint says what to check.
	Hint string
}

func (e *RcodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "zone %s: %s refused by %s with %s", e.Zone, e.Op, e.Server, dns.RcodeToString[e.Rcode])
	if e.TSIGError != 0 {
		fmt.Fprintf(&b, " (TSIG error %s)", tsigErrorName(e.TSIGError))
	}
	if e.Principal != "" {
		fmt.Fprintf(&b, ", GSS-TSIG as %s", e.Principal)
	} else if e.Key != "" {
		fmt.Fprintf(&b, ", TSIG key %s", strings.TrimSuffix(e.Key, "."))
	} else {
		b.WriteString(", unsigned")
	}
	if e.Hint != "" {
		b.WriteString(": " + e.Hint)
	}
	return b.String()
}

func tsigErrorName(code uint16) string {
	switch code {
	case dns.RcodeBadSig:
		return "BADSIG"
	case dns.RcodeBadKey:
		return "BADKEY"
	case dns.RcodeBadTime:
		return "BADTIME"
	case dns.RcodeBadTrunc:
		return "BADTRUNC"
	}
	return fmt.Sprintf("%d", code)
}

// tsigHint explains a TSIG failure.
func tsigHint(code uint16) string {
	switch code {
	case dns.RcodeBadKey:
		return "the server does not know this key name (check --rfc2136-tsig-keyname and the key statement in named.conf)"
	case dns.RcodeBadTime:
		return "the clocks of this host and the server differ by more than 300 s"
	}
	return "the server rejected the signature: the secret or the algorithm does not match the server's key " +
		"(check --rfc2136-tsig-secret and --rfc2136-tsig-secret-alg)"
}

// zoneScope reports whether an answer is about the zone or the key as a whole, so that every change
// of the zone would get it and bisecting a batch is pointless.
func zoneScope(rcode int, tsigErr uint16) bool {
	if tsigErr != 0 {
		return true
	}
	switch rcode {
	case dns.RcodeNotAuth, dns.RcodeServerFailure, dns.RcodeNotImplemented, dns.RcodeBadSig:
		return true
	}
	return false
}
