// Package bench holds the side-by-side benchmark of issue 15: the real external-dns and zonekeeper,
// one after the other, on the same Ingresses in a real kube-apiserver, both writing to the Route 53
// emulator. It measures time to converge, memory, idle cost, event-to-answer latency and provider calls.
//
// The harness itself (sidebyside_test.go and its helpers) is behind the build tag "sidebyside", so the
// default test command never runs it; `make bench-side-by-side` does (N, IDLE, CHANGES, … as make
// variables; docs/benchmarks.md has the command and the figures). The untagged files here are the
// parts that need no servers (settings, /proc readers, statistics, the table), tested by default.
package bench
