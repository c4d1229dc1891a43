// Package emucontrol holds the test machinery the provider emulators
// (route53emu, cloudflareemu, googlednsemu, azurednsemu) share: the
// /_emulator/ control surface plumbing, injected faults that count down or
// time out, per-credential token-bucket throttling and the call log. What
// differs between the emulated APIs — error bodies, default codes, what a
// fault matches — stays in each emulator and reaches this package as type
// parameters and small functions.
//
// FaultList and RateLimiter do not lock: every emulator already handles a
// request under one mutex, and a fault firing or a token being taken must be
// atomic with the rest of that request. CallLog locks itself, because the
// control API reads it while nothing else needs to be consistent with it.
package emucontrol
