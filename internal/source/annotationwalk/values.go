// Package annotationwalk holds what the annotation walks share (internal/source for Services and
// Ingresses, internal/source/kinds for every kind read from manifests): for each annotation key, a
// value other than what an object gets without it, so that setting it must change the records or be
// reported.
package annotationwalk

// Typo is a key under external-dns's prefixes that no version of external-dns or zonekeeper reads:
// every kind must report it.
const Typo = "zz-not-an-annotation"

// Values gives each annotation key (without prefix) a value for the walk.
func Values() map[string]string {
	return map[string]string{
		"hostname": "other.example.org", "internal-hostname": "internal.example.org", "target": "192.0.2.99",
		"ttl": "77", "controller": "another-controller", "access": "private", "endpoints-type": "HostIP",
		"ingress-hostname-source": "annotation-only", "gateway-hostname-source": "annotation-only",
		"set-identifier": "walk", "alias": "true",
		"aws-evaluate-target-health": "false", "aws-failover": "PRIMARY", "aws-geolocation-continent-code": "EU",
		"aws-geolocation-country-code": "DE", "aws-geolocation-subdivision-code": "BY", "aws-geoproximity-bias": "10",
		"aws-geoproximity-coordinates": "49.22,-74.01", "aws-geoproximity-local-zone-group": "usw2-lax1",
		"aws-geoproximity-region": "us-west-2", "aws-health-check-id": "abcdef12-3456-7890-abcd-ef1234567890",
		"aws-hosted-zone-id": "Z0000000000000000001", "aws-multi-value-answer": "true", "aws-region": "us-east-1",
		"aws-target-hosted-zone": "Z0000000000000000002", "aws-weight": "10",
		"cloudflare-custom-hostname": "custom.example.net", "cloudflare-proxied": "true",
		"cloudflare-record-comment": "walk", "cloudflare-region-key": "eu", "cloudflare-tags": "team:walk",
		"record-type": "ptr",
		Typo:          "x", "ingress": "default/nginx", "azure-tags": "team=walk",
	}
}
