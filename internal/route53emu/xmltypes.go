package route53emu

import "encoding/xml"

// route53NS is the XML namespace of every Route 53 request and response.
const route53NS = "https://route53.amazonaws.com/doc/2013-04-01/"

// RecordSet is one resource record set as the API carries it. The same type
// decodes requests, encodes responses and describes seed records (JSON), so
// the three can never drift apart. Optional members are pointers so that
// "absent" and "zero" stay distinct, which the validation rules depend on.
type RecordSet struct {
	Name                    string                `xml:"Name" json:"name"`
	Type                    string                `xml:"Type" json:"type"`
	SetIdentifier           *string               `xml:"SetIdentifier,omitempty" json:"setIdentifier,omitempty"`
	Weight                  *Number               `xml:"Weight,omitempty" json:"weight,omitempty"`
	Region                  *string               `xml:"Region,omitempty" json:"region,omitempty"`
	GeoLocation             *GeoLocation          `xml:"GeoLocation,omitempty" json:"geoLocation,omitempty"`
	Failover                *string               `xml:"Failover,omitempty" json:"failover,omitempty"`
	MultiValueAnswer        *Bool                 `xml:"MultiValueAnswer,omitempty" json:"multiValueAnswer,omitempty"`
	TTL                     *Number               `xml:"TTL,omitempty" json:"ttl,omitempty"`
	ResourceRecords         *ResourceRecords      `xml:"ResourceRecords,omitempty" json:"resourceRecords,omitempty"`
	AliasTarget             *AliasTarget          `xml:"AliasTarget,omitempty" json:"aliasTarget,omitempty"`
	HealthCheckID           *string               `xml:"HealthCheckId,omitempty" json:"healthCheckId,omitempty"`
	TrafficPolicyInstanceID *string               `xml:"TrafficPolicyInstanceId,omitempty" json:"trafficPolicyInstanceId,omitempty"`
	CidrRoutingConfig       *CidrRoutingConfig    `xml:"CidrRoutingConfig,omitempty" json:"cidrRoutingConfig,omitempty"`
	GeoProximityLocation    *GeoProximityLocation `xml:"GeoProximityLocation,omitempty" json:"geoProximityLocation,omitempty"`
}

// ResourceRecords wraps the value list; a pointer to it tells an empty
// <ResourceRecords/> element apart from a missing one.
type ResourceRecords struct {
	Items []ResourceRecord `xml:"ResourceRecord" json:"items"`
}

// ResourceRecord is one value.
type ResourceRecord struct {
	Value string `xml:"Value" json:"value"`
}

// AliasTarget points an alias set at another name.
type AliasTarget struct {
	HostedZoneID         string `xml:"HostedZoneId" json:"hostedZoneId"`
	DNSName              string `xml:"DNSName" json:"dnsName"`
	EvaluateTargetHealth Bool   `xml:"EvaluateTargetHealth" json:"evaluateTargetHealth"`
}

// GeoLocation selects a geolocation routing location.
type GeoLocation struct {
	ContinentCode   *string `xml:"ContinentCode,omitempty" json:"continentCode,omitempty"`
	CountryCode     *string `xml:"CountryCode,omitempty" json:"countryCode,omitempty"`
	SubdivisionCode *string `xml:"SubdivisionCode,omitempty" json:"subdivisionCode,omitempty"`
}

// GeoProximityLocation selects a geoproximity routing location.
type GeoProximityLocation struct {
	AWSRegion      *string      `xml:"AWSRegion,omitempty" json:"awsRegion,omitempty"`
	LocalZoneGroup *string      `xml:"LocalZoneGroup,omitempty" json:"localZoneGroup,omitempty"`
	Coordinates    *Coordinates `xml:"Coordinates,omitempty" json:"coordinates,omitempty"`
	Bias           *Number      `xml:"Bias,omitempty" json:"bias,omitempty"`
}

// Coordinates are a latitude and longitude as decimal strings.
type Coordinates struct {
	Latitude  string `xml:"Latitude" json:"latitude"`
	Longitude string `xml:"Longitude" json:"longitude"`
}

// CidrRoutingConfig selects IP-based routing.
type CidrRoutingConfig struct {
	CollectionID string `xml:"CollectionId" json:"collectionId"`
	LocationName string `xml:"LocationName" json:"locationName"`
}

type changeBatchRequest struct {
	XMLName     xml.Name `xml:"ChangeResourceRecordSetsRequest"`
	ChangeBatch *struct {
		Comment *string `xml:"Comment"`
		Changes *struct {
			Items []changeXML `xml:"Change"`
		} `xml:"Changes"`
	} `xml:"ChangeBatch"`
}

type changeXML struct {
	Action            string     `xml:"Action"`
	ResourceRecordSet *RecordSet `xml:"ResourceRecordSet"`
}

type changeInfoXML struct {
	ID          string `xml:"Id"`
	Status      string `xml:"Status"`
	SubmittedAt string `xml:"SubmittedAt"`
	Comment     string `xml:"Comment,omitempty"`
}

type hostedZoneXML struct {
	ID                     string         `xml:"Id"`
	Name                   string         `xml:"Name"`
	CallerReference        string         `xml:"CallerReference"`
	Config                 *zoneConfigXML `xml:"Config,omitempty"`
	ResourceRecordSetCount int            `xml:"ResourceRecordSetCount"`
}

type zoneConfigXML struct {
	Comment     string `xml:"Comment,omitempty"`
	PrivateZone bool   `xml:"PrivateZone"`
}

type vpcXML struct {
	VPCRegion string `xml:"VPCRegion,omitempty"`
	VPCId     string `xml:"VPCId,omitempty"`
}

type delegationSetXML struct {
	NameServers []string `xml:"NameServers>NameServer"`
}

type createHostedZoneRequest struct {
	XMLName          xml.Name `xml:"CreateHostedZoneRequest"`
	Name             string   `xml:"Name"`
	CallerReference  string   `xml:"CallerReference"`
	HostedZoneConfig *struct {
		Comment     *string `xml:"Comment"`
		PrivateZone *string `xml:"PrivateZone"`
	} `xml:"HostedZoneConfig"`
	VPC             *vpcXML `xml:"VPC"`
	DelegationSetID string  `xml:"DelegationSetId"`
}

type tagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type resourceTagSetXML struct {
	ResourceType string   `xml:"ResourceType"`
	ResourceID   string   `xml:"ResourceId"`
	Tags         []tagXML `xml:"Tags>Tag"`
}

type changeTagsRequest struct {
	XMLName       xml.Name `xml:"ChangeTagsForResourceRequest"`
	AddTags       []tagXML `xml:"AddTags>Tag"`
	RemoveTagKeys []string `xml:"RemoveTagKeys>Key"`
}

type listTagsForResourcesRequest struct {
	XMLName     xml.Name `xml:"ListTagsForResourcesRequest"`
	ResourceIDs []string `xml:"ResourceIds>ResourceId"`
}
