package route53emu

import (
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
)

// Zone-level XML responses.
type (
	listHostedZonesResponse struct {
		XMLName     xml.Name        `xml:"ListHostedZonesResponse"`
		Xmlns       string          `xml:"xmlns,attr"`
		HostedZones []hostedZoneXML `xml:"HostedZones>HostedZone"`
		Marker      string          `xml:"Marker,omitempty"`
		IsTruncated bool            `xml:"IsTruncated"`
		NextMarker  string          `xml:"NextMarker,omitempty"`
		MaxItems    string          `xml:"MaxItems"`
	}
	listHostedZonesByNameResponse struct {
		XMLName          xml.Name        `xml:"ListHostedZonesByNameResponse"`
		Xmlns            string          `xml:"xmlns,attr"`
		HostedZones      []hostedZoneXML `xml:"HostedZones>HostedZone"`
		DNSName          string          `xml:"DNSName,omitempty"`
		HostedZoneID     string          `xml:"HostedZoneId,omitempty"`
		IsTruncated      bool            `xml:"IsTruncated"`
		NextDNSName      string          `xml:"NextDNSName,omitempty"`
		NextHostedZoneID string          `xml:"NextHostedZoneId,omitempty"`
		MaxItems         string          `xml:"MaxItems"`
	}
	getHostedZoneResponse struct {
		XMLName       xml.Name          `xml:"GetHostedZoneResponse"`
		Xmlns         string            `xml:"xmlns,attr"`
		HostedZone    hostedZoneXML     `xml:"HostedZone"`
		DelegationSet *delegationSetXML `xml:"DelegationSet,omitempty"`
		VPCs          []vpcXML          `xml:"VPCs>VPC,omitempty"`
	}
	createHostedZoneResponse struct {
		XMLName       xml.Name          `xml:"CreateHostedZoneResponse"`
		Xmlns         string            `xml:"xmlns,attr"`
		HostedZone    hostedZoneXML     `xml:"HostedZone"`
		ChangeInfo    changeInfoXML     `xml:"ChangeInfo"`
		DelegationSet *delegationSetXML `xml:"DelegationSet,omitempty"`
		VPC           *vpcXML           `xml:"VPC,omitempty"`
	}
	deleteHostedZoneResponse struct {
		XMLName    xml.Name      `xml:"DeleteHostedZoneResponse"`
		Xmlns      string        `xml:"xmlns,attr"`
		ChangeInfo changeInfoXML `xml:"ChangeInfo"`
	}
	getChangeResponse struct {
		XMLName    xml.Name      `xml:"GetChangeResponse"`
		Xmlns      string        `xml:"xmlns,attr"`
		ChangeInfo changeInfoXML `xml:"ChangeInfo"`
	}
)

func (r createHostedZoneResponse) location() string {
	return "https://route53.amazonaws.com/2013-04-01" + r.HostedZone.ID
}

func (z *zone) xml() hostedZoneXML {
	h := hostedZoneXML{ID: "/hostedzone/" + z.id, Name: z.name, CallerReference: z.callerRef, ResourceRecordSetCount: z.count}
	if z.hasConfig || z.private {
		h.Config = &zoneConfigXML{PrivateZone: z.private}
		if z.comment != nil {
			h.Config.Comment = *z.comment
		}
	}
	return h
}

func (z *zone) delegationSet() *delegationSetXML {
	if z.private {
		return nil
	}
	return &delegationSetXML{NameServers: append([]string(nil), z.nameServers...)}
}

// zonesByID lists zones in id order; ListHostedZones pages with the id as
// marker, so a marker whose zone was deleted still works.
func (st *state) zonesByID() []*zone {
	out := make([]*zone, 0, len(st.zones))
	for _, z := range st.zones {
		out = append(out, z)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (s *Server) listHostedZones(req request) (int, any, *apiError) {
	q := req.http.URL.Query()
	max, echo, e := parseMaxItems(q, 100, 100)
	if e != nil {
		return 0, nil, e
	}
	if d := q.Get("delegationsetid"); d != "" {
		return 0, nil, newErr(http.StatusNotFound, "NoSuchDelegationSet", "A reusable delegation set with the specified ID does not exist: "+d)
	}
	privateOnly := false
	switch t := q.Get("hostedzonetype"); t {
	case "":
	case "PrivateHostedZone":
		privateOnly = true
	default:
		return 0, nil, invalidInput("1 validation error detected: Value '" + t + "' at 'hostedZoneType' failed to satisfy constraint: Member must satisfy enum value set: [PrivateHostedZone]")
	}
	marker := bareID(q.Get("marker"))
	var zones []*zone
	for _, z := range s.st.zonesByID() {
		if privateOnly && !z.private {
			continue
		}
		if marker != "" && z.id < marker {
			continue
		}
		zones = append(zones, z)
	}
	resp := listHostedZonesResponse{Xmlns: route53NS, Marker: q.Get("marker"), MaxItems: echo, HostedZones: []hostedZoneXML{}}
	for i, z := range zones {
		if i == max {
			resp.IsTruncated = true
			resp.NextMarker = z.id
			break
		}
		resp.HostedZones = append(resp.HostedZones, z.xml())
	}
	return http.StatusOK, resp, nil
}

func (s *Server) listHostedZonesByName(req request) (int, any, *apiError) {
	q := req.http.URL.Query()
	max, echo, e := parseMaxItems(q, 100, 100)
	if e != nil {
		return 0, nil, e
	}
	dnsName, startID := q.Get("dnsname"), bareID(q.Get("hostedzoneid"))
	if startID != "" && dnsName == "" {
		return 0, nil, invalidInput("Invalid request: hostedzoneid requires dnsname")
	}
	startKey := ""
	if dnsName != "" {
		n, err := normalizeName(dnsName)
		if err != nil {
			return 0, nil, newErr(400, "InvalidDomainName", dnsName+" is not a valid domain name")
		}
		startKey = sortKey(n)
	}
	zones := make([]*zone, 0, len(s.st.zones))
	for _, z := range s.st.zones {
		zones = append(zones, z)
	}
	sort.Slice(zones, func(i, j int) bool {
		a, b := sortKey(zones[i].name), sortKey(zones[j].name)
		if a != b {
			return a < b
		}
		return zones[i].id < zones[j].id
	})
	resp := listHostedZonesByNameResponse{Xmlns: route53NS, DNSName: dnsName, HostedZoneID: q.Get("hostedzoneid"), MaxItems: echo, HostedZones: []hostedZoneXML{}}
	n := 0
	for _, z := range zones {
		k := sortKey(z.name)
		if k < startKey || (k == startKey && startID != "" && z.id < startID) {
			continue
		}
		if n == max {
			resp.IsTruncated = true
			resp.NextDNSName = z.name
			resp.NextHostedZoneID = z.id
			break
		}
		resp.HostedZones = append(resp.HostedZones, z.xml())
		n++
	}
	return http.StatusOK, resp, nil
}

func (s *Server) getHostedZone(req request) (int, any, *apiError) {
	z, ok := s.st.zones[req.zoneID]
	if !ok {
		return 0, nil, noSuchHostedZone(req.zoneID)
	}
	resp := getHostedZoneResponse{Xmlns: route53NS, HostedZone: z.xml(), DelegationSet: z.delegationSet()}
	if z.private {
		resp.VPCs = append([]vpcXML(nil), z.vpcs...)
	}
	return http.StatusOK, resp, nil
}

// reservedZones are refused by real AWS; only with Options.RejectReservedNames.
var reservedZones = map[string]bool{"example.com.": true, "example.net.": true, "example.org.": true}

func (s *Server) createHostedZone(req request) (int, any, *apiError) {
	var in createHostedZoneRequest
	if err := xml.Unmarshal(req.body, &in); err != nil {
		return 0, nil, invalidInput("Invalid XML ; " + err.Error())
	}
	spec := zoneSpec{name: in.Name, callerRef: in.CallerReference, vpc: in.VPC}
	if in.HostedZoneConfig != nil {
		spec.hasConfig = true
		spec.comment = in.HostedZoneConfig.Comment
		if in.HostedZoneConfig.PrivateZone != nil {
			v, ok := Bool(*in.HostedZoneConfig.PrivateZone).value()
			if !ok {
				return 0, nil, invalidInput("Invalid XML ; cvc-datatype-valid.1.2.1: '" + *in.HostedZoneConfig.PrivateZone + "' is not a valid value for 'boolean'.")
			}
			spec.privateFlag = v
		}
	}
	if in.DelegationSetID != "" {
		return 0, nil, newErr(http.StatusNotFound, "NoSuchDelegationSet", "A reusable delegation set with the specified ID does not exist: "+in.DelegationSetID)
	}
	z, c, e := s.createZoneLocked(spec)
	if e != nil {
		return 0, nil, e
	}
	resp := createHostedZoneResponse{Xmlns: route53NS, HostedZone: z.xml(), ChangeInfo: c.info(s.now()), DelegationSet: z.delegationSet()}
	if z.private {
		v := z.vpcs[0]
		resp.VPC = &v
	}
	return http.StatusCreated, resp, nil
}

// zoneSpec is what CreateHostedZone and seeding need to make a zone.
type zoneSpec struct {
	id          string // optional fixed id (seeding)
	name        string
	callerRef   string
	hasConfig   bool
	comment     *string
	privateFlag bool
	vpc         *vpcXML
}

// createZoneLocked validates a zone and creates it with AWS's apex NS (4
// servers, TTL 172800) and SOA (TTL 900) sets.
func (s *Server) createZoneLocked(spec zoneSpec) (*zone, *change, *apiError) {
	if spec.name == "" {
		return nil, nil, invalidInput("1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null")
	}
	if n := len(spec.callerRef); n < 1 || n > 128 {
		return nil, nil, invalidInput(fmt.Sprintf("1 validation error detected: Value '%s' at 'callerReference' failed to satisfy constraint: Member must have length between 1 and 128", spec.callerRef))
	}
	if spec.comment != nil && len(*spec.comment) > 256 {
		return nil, nil, invalidInput("1 validation error detected: Value at 'hostedZoneConfig.comment' failed to satisfy constraint: Member must have length less than or equal to 256")
	}
	name, err := normalizeName(spec.name)
	if err != nil || name == "." || strings.HasPrefix(name, `\052`) {
		return nil, nil, newErr(400, "InvalidDomainName", spec.name+" is not a valid domain name")
	}
	if s.opts.RejectReservedNames && reservedZones[name] {
		return nil, nil, newErr(400, "InvalidDomainName", strings.TrimSuffix(name, ".")+" is reserved by AWS!")
	}
	if _, dup := s.st.callerRefs[spec.callerRef]; dup {
		return nil, nil, newErr(http.StatusConflict, "HostedZoneAlreadyExists", "A hosted zone has already been created with the specified caller reference.")
	}
	private := spec.vpc != nil
	if spec.privateFlag && !private {
		return nil, nil, newErr(400, "InvalidInput", "Invalid request: a private hosted zone needs a VPC (VPCId and VPCRegion)")
	}
	if private {
		if spec.vpc.VPCId == "" || spec.vpc.VPCRegion == "" {
			return nil, nil, newErr(400, "InvalidVPCId", "The VPC ID and VPC region are both required for a private hosted zone.")
		}
		if !strings.HasPrefix(spec.vpc.VPCId, "vpc-") || len(spec.vpc.VPCId) > 1024 {
			return nil, nil, newErr(400, "InvalidVPCId", "The VPC ID '"+spec.vpc.VPCId+"' is not valid.")
		}
		if !vpcRegions[spec.vpc.VPCRegion] {
			return nil, nil, invalidInput("Invalid XML ; cvc-enumeration-valid: Value '" + spec.vpc.VPCRegion + "' is not facet-valid with respect to enumeration of VPCRegion. It must be a value from the enumeration.")
		}
	}
	id := spec.id
	if id == "" {
		id = newID("Z")
	} else if _, taken := s.st.zones[id]; taken {
		return nil, nil, newErr(http.StatusConflict, "HostedZoneAlreadyExists", "A hosted zone with ID "+id+" already exists.")
	}
	s.st.nextSeq++
	z := &zone{id: id, name: name, callerRef: spec.callerRef, comment: spec.comment, hasConfig: spec.hasConfig,
		private: private, seq: s.st.nextSeq, sets: setsByName{}}
	if private {
		z.vpcs = []vpcXML{*spec.vpc}
	}
	z.nameServers = randomNameServers()
	ns := make([]ResourceRecord, len(z.nameServers))
	for i, n := range z.nameServers {
		ns[i] = ResourceRecord{Value: n + "."}
	}
	z.put(RecordSet{Name: name, Type: "NS", TTL: NumberOf(172800), ResourceRecords: &ResourceRecords{Items: ns}})
	soa := z.nameServers[0] + ". awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"
	z.put(RecordSet{Name: name, Type: "SOA", TTL: NumberOf(900), ResourceRecords: &ResourceRecords{Items: []ResourceRecord{{Value: soa}}}})
	s.st.zones[id] = z
	s.st.callerRefs[spec.callerRef] = id
	// Zone lifecycle changes carry no zone id: they never make the zone "busy".
	return z, s.newChangeLocked("", ""), nil
}

// put stores a normalised set (used at zone creation and commit).
func (z *zone) put(rs RecordSet) {
	k := keyOf(&rs)
	m := z.sets[k.Name]
	if m == nil {
		m = map[rrKey]*storedSet{}
		z.sets[k.Name] = m
	}
	if _, ok := m[k]; !ok {
		z.count++
	}
	m[k] = &storedSet{key: k, sort: sortKey(k.Name), set: rs}
	z.sorted = nil
}

func keyOf(rs *RecordSet) rrKey {
	k := rrKey{Name: rs.Name, Type: rs.Type}
	if rs.SetIdentifier != nil {
		k.SetID = *rs.SetIdentifier
	}
	return k
}

// randomNameServers returns four names in AWS's ns-NNNN.awsdns-NN.tld shape.
func randomNameServers() []string {
	tlds := []string{"com", "net", "org", "co.uk"}
	out := make([]string, 4)
	for i, tld := range tlds {
		out[i] = fmt.Sprintf("ns-%d.awsdns-%02d.%s", rand.IntN(2048), rand.IntN(64), tld)
	}
	return out
}

func (s *Server) newChangeLocked(zoneID, comment string) *change {
	now := s.now()
	c := &change{id: newID("C"), submitted: now, insyncAt: now.Add(s.opts.PropagationDelay), comment: comment, zoneID: zoneID}
	s.st.changes[c.id] = c
	return c
}

func (s *Server) deleteHostedZone(req request) (int, any, *apiError) {
	z, ok := s.st.zones[req.zoneID]
	if !ok {
		return 0, nil, noSuchHostedZone(req.zoneID)
	}
	for _, m := range z.sets {
		for k := range m {
			if !(k.Name == z.name && (k.Type == "SOA" || k.Type == "NS") && k.SetID == "") {
				return 0, nil, newErr(400, "HostedZoneNotEmpty", msgHostedZoneNotEmp)
			}
		}
	}
	delete(s.st.zones, z.id)
	delete(s.st.tags, "hostedzone/"+z.id)
	c := s.newChangeLocked("", "")
	return http.StatusOK, deleteHostedZoneResponse{Xmlns: route53NS, ChangeInfo: c.info(s.now())}, nil
}

func (s *Server) getChange(req request) (int, any, *apiError) {
	c, ok := s.st.changes[req.id]
	if !ok {
		return 0, nil, newErr(http.StatusNotFound, "NoSuchChange", "Could not find resource with ID: "+req.id)
	}
	return http.StatusOK, getChangeResponse{Xmlns: route53NS, ChangeInfo: c.info(s.now())}, nil
}
