package config

import (
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// zonekeeper takes every flag of external-dns v0.21, so that an existing command line, values file or
// environment never fails with "flag provided but not defined". A flag is implemented, accepted as a
// no-op where its behaviour is always on (acceptedNoOp), or refused when set, with the reason below, so
// that a setting zonekeeper cannot honour is never silently ignored.

// refusedFlag is an external-dns flag zonekeeper does not implement.
type refusedFlag struct {
	boolean bool
	reason  string
	// harmless is a value that asks for nothing zonekeeper lacks (the flag's default).
	harmless string
}

func refusedFlags() map[string]refusedFlag {
	// External-dns providers zonekeeper does not have; their flags name them.
	otherProviders := []string{"akamai", "alibaba-cloud", "aws-sd", "dynamodb", "exoscale",
		"godaddy", "ns1", "oci", "ovh", "pihole", "plural", "transip"}
	const (
		notSource   = "this source is not part of zonekeeper yet"
		notFeature  = "not implemented by zonekeeper"
		useWebhook  = "is not part of zonekeeper; use its webhook provider sidecar with --provider=webhook, or external-dns"
		notProvider = "the %s provider " + useWebhook
	)
	out := map[string]refusedFlag{
		"compatibility":                          {reason: notFeature + " (the mate, molecule and kops-dns-controller annotation modes)"},
		"resolve-service-load-balancer-hostname": {boolean: true, reason: notFeature + ": a load balancer hostname is published as a CNAME"},
		"listen-endpoint-events":                 {boolean: true, reason: notFeature + ": headless services follow their EndpointSlices already"},
		"nat64-networks":                         {reason: notFeature},
		"prefer-alias":                           {boolean: true, reason: notFeature + " (the alias annotation selects aliases on Route 53)"},
		"coredns-strictly-owned":                 {boolean: true, reason: notFeature + ": ownership is kept in TXT records, as with external-dns's default"},
		"zone-name-filter":                       {reason: notFeature + " (use --domain-filter or --zone-id-filter)"},
		"rfc2136-load-balancing-strategy":        {reason: notFeature + ": several --rfc2136-host are tried in order (failover)", harmless: "disabled"},
		"unstructured-resource":                  {reason: notSource + " (unstructured)"},
		"connector-source-server":                {reason: notSource + " (connector)"},
	}
	// Every flag of the providers zonekeeper does not have, as external-dns v0.21 lists them.
	for name, boolean := range map[string]bool{
		"akamai-access-token": false, "akamai-client-secret": false, "akamai-client-token": false,
		"akamai-edgerc-path": false, "akamai-edgerc-section": false, "akamai-serviceconsumerdomain": false,
		"alibaba-cloud-config-file": false, "alibaba-cloud-zone-type": false,
		"aws-sd-create-tag": false, "aws-sd-service-cleanup": true,
		"dynamodb-region": false, "dynamodb-table": false,
		"exoscale-apienv": false, "exoscale-zones-cache-duration": false, "exoscale-apikey": false, "exoscale-apisecret": false, "exoscale-apizone": false,
		"godaddy-api-key": false, "godaddy-api-ote": true, "godaddy-api-secret": false, "godaddy-api-ttl": false,
		"ns1-endpoint": false, "ns1-ignoressl": true, "ns1-min-ttl": false,
		"oci-auth-instance-principal": true, "oci-compartment-ocid": false, "oci-config-file": false,
		"oci-zone-scope": false, "oci-zones-cache-duration": false,
		"ovh-api-rate-limit": false, "ovh-enable-cname-relative": true, "ovh-endpoint": false,
		"pihole-api-version": false, "pihole-password": false, "pihole-server": false, "pihole-tls-skip-verify": true,
		"plural-cluster": false, "plural-provider": false,
		"transip-account": false, "transip-keyfile": false,
	} {
		provider := name
		for _, p := range otherProviders {
			if strings.HasPrefix(name, p+"-") {
				provider = p
			}
		}
		out[name] = refusedFlag{boolean: boolean, reason: fmt.Sprintf(notProvider, provider)}
	}
	return out
}

// refusedValue records that a refused flag was set.
type refusedValue struct {
	boolean bool
	// harmless are values that ask for nothing: external-dns's default, and "" for a value flag.
	harmless []string
	set      *[]string
	name     string
}

func (v refusedValue) String() string { return "" }
func (v refusedValue) Set(s string) error {
	if (v.boolean && (s == "false" || s == "0")) || (!v.boolean && strings.TrimSpace(s) == "") || slices.Contains(v.harmless, s) {
		return nil // turning an unimplemented feature off asks for nothing
	}
	*v.set = append(*v.set, v.name)
	return nil
}
func (v refusedValue) IsBoolFlag() bool { return v.boolean }

// registerRefused adds the refused flags to fs; the names of those set are collected in set.
func registerRefused(fs *flag.FlagSet, set *[]string) {
	refused := refusedFlags()
	names := make([]string, 0, len(refused))
	for n := range refused {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		harmless := externalDNSDefaults[n]
		if h := refused[n].harmless; h != "" {
			harmless = append(harmless, h)
		}
		fs.Var(refusedValue{boolean: refused[n].boolean, harmless: harmless, set: set, name: n}, n, "external-dns flag, refused when set: "+refused[n].reason)
	}
}

// refusedErrors explains every refused flag that was set.
func refusedErrors(set []string) []error {
	refused := refusedFlags()
	seen := map[string]bool{}
	var errs []error
	for _, n := range set {
		if seen[n] {
			continue
		}
		seen[n] = true
		errs = append(errs, fmt.Errorf("--%s: %s", n, refused[n].reason))
	}
	return errs
}
