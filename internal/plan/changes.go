package plan

import "github.com/zonekeeper/zonekeeper/internal/endpoint"

// Changes is what a plan asks a provider to do. Its JSON is the body of the webhook protocol's
// POST /records: {"create":[],"updateOld":[],"updateNew":[],"delete":[]}.
// UpdateOld[i] and UpdateNew[i] describe the same record set before and after.
type Changes struct {
	Create    []*endpoint.Endpoint `json:"create"`
	UpdateOld []*endpoint.Endpoint `json:"updateOld"`
	UpdateNew []*endpoint.Endpoint `json:"updateNew"`
	Delete    []*endpoint.Endpoint `json:"delete"`
}

// HasChanges reports whether applying the changes would alter anything.
func (c *Changes) HasChanges() bool {
	if c == nil {
		return false
	}
	return len(c.Create) > 0 || len(c.Delete) > 0 || len(c.UpdateNew) > 0
}

// Len is the number of record set changes (an update counts once).
func (c *Changes) Len() int {
	if c == nil {
		return 0
	}
	return len(c.Create) + len(c.UpdateNew) + len(c.Delete)
}
