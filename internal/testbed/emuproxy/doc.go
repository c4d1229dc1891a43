// Package emuproxy points unmodified cloud SDKs (and the real external-dns) at the project's
// emulators without an endpoint setting: a test CA whose certificate goes into SSL_CERT_FILE, server
// certificates it signs for the providers' host names (dns.googleapis.com, management.azure.com, …),
// a loopback CONNECT proxy for HTTPS_PROXY that sends each named host:port to a local listener, and
// the throwaway credentials files the SDKs read. Any emulator can be served this way: wrap its
// handler in a TLS listener with the CA's certificate for its hosts, and route the hosts to it.
package emuproxy
