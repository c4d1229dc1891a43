package app

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider/webhook"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// `zonekeeper webhook` adjusts a client's desired endpoints as the served kind reads them: external-dns
// as a webhook client keeps alias and webhook/ properties (and a client may send any other), and a kind
// that does not read one lists the record without it, so the client rewrote the record on every run.
// --provider=inmemory reads none: each is dropped, and logged the first time it is sent (the server has
// no object to report it on), and record-type (no provider's) is kept.
func TestWebhookServerDropsPropertiesItsKindDoesNotRead(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", testbed.FreePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	log := &testbed.LogBuffer{}
	go func() {
		done <- Main(ctx, []string{"webhook", "--provider=inmemory", "--inmemory-zone=example.com", "--webhook-server-address=" + addr,
			fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t))}, &bytes.Buffer{}, log, os.Getenv)
	}()
	defer func() { cancel(); <-done }()
	testbed.Eventually(t, 10*time.Second, "zonekeeper webhook listening", func() error {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	client, err := webhook.New(webhook.Config{URL: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	in := endpoint.NewWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.1").
		WithProviderSpecific("alias", "true").WithProviderSpecific("webhook/zone-tag", "blue").
		WithProviderSpecific("aws/weight", "10").WithProviderSpecific("record-type", "ptr")
	for range 2 {
		out, err := client.AdjustEndpoints(context.Background(), []*endpoint.Endpoint{in})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || fmt.Sprint(out[0].ProviderSpecific) != "[{record-type ptr}]" {
			t.Errorf("adjusted %v, want web.example.com with record-type only", out)
		}
	}
	for _, name := range []string{"alias", "webhook/zone-tag", "aws/weight"} {
		if n := strings.Count(log.String(), "property="+name+" "); n != 1 {
			t.Errorf("%s logged %d times, want once (sent twice):\n%s", name, n, log.String())
		}
	}
	if strings.Contains(log.String(), "property=record-type") {
		t.Errorf("record-type logged:\n%s", log.String())
	}
}
