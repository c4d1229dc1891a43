package config

// externalDNSDefaults are the default values external-dns (v0.21.0, v0.23.0: read from their --help)
// gives the flags zonekeeper refuses. Setting a refused flag to its external-dns default asks for
// nothing zonekeeper lacks, so it is accepted: a values file or command line that spells out the
// defaults keeps working (test/e2e TestRefusedFlagsAtExternalDNSDefaults checks the list against both
// binaries).
var externalDNSDefaults = map[string][]string{
	"alibaba-cloud-config-file":       {"/etc/kubernetes/alibaba-cloud.json"},
	"connector-source-server":         {"localhost:8080"},
	"dynamodb-table":                  {"external-dns"},
	"exoscale-apienv":                 {"api"},
	"exoscale-apizone":                {"ch-gva-2"},
	"exoscale-zones-cache-duration":   {"0s"},
	"godaddy-api-ttl":                 {"0"},
	"ns1-min-ttl":                     {"0"},
	"oci-config-file":                 {"/etc/kubernetes/oci.yaml"},
	"oci-zones-cache-duration":        {"0s"},
	"ovh-api-rate-limit":              {"20"},
	"ovh-endpoint":                    {"ovh-eu"},
	"pihole-api-version":              {"5"},
	"rfc2136-load-balancing-strategy": {"disabled"},
}
