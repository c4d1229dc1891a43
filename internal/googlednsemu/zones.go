package googlednsemu

import (
	"net/http"
	"strconv"
	"time"
)

// JSON shapes of the discovery schemas ManagedZone and friends. Only fields
// the emulator has values for are written; "kind" is written as Google does.
type zoneJSON struct {
	Kind                    string             `json:"kind"`
	Name                    string             `json:"name"`
	DNSName                 string             `json:"dnsName"`
	Description             string             `json:"description"`
	ID                      string             `json:"id"`
	NameServers             []string           `json:"nameServers,omitempty"`
	CreationTime            string             `json:"creationTime"`
	Visibility              string             `json:"visibility"`
	Labels                  map[string]string  `json:"labels,omitempty"`
	PrivateVisibilityConfig *privateConfigJSON `json:"privateVisibilityConfig,omitempty"`
	PeeringConfig           *peeringConfigJSON `json:"peeringConfig,omitempty"`
	CloudLoggingConfig      *kindOnlyJSON      `json:"cloudLoggingConfig,omitempty"`
}

type kindOnlyJSON struct {
	Kind string `json:"kind"`
}

type networkJSON struct {
	Kind       string `json:"kind"`
	NetworkURL string `json:"networkUrl"`
}

type privateConfigJSON struct {
	Kind     string        `json:"kind"`
	Networks []networkJSON `json:"networks"`
}

type peeringConfigJSON struct {
	Kind          string      `json:"kind"`
	TargetNetwork networkJSON `json:"targetNetwork"`
}

type zonesListJSON struct {
	Kind          string     `json:"kind"`
	ManagedZones  []zoneJSON `json:"managedZones"`
	NextPageToken string     `json:"nextPageToken,omitempty"`
}

func formatID(id uint64) string { return strconv.FormatUint(id, 10) }

// rfc3339Millis is the timestamp format of Cloud DNS resources.
const rfc3339Millis = "2006-01-02T15:04:05.000Z07:00"

func renderZone(z *zone) zoneJSON {
	out := zoneJSON{
		Kind: "dns#managedZone", Name: z.name, DNSName: z.dnsName, Description: z.description,
		ID: formatID(z.id), NameServers: z.nameServers, CreationTime: z.created.Format(rfc3339Millis),
		Visibility: z.visibility, Labels: z.labels,
		CloudLoggingConfig: &kindOnlyJSON{Kind: "dns#managedZoneCloudLoggingConfig"},
	}
	if z.visibility == "private" {
		pc := &privateConfigJSON{Kind: "dns#managedZonePrivateVisibilityConfig", Networks: []networkJSON{}}
		for _, n := range z.networks {
			pc.Networks = append(pc.Networks, networkJSON{Kind: "dns#managedZonePrivateVisibilityConfigNetwork", NetworkURL: n})
		}
		out.PrivateVisibilityConfig = pc
	}
	if z.peeringTarget != "" {
		out.PeeringConfig = &peeringConfigJSON{Kind: "dns#managedZonePeeringConfig",
			TargetNetwork: networkJSON{Kind: "dns#managedZonePeeringConfigTargetNetwork", NetworkURL: z.peeringTarget}}
	}
	return out
}

// listZones is managedZones.list: zones by name, filtered by dnsName
// (exact, trailing dot optional, case-insensitive), paged.
func (s *Server) listZones(rq *request) (any, *apiError) {
	dnsName := ""
	if v := rq.query.Get("dnsName"); v != "" {
		var ok bool
		if dnsName, ok = canonicalName(v); !ok {
			return nil, newErr(http.StatusBadRequest, "invalid", "Invalid value for 'parameters.dnsName': '"+v+"'")
		}
	}
	size, e := s.pageSize(rq)
	if e != nil {
		return nil, e
	}
	after, e := readPageToken(rq, "zones|"+dnsName)
	if e != nil {
		return nil, e
	}
	out := zonesListJSON{Kind: "dns#managedZonesListResponse", ManagedZones: []zoneJSON{}}
	for _, z := range rq.project.zonesSorted() {
		if (dnsName != "" && z.dnsName != dnsName) || (after != "" && z.name <= after) {
			continue
		}
		if len(out.ManagedZones) == size {
			out.NextPageToken = makePageToken("zones|"+dnsName, out.ManagedZones[size-1].Name)
			break
		}
		out.ManagedZones = append(out.ManagedZones, renderZone(z))
	}
	return out, nil
}

// zoneParam resolves the managedZone path parameter (name or id).
func zoneParam(rq *request) (*zone, *apiError) {
	ref := rq.params["managedZone"]
	z := rq.project.findZone(ref)
	if z == nil {
		return nil, newErr(http.StatusNotFound, "notFound", "The 'parameters.managedZone' resource named '"+ref+"' does not exist.")
	}
	return z, nil
}

// getZone is managedZones.get.
func (s *Server) getZone(rq *request) (any, *apiError) {
	z, e := zoneParam(rq)
	if e != nil {
		return nil, e
	}
	return renderZone(z), nil
}

// nowMillis truncates a time to what the API shows.
func nowMillis(t time.Time) time.Time { return t.Truncate(time.Millisecond) }
