package aws

import (
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
)

// storedSet is a record set as the cache keeps it. The SDK's ResourceRecordSet boxes every field
// behind a pointer (about 460 bytes a set at 20,000 Ingresses); most sets are a name, a type, a TTL
// and values, so the cache keeps those as plain strings beside the key (whose name, type and set
// identifier it shares), and the rest of the SDK struct only when one of its other fields (alias,
// routing policy, health check, CIDR, traffic policy) is set. recordSet rebuilds the SDK struct
// exactly, for a DELETE.
type storedSet struct {
	values []string // the ResourceRecords' values, nil when there are none (an alias)
	ttl    int64    // noTTL when the set has none (an alias)
	// rest is the set with Type, SetIdentifier, TTL and ResourceRecords cleared, and Name too unless
	// it is not the key's name and a dot (upper case, \ooo escapes); nil when nothing is left
	// (hasExtras).
	rest *r53types.ResourceRecordSet
}

// noTTL marks a set without a TTL; Route 53's TTLs are 0 to 2,147,483,647.
const noTTL = -1

// storeOf is the key and the cached form of a record set. It keeps the set's strings, not the SDK
// struct, so a listing's pages can be collected.
func storeOf(rr *r53types.ResourceRecordSet) (rrKey, storedSet) {
	name := deref(rr.Name)
	k := rrKey{normName(name), internType(rr.Type), deref(rr.SetIdentifier)}
	s := storedSet{ttl: noTTL}
	if rr.TTL != nil {
		s.ttl = *rr.TTL
	}
	if len(rr.ResourceRecords) > 0 {
		s.values = make([]string, len(rr.ResourceRecords))
		for i, v := range rr.ResourceRecords {
			s.values[i] = deref(v.Value)
		}
	}
	plainName := isNameAndDot(name, k.name)
	if hasExtras(rr) || !plainName {
		rest := *rr
		rest.Type, rest.SetIdentifier, rest.TTL, rest.ResourceRecords = "", nil, nil, nil
		if plainName {
			rest.Name = nil
		}
		s.rest = &rest
	}
	return k, s
}

// hasExtras reports whether rr sets a field besides Name, Type, SetIdentifier, TTL and
// ResourceRecords. TestStoredSetKeepsEveryField fails when the SDK adds a field this does not name.
func hasExtras(rr *r53types.ResourceRecordSet) bool {
	return rr.AliasTarget != nil || rr.CidrRoutingConfig != nil || rr.Failover != "" || rr.GeoLocation != nil ||
		rr.GeoProximityLocation != nil || rr.HealthCheckId != nil || rr.MultiValueAnswer != nil || rr.Region != "" ||
		rr.TrafficPolicyInstanceId != nil || rr.Weight != nil
}

// recordSet is the SDK form of the stored set k, as Route 53 listed it (or as it was written).
func (s storedSet) recordSet(k rrKey) *r53types.ResourceRecordSet {
	rr := &r53types.ResourceRecordSet{}
	if s.rest != nil {
		*rr = *s.rest
	}
	if rr.Name == nil {
		rr.Name = ptr(k.name + ".")
	}
	rr.Type = r53types.RRType(k.recordType)
	if k.setID != "" {
		rr.SetIdentifier = ptr(k.setID)
	}
	if s.ttl != noTTL {
		rr.TTL = ptr(s.ttl)
	}
	if s.values != nil {
		rr.ResourceRecords = make([]r53types.ResourceRecord, len(s.values))
		for i, v := range s.values {
			rr.ResourceRecords[i].Value = ptr(v)
		}
	}
	return rr
}

// alias is the set's alias target, or nil.
func (s storedSet) alias() *r53types.AliasTarget {
	if s.rest == nil {
		return nil
	}
	return s.rest.AliasTarget
}

// internType returns the record type as one shared string per known type, instead of a copy per set
// (the SDK decodes each set's type into its own string).
func internType(t r53types.RRType) string {
	for _, known := range allTypes {
		if string(known) == string(t) {
			return string(known)
		}
	}
	return string(t)
}

// allTypes are the types Route 53 lists, the ones the provider manages and those it leaves alone.
var allTypes = r53types.RRType("").Values()

// isNameAndDot reports whether name is norm followed by a dot, without building that string.
func isNameAndDot(name, norm string) bool {
	return len(name) == len(norm)+1 && name[len(norm)] == '.' && name[:len(norm)] == norm
}
