package events

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// publishedIn lists the Published Events of a namespace: those on objects (by name) and the
// summaries on the Namespace (the count each names).
func publishedIn(t *testing.T, kube kubernetes.Interface, namespace string) (perObject []string, summaries []int) {
	t.Helper()
	list, err := kube.CoreV1().Events(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := regexp.MustCompile(`^Published: (\d+) objects in namespace `)
	for _, e := range list.Items {
		if e.Reason != ReasonPublished {
			continue
		}
		if e.InvolvedObject.Kind != "Namespace" {
			perObject = append(perObject, e.InvolvedObject.Name)
			continue
		}
		m := count.FindStringSubmatch(e.Message)
		if m == nil {
			t.Fatalf("summary Event without a count: %q", e.Message)
		}
		n, _ := strconv.Atoi(m[1])
		summaries = append(summaries, n)
	}
	return perObject, summaries
}

func publish(n *Notifier, namespace string, objects int) {
	for i := range objects {
		n.Published(fmt.Sprintf("service/%s/svc%04d", namespace, i), []*endpoint.Endpoint{
			endpoint.New(fmt.Sprintf("svc%04d.%s.example.com", i, namespace), endpoint.RecordTypeA, "192.0.2.1")})
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// A first sync or a mass change publishes records for many objects at once. One Event per object
// was 20,000 Events for 20,000 Ingresses: an hour of writes at the client's rate, and client-go's
// broadcaster dropped all but about 1,000 of them without a word. Past PerObjectEvents in a window
// the objects are told by one summary Event per namespace, and every object is counted.
func TestBulkPublishIsSummarisedPerNamespace(t *testing.T) {
	api := testbed.StartKubeAPIServer(t)
	kube := api.Client(t)
	ctx := context.Background()
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("over the budget: per-object Events up to it, then one summary per namespace", func(t *testing.T) {
		var logged strings.Builder
		n, err := New(api.Config, servicesByName{}, slog.New(slog.NewTextHandler(&logged, nil)))
		if err != nil {
			t.Fatal(err)
		}
		n.budget.window = 3 * time.Second // the summaries are written when the window closes, not at Stop
		defer n.Stop()
		const inDefault, inTeamB = 180, 120
		publish(n, "default", inDefault)
		publish(n, "team-b", inTeamB)

		deadline := time.Now().Add(60 * time.Second)
		for {
			objA, sumA := publishedIn(t, kube, "default")
			objB, sumB := publishedIn(t, kube, "team-b")
			if len(sumA) == 1 && len(sumB) == 1 && len(objA)+len(objB) == PerObjectEvents {
				if got := len(objA) + sumA[0]; got != inDefault {
					t.Errorf("default: %d per-object + %d summarised = %d, want %d", len(objA), sumA[0], got, inDefault)
				}
				if got := len(objB) + sumB[0]; got != inTeamB {
					t.Errorf("team-b: %d per-object + %d summarised = %d, want %d", len(objB), sumB[0], got, inTeamB)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("default: %d per-object Events, summaries %v; team-b: %d, summaries %v; want %d per-object in all and one summary each",
					len(objA), sumA, len(objB), sumB, PerObjectEvents)
			}
			time.Sleep(500 * time.Millisecond)
		}
		if !strings.Contains(logged.String(), "summarised=200") {
			t.Errorf("the log does not say that 200 objects were summarised:\n%s", logged.String())
		}
	})

	t.Run("summaries still pending are written at Stop (--once)", func(t *testing.T) {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-c"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		n, err := New(api.Config, servicesByName{}, quietLog())
		if err != nil {
			t.Fatal(err)
		}
		publish(n, "team-c", PerObjectEvents+30)
		n.Stop()
		obj, sums := publishedIn(t, kube, "team-c")
		if len(obj) != PerObjectEvents || len(sums) != 1 || sums[0] != 30 {
			t.Errorf("%d per-object Events and summaries %v; want %d and [30]", len(obj), sums, PerObjectEvents)
		}
	})

	t.Run("a held mass change is told at once, after a bulk publish spent the budget", func(t *testing.T) {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-e"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		n, err := New(api.Config, servicesByName{}, quietLog())
		if err != nil {
			t.Fatal(err)
		}
		defer n.Stop()
		publish(n, "team-e", PerObjectEvents+1)
		n.Held([]string{"team-e"}, "held")
		deadline := time.Now().Add(30 * time.Second)
		for {
			list, err := kube.CoreV1().Events("team-e").List(ctx, metav1.ListOptions{FieldSelector: "reason=" + ReasonMassChangeHeld})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d MassChangeHeld Events in team-e 30 s after Held (the window is %s), want 1", len(list.Items), BudgetWindow)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("a small publish gets one Event per object as before", func(t *testing.T) {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-d"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		n, err := New(api.Config, servicesByName{}, quietLog())
		if err != nil {
			t.Fatal(err)
		}
		publish(n, "team-d", 40)
		n.Stop()
		list, err := kube.CoreV1().Events("team-d").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 40 {
			t.Fatalf("%d Events, want 40", len(list.Items))
		}
		for _, e := range list.Items {
			want := fmt.Sprintf("Published %s.team-d.example.com A 192.0.2.1", e.InvolvedObject.Name)
			if e.Reason != ReasonPublished || e.InvolvedObject.Kind != "Service" || e.Message != want || e.Type != corev1.EventTypeNormal {
				t.Errorf("Event %s %s on %s/%s: %q; want Normal Published on the Service: %q",
					e.Type, e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message, want)
			}
		}
	})
}
