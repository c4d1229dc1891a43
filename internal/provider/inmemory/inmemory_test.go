package inmemory_test

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		return conformance.Subject{Provider: inmemory.New(conformance.Zone)}
	})
}
