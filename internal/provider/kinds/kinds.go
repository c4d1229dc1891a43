// Package kinds is the one table of provider kinds: every value --provider takes. A provider lives in
// its own directory, where it declares its kind on the struct of its settings (kind.go), and adds one
// line here: its settings in Settings. Flag parsing, validation, --help, the app and the docs tests
// read this table.
package kinds

import (
	"fmt"
	"reflect"

	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/provider/azure"
	"github.com/zonekeeper/zonekeeper/internal/provider/builtin"
	"github.com/zonekeeper/zonekeeper/internal/provider/cloudflare"
	"github.com/zonekeeper/zonekeeper/internal/provider/coredns"
	"github.com/zonekeeper/zonekeeper/internal/provider/google"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/pdns"
	"github.com/zonekeeper/zonekeeper/internal/provider/rfc2136"
	"github.com/zonekeeper/zonekeeper/internal/provider/webhook"
)

// Settings are the settings of every kind, one embedded struct each, in the order --help and the
// error messages list the kinds. config.Config embeds Settings, so a provider's setting reads as
// cfg.AWSRegion.
type Settings struct {
	aws.AWSFlags
	coredns.CoreDNSFlags
	rfc2136.RFC2136Flags
	pdns.PDNSFlags
	cloudflare.CloudflareFlags
	google.GoogleFlags
	azure.AzureFlags
	builtin.BuiltinFlags
	inmemory.InMemoryFlags
	webhook.WebhookFlags
}

// multiKind is the settings of several kinds that share flags (azure and azure-private-dns): the
// first kind binds them.
type multiKind interface {
	Kinds() []provider.Kind
}

// All returns every kind, bound to its part of s.
func All(s *Settings) []provider.Kind {
	v := reflect.ValueOf(s).Elem()
	var out []provider.Kind
	for i := range v.NumField() {
		out = append(out, kindsOf(v.Type().Field(i).Name, v.Field(i).Addr().Interface())...)
	}
	return out
}

// kindsOf returns the kinds one field of Settings declares.
func kindsOf(field string, settings any) []provider.Kind {
	switch f := settings.(type) {
	case multiKind:
		return f.Kinds()
	case provider.Settings:
		return []provider.Kind{f.Kind()}
	}
	panic(fmt.Sprintf("kinds.Settings field %s has no Kind or Kinds method", field))
}

// SetDefaults sets every kind's settings to their defaults.
func SetDefaults(s *Settings) {
	for _, k := range All(s) {
		k.Defaults()
	}
}

// Lookup returns the kind that name (a name or an alias) selects, bound to s.
func Lookup(s *Settings, name string) (provider.Kind, bool) {
	for _, k := range All(s) {
		if k.Is(name) {
			return k, true
		}
	}
	return provider.Kind{}, false
}

// Names returns the name of every kind, in table order.
func Names() []string {
	var out []string
	for _, k := range All(&Settings{}) {
		out = append(out, k.Name)
	}
	return out
}
