// Package webhook speaks external-dns's webhook provider protocol, both ways: Provider is the client
// (--provider=webhook, talking to any webhook provider sidecar), and Handler serves one of
// zonekeeper's providers over the protocol (zonekeeper webhook, external-dns's --webhook-server).
package webhook

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// MediaType is the protocol's content type; negotiation fails unless the server answers with exactly
// this Content-Type.
const MediaType = "application/external.dns.webhook+json;version=1"

// The protocol's paths besides GET / (negotiation).
const (
	pathRecords = "/records"
	pathAdjust  = "/adjustendpoints"
	pathHealth  = "/healthz"
)

// MaxBodySize caps request and response bodies, as external-dns's --webhook-provider-max-body-size
// does by default (32 MiB).
const MaxBodySize = 32 << 20

// domainFilterJSON is the negotiation body: either a list of domains with exclusions, or a pair of
// regular expressions, never both.
type domainFilterJSON struct {
	Include      []string `json:"include,omitempty"`
	Exclude      []string `json:"exclude,omitempty"`
	RegexInclude string   `json:"regexInclude,omitempty"`
	RegexExclude string   `json:"regexExclude,omitempty"`
}

func encodeDomainFilter(df plan.DomainFilter) domainFilterJSON {
	if df.Regex() != "" || df.RegexExclusion() != "" {
		return domainFilterJSON{RegexInclude: df.Regex(), RegexExclude: df.RegexExclusion()}
	}
	return domainFilterJSON{Include: df.Filters(), Exclude: df.Excludes()}
}

func decodeDomainFilter(b []byte) (plan.DomainFilter, error) {
	var j domainFilterJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return plan.DomainFilter{}, fmt.Errorf("the domain filter is not valid JSON: %v", err)
	}
	if (j.RegexInclude != "" || j.RegexExclude != "") && (len(j.Include) > 0 || len(j.Exclude) > 0) {
		return plan.DomainFilter{}, errors.New("the domain filter has both a domain list and regular expressions")
	}
	return plan.NewDomainFilter(j.Include, j.Exclude, j.RegexInclude, j.RegexExclude)
}

// rejectionsJSON is zonekeeper's addition to the protocol: when some changes of a POST /records were
// refused and the rest applied, zonekeeper's server answers 500 (which external-dns's client treats
// as a retryable error, as it should) with this body and rejectionsType as its Content-Type, so that
// zonekeeper's client reports exactly those changes and splits nothing.
type rejectionsJSON struct {
	Rejected []rejectionJSON `json:"rejected"`
}

type rejectionJSON struct {
	Action   provider.Action    `json:"action"`
	Endpoint *endpoint.Endpoint `json:"endpoint"`
	Error    string             `json:"error"`
}

const rejectionsType = "application/vnd.zonekeeper.rejected+json"
