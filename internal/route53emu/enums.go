package route53emu

import "strings"

// Enumerations of the API model (aws-sdk-go-v2 service/route53 v1.70.8).
var (
	actionList = []string{"CREATE", "DELETE", "UPSERT"}
	rrTypeList = []string{"SOA", "A", "TXT", "NS", "CNAME", "MX", "NAPTR", "PTR", "SRV", "SPF", "AAAA", "CAA", "DS", "TLSA", "SSHFP", "SVCB", "HTTPS"}
	// Latency routing regions (ResourceRecordSetRegion).
	regionList    = strings.Fields("us-east-1 us-east-2 us-west-1 us-west-2 ca-central-1 eu-west-1 eu-west-2 eu-west-3 eu-central-1 eu-central-2 ap-southeast-1 ap-southeast-2 ap-southeast-3 ap-northeast-1 ap-northeast-2 ap-northeast-3 eu-north-1 sa-east-1 cn-north-1 cn-northwest-1 ap-east-1 me-south-1 me-central-1 ap-south-1 ap-south-2 af-south-1 eu-south-1 eu-south-2 ap-southeast-4 il-central-1 ca-west-1 ap-southeast-5 mx-central-1 ap-southeast-7 us-gov-east-1 us-gov-west-1 ap-east-2 ap-southeast-6 eusc-de-east-1")
	vpcRegionList = strings.Fields("us-east-1 us-east-2 us-west-1 us-west-2 eu-west-1 eu-west-2 eu-west-3 eu-central-1 eu-central-2 ap-east-1 me-south-1 us-gov-west-1 us-gov-east-1 us-iso-east-1 us-iso-west-1 us-isob-east-1 me-central-1 ap-southeast-1 ap-southeast-2 ap-southeast-3 ap-south-1 ap-south-2 ap-northeast-1 ap-northeast-2 ap-northeast-3 eu-north-1 sa-east-1 ca-central-1 cn-north-1 cn-northwest-1 af-south-1 eu-south-1 eu-south-2 ap-southeast-4 il-central-1 ca-west-1 ap-southeast-5 mx-central-1 us-isof-south-1 us-isof-east-1 ap-southeast-7 ap-east-2 eu-isoe-west-1 ap-southeast-6 us-isob-west-1 eusc-de-east-1")
	failoverList  = []string{"PRIMARY", "SECONDARY"}
	continentList = []string{"AF", "AN", "AS", "EU", "OC", "NA", "SA"}

	rrTypes    = setOf(rrTypeList)
	regions    = setOf(regionList)
	vpcRegions = setOf(vpcRegionList)
	continents = setOf(continentList)
)

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, v := range list {
		m[v] = true
	}
	return m
}

// enumError is AWS's schema-validation wording for a value outside an enum.
func enumError(value string, list []string) *apiError {
	return invalidInput("Invalid XML ; cvc-enumeration-valid: Value '" + value +
		"' is not facet-valid with respect to enumeration '[" + strings.Join(list, ", ") +
		"]'. It must be a value from the enumeration.")
}
