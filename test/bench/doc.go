// Package bench holds the side-by-side benchmark of issue 15: the real external-dns and zonekeeper,
// one after the other, on the same Ingresses in a real kube-apiserver, both writing to the Route 53
// emulator. It measures time to converge, memory, idle cost, event-to-answer latency and provider calls.
//
// The harness itself (sidebyside_test.go and its helpers) is behind the build tag "sidebyside", so the
// default test command never runs it; `make bench-side-by-side` does (N, IDLE, CHANGES, … as make
// variables; docs/benchmarks.md has the command and the figures). TestMillion, behind the same tag
// (`make bench-million`), is zonekeeper alone at a million endpoints: 10,000 Ingresses of 100 hosts,
// the built-in DNS server as the provider, asked over UDP (dnsprobe.go). The untagged files here are the
// parts that need no external servers (settings, /proc readers, statistics, the tables, the metrics
// reader, and the DNS probe against the built-in server in process), tested by default.
package bench
