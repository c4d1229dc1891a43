package route53emu

import (
	"sort"
	"time"
)

// rrKey identifies a record set inside a zone. Name is normalised; SetID is
// case-sensitive and empty for simple sets.
type rrKey struct {
	Name, Type, SetID string
}

// storedSet is a record set in the normalised form the API returns.
type storedSet struct {
	key  rrKey
	sort string // reversed-label key of key.Name
	set  RecordSet
}

// setsByName holds a zone's sets grouped by owner name, which is what the
// CNAME and routing-policy rules look at.
type setsByName map[string]map[rrKey]*storedSet

type zone struct {
	id          string // bare, "Z…"
	name        string // normalised, trailing dot
	callerRef   string
	comment     *string
	hasConfig   bool
	private     bool
	vpcs        []vpcXML
	nameServers []string
	seq         int64
	sets        setsByName
	count       int
	sorted      []*storedSet // listing order; nil when stale
}

// listing returns the zone's sets in ListResourceRecordSets order: reversed
// name as a plain string, then type, then SetIdentifier.
func (z *zone) listing() []*storedSet {
	if z.sorted != nil {
		return z.sorted
	}
	all := make([]*storedSet, 0, z.count)
	for _, m := range z.sets {
		for _, s := range m {
			all = append(all, s)
		}
	}
	sort.Slice(all, func(i, j int) bool { return lessSet(all[i], all[j]) })
	z.sorted = all
	return all
}

func lessSet(a, b *storedSet) bool {
	return compareListing(a.sort, a.key.Type, a.key.SetID, b.sort, b.key.Type, b.key.SetID) < 0
}

func compareListing(aSort, aType, aID, bSort, bType, bID string) int {
	switch {
	case aSort != bSort:
		return cmpString(aSort, bSort)
	case aType != bType:
		return cmpString(aType, bType)
	default:
		return cmpString(aID, bID)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// change is a submitted change batch (or zone creation/deletion) whose status
// flips from PENDING to INSYNC at insyncAt.
type change struct {
	id        string
	submitted time.Time
	insyncAt  time.Time
	comment   string
	zoneID    string
}

func (c *change) info(now time.Time) changeInfoXML {
	status := "PENDING"
	if !now.Before(c.insyncAt) {
		status = "INSYNC"
	}
	return changeInfoXML{
		ID:          "/change/" + c.id,
		Status:      status,
		SubmittedAt: c.submitted.UTC().Format("2006-01-02T15:04:05.000Z"),
		Comment:     c.comment,
	}
}

// state is everything the AWS API can observe; Reset replaces it whole.
type state struct {
	zones      map[string]*zone
	changes    map[string]*change
	callerRefs map[string]string            // caller reference → zone id
	tags       map[string]map[string]string // "hostedzone/Z…" → key → value
	nextSeq    int64
}

func newState() *state {
	return &state{
		zones:      map[string]*zone{},
		changes:    map[string]*change{},
		callerRefs: map[string]string{},
		tags:       map[string]map[string]string{},
	}
}
