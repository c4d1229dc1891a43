package source

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An update event plans something only when the object as the cache holds it changed: not for an
// informer's relist (the same resourceVersion), not for a node heartbeat once the transform dropped
// the conditions, but for a new address, label or annotation.
func TestUnchangedUpdatesAreDropped(t *testing.T) {
	transform := nodePodTransform()
	node := func(rv, address string, heartbeat int64) any {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: rv, Labels: map[string]string{"zone": "a"}},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: address}},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Unix(heartbeat, 0)}}}}
		out, err := transform(n)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	labelled := node("3", "198.51.100.1", 1).(*corev1.Node).DeepCopy()
	labelled.ResourceVersion, labelled.Labels = "4", map[string]string{"zone": "b"}
	for _, tc := range []struct {
		name     string
		old, obj any
		want     bool
	}{
		{"relist", node("1", "198.51.100.1", 1), node("1", "198.51.100.1", 1), true},
		{"heartbeat", node("1", "198.51.100.1", 1), node("2", "198.51.100.1", 2), true},
		{"new address", node("2", "198.51.100.1", 2), node("3", "198.51.100.2", 2), false},
		{"new label", node("3", "198.51.100.1", 1), labelled, false},
		{"not an object", "x", "x", false},
	} {
		if got := unchanged(tc.old, tc.obj); got != tc.want {
			t.Errorf("%s: unchanged = %v, want %v", tc.name, got, tc.want)
		}
	}
}
