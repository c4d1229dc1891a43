package route53emu

// canonicalZones maps the hosted zone ids AWS uses for alias targets outside
// the account to the DNS suffix their names must end with (reference §4).
var canonicalZones = map[string]string{
	"Z2FDTNDATAQYW2": "cloudfront.net.",
	"Z2BJ6XQ5FK7U4H": "awsglobalaccelerator.com.",
}

func init() {
	// ALB/CLB: <name>.<region>.elb.amazonaws.com; NLB: <name>.elb.<region>.amazonaws.com.
	for region, ids := range map[string][2]string{
		"us-east-1":      {"Z35SXDOTRQ7X7K", "Z26RNL4JYFTOTI"},
		"us-east-2":      {"Z3AADJGX6KTTL2", "ZLMOA37VPKANP"},
		"us-west-1":      {"Z368ELLRRE2KJ0", "Z24FKFUX50B4VW"},
		"us-west-2":      {"Z1H1FL5HABSF5", "Z18D5FSROUN65G"},
		"ca-central-1":   {"ZQSVJUPU6J1EY", "Z2EPGBW3API2WT"},
		"eu-west-1":      {"Z32O12XQLNTSW2", "Z2IFOLAFXWLO4F"},
		"eu-west-2":      {"ZHURV8PSTC4K8", "ZD4D7Y8KGAS4G"},
		"eu-central-1":   {"Z215JYRZR1TBD5", "Z3F0SRJ5LGBH90"},
		"eu-north-1":     {"Z23TAZ6LKFMNIO", "Z1UDT6IFJ4EJM"},
		"ap-northeast-1": {"Z14GRHDCWA56QT", "Z31USIVHYNEOWT"},
		"ap-southeast-1": {"Z1LMS91P8CMLE5", "ZKVM4W9LS7TM"},
		"ap-southeast-2": {"Z1GM3OXH4ZPM65", "ZCT6FZBF4DROD"},
		"ap-south-1":     {"ZP97RAFLXTNZK", "ZVDDRBQ08TROA"},
		"sa-east-1":      {"Z2P70J7HTTTPLU", "ZTK26PT1VY4CU"},
		"us-gov-west-1":  {"Z33AYJ8TM3BH4J", "ZMG1MZ2THAWF1"},
	} {
		canonicalZones[ids[0]] = region + ".elb.amazonaws.com."
		canonicalZones[ids[1]] = "elb." + region + ".amazonaws.com."
	}
	canonicalZones["Z1GDH35T77C1KE"] = "cn-north-1.elb.amazonaws.com.cn."
	canonicalZones["Z3QFB96KMJ7ED6"] = "elb.cn-north-1.amazonaws.com.cn."
}

const cloudFrontZoneID = "Z2FDTNDATAQYW2"

func aliasMessage(target, typ, zoneID, tail string) string {
	return "Tried to create an alias that targets " + target + ", type " + typ + " in zone " + zoneID + ", but " + tail
}

const (
	aliasOutside  = "the alias target name does not lie within the target zone"
	aliasNotFound = "that target was not found"
)

// checkAlias validates an alias set's target against the canonical zones, or
// against the emulated zone it names (the working copy for its own zone).
func (s *Server) checkAlias(p *parsedChange, wc *workingCopy) []string {
	a := p.rs.AliasTarget
	typ := p.key.Type
	var msgs []string
	if typ == "NS" || typ == "SOA" {
		return []string{"RRSet of type " + typ + " with DNS name " + p.key.Name + " cannot be an alias"}
	}
	if p.rs.MultiValueAnswer != nil {
		return []string{"RRSet with DNS name " + p.key.Name + ", type " + typ + " cannot be an alias because multivalue answer sets cannot be aliases"}
	}
	if suffix, ok := canonicalZones[a.HostedZoneID]; ok {
		if !inZone(a.DNSName, suffix) {
			return []string{aliasMessage(a.DNSName, typ, a.HostedZoneID, aliasOutside)}
		}
		if typ != "A" && typ != "AAAA" {
			msgs = append(msgs, aliasMessage(a.DNSName, typ, a.HostedZoneID, aliasNotFound))
		} else if s.opts.CheckAliasTargetsExist && !s.aliasTargets[a.DNSName] {
			msgs = append(msgs, aliasMessage(a.DNSName, typ, a.HostedZoneID, aliasNotFound))
		}
		if a.HostedZoneID == cloudFrontZoneID {
			if wc.z.private {
				msgs = append(msgs, "RRSet with DNS name "+p.key.Name+", type "+typ+" cannot be an alias to CloudFront in a private hosted zone")
			}
			if eth, _ := a.EvaluateTargetHealth.value(); eth {
				msgs = append(msgs, "RRSet with DNS name "+p.key.Name+", type "+typ+": EvaluateTargetHealth cannot be true for a CloudFront alias target")
			}
		}
		return msgs
	}
	target, ok := s.st.zones[a.HostedZoneID]
	if !ok {
		return []string{aliasMessage(a.DNSName, typ, a.HostedZoneID, aliasNotFound)}
	}
	if !inZone(a.DNSName, target.name) {
		return []string{aliasMessage(a.DNSName, typ, a.HostedZoneID, aliasOutside), aliasMessage(a.DNSName, typ, a.HostedZoneID, aliasNotFound)}
	}
	var sets map[rrKey]*storedSet
	if target == wc.z {
		sets = wc.names(a.DNSName)
	} else {
		sets = target.sets[a.DNSName]
	}
	for k := range sets {
		if k.Type == typ {
			return nil
		}
	}
	return []string{aliasMessage(a.DNSName, typ, a.HostedZoneID, aliasNotFound)}
}
