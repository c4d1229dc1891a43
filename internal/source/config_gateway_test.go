package source

import (
	"strings"
	"testing"
)

// A bad --gateway-label-filter fails the start, naming the flag, instead of a gateway source that
// keeps retrying.
func TestBadGatewayLabelFilterFailsAtStart(t *testing.T) {
	_, err := NewKernel(Config{GatewayLabelFilter: "a in (b"})
	if err == nil || !strings.Contains(err.Error(), "--gateway-label-filter") {
		t.Errorf("err %v, want one naming --gateway-label-filter", err)
	}
}
