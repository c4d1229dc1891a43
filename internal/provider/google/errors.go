package google

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/api/googleapi"
)

// apiError is an answer of the API that is an error: its status, Google's reasons and message. Its
// text names neither the credentials nor the request's body.
type apiError struct {
	status  int
	reasons []string
	message string
}

func (e *apiError) Error() string {
	msg := fmt.Sprintf("Cloud DNS answered HTTP %d", e.status)
	if len(e.reasons) > 0 {
		msg += " " + strings.Join(e.reasons, ",")
	}
	if e.message != "" {
		msg += ": " + e.message
	}
	return msg
}

// describeError turns an SDK error into an apiError; other errors pass.
func describeError(err error) error {
	var ge *googleapi.Error
	if err == nil || !errors.As(err, &ge) {
		return err
	}
	ae := &apiError{status: ge.Code, message: ge.Message}
	for _, it := range ge.Errors {
		if it.Reason != "" && !slices.Contains(ae.reasons, it.Reason) {
			ae.reasons = append(ae.reasons, it.Reason)
		}
	}
	return ae
}

// stale reports whether err says the change was planned against record sets that have moved since
// they were listed: a deletion that does not match (412 conditionNotMet), or is of a set that is gone
// (404), or an addition of a set that exists (409 alreadyExists).
func stale(err error) bool {
	var ae *apiError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.status {
	case http.StatusPreconditionFailed, http.StatusConflict, http.StatusNotFound:
		return true
	}
	return false
}

// refusal reports whether err is the API refusing the record sets sent: a 400, 404, 409 or 412, or a
// 403 quotaExceeded (a zone full, a change too large). Other 4xx (401, 403 on permissions, 429) are
// about the credentials or the budget, not the content.
func refusal(err error) bool {
	var ae *apiError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed:
		return true
	case http.StatusForbidden:
		return slices.Contains(ae.reasons, "quotaExceeded")
	}
	return false
}
