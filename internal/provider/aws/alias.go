package aws

// cloudFrontZone is the hosted zone of every CloudFront distribution (and edge API Gateway).
const cloudFrontZone = "Z2FDTNDATAQYW2"

// Canonical hosted zone ids of AWS alias targets, by hostname suffix (route53-api.md section 4; AWS
// "Elastic Load Balancing endpoints and quotas"). ALB and CLB hostnames end in
// <region>.elb.amazonaws.com, NLB hostnames in elb.<region>.amazonaws.com.
var canonicalZones = func() map[string]string {
	m := map[string]string{
		"cloudfront.net":           cloudFrontZone,
		"awsglobalaccelerator.com": "Z2BJ6XQ5FK7U4H",
	}
	for _, r := range []struct{ region, alb, nlb string }{
		{"us-east-1", "Z35SXDOTRQ7X7K", "Z26RNL4JYFTOTI"},
		{"us-east-2", "Z3AADJGX6KTTL2", "ZLMOA37VPKANP"},
		{"us-west-1", "Z368ELLRRE2KJ0", "Z24FKFUX50B4VW"},
		{"us-west-2", "Z1H1FL5HABSF5", "Z18D5FSROUN65G"},
		{"ca-central-1", "ZQSVJUPU6J1EY", "Z2EPGBW3API2WT"},
		{"eu-west-1", "Z32O12XQLNTSW2", "Z2IFOLAFXWLO4F"},
		{"eu-west-2", "ZHURV8PSTC4K8", "ZD4D7Y8KGAS4G"},
		{"eu-central-1", "Z215JYRZR1TBD5", "Z3F0SRJ5LGBH90"},
		{"eu-north-1", "Z23TAZ6LKFMNIO", "Z1UDT6IFJ4EJM"},
		{"ap-northeast-1", "Z14GRHDCWA56QT", "Z31USIVHYNEOWT"},
		{"ap-southeast-1", "Z1LMS91P8CMLE5", "ZKVM4W9LS7TM"},
		{"ap-southeast-2", "Z1GM3OXH4ZPM65", "ZCT6FZBF4DROD"},
		{"ap-south-1", "ZP97RAFLXTNZK", "ZVDDRBQ08TROA"},
		{"sa-east-1", "Z2P70J7HTTTPLU", "ZTK26PT1VY4CU"},
		{"us-gov-west-1", "Z33AYJ8TM3BH4J", "ZMG1MZ2THAWF1"},
	} {
		m[r.region+".elb.amazonaws.com"] = r.alb
		m["elb."+r.region+".amazonaws.com"] = r.nlb
	}
	m["cn-north-1.elb.amazonaws.com.cn"] = "Z1GDH35T77C1KE"
	m["elb.cn-north-1.amazonaws.com.cn"] = "Z3QFB96KMJ7ED6"
	return m
}()

// canonicalZone returns the canonical hosted zone id for an AWS hostname, or "". Label suffixes are
// tried from the right-most two labels leftward, as external-dns does.
func canonicalZone(host string) string {
	host = normName(host)
	// The suffixes of two labels or more, shortest first; substrings of host, so nothing is built.
	dots := 0
	for i := len(host) - 1; i >= -1; i-- {
		if i >= 0 && host[i] != '.' {
			continue
		}
		if dots++; dots < 2 {
			continue
		}
		if id, ok := canonicalZones[host[i+1:]]; ok {
			return id
		}
	}
	return ""
}
