package route53emu

import (
	"encoding/xml"
	"net/http"
	"strings"
)

// apiError is an AWS error response: code, message and HTTP status. Type is
// "Sender" for client faults and "Receiver" for server faults, as in AWS's
// envelope.
type apiError struct {
	Status  int
	Code    string
	Message string
	Type    string
	// RetryAfter is sent as the Retry-After header when set (an injected fault).
	RetryAfter string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func newErr(status int, code, msg string) *apiError {
	t := "Sender"
	if status >= 500 {
		t = "Receiver"
	}
	return &apiError{Status: status, Code: code, Message: msg, Type: t}
}

func invalidInput(msg string) *apiError { return newErr(400, "InvalidInput", msg) }

// invalidChangeBatch joins every semantic failure into one bracketed message,
// "[m1, m2]", the way Route 53 reports a rejected batch.
func invalidChangeBatch(msgs []string) *apiError {
	return newErr(400, "InvalidChangeBatch", "["+strings.Join(msgs, ", ")+"]")
}

func noSuchHostedZone(id string) *apiError {
	return newErr(http.StatusNotFound, "NoSuchHostedZone", "No hosted zone found with ID: "+id)
}

// Messages of errors injected as faults, from the Route 53 API reference.
const (
	msgThrottling       = "Rate exceeded"
	msgPriorRequest     = "The request was rejected because Route 53 was still processing a prior request."
	msgHostedZoneNotEmp = "The specified hosted zone contains non-required resource record sets and so cannot be deleted."
)

type errorResponseXML struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

// writeError writes the AWS error envelope. The SDK takes the request id from
// the x-amzn-RequestId header, so it is set there too (by the caller).
func writeError(w http.ResponseWriter, ns, requestID string, e *apiError) {
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	var body errorResponseXML
	body.Xmlns = ns
	body.Error.Type = e.Type
	body.Error.Code = e.Code
	body.Error.Message = e.Message
	body.RequestID = requestID
	writeXML(w, e.Status, body)
}

func writeXML(w http.ResponseWriter, status int, v any) {
	out, err := xml.Marshal(v)
	if err != nil {
		http.Error(w, "emulator: cannot encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`<?xml version="1.0"?>` + "\n"))
	_, _ = w.Write(out)
}
