package source

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// AccessError says why a resource a source reads cannot be read: the API server does not serve it
// (its CRD is not installed), or RBAC does not grant the verbs. The message names both, so that the
// fix is a copy and paste away.
type AccessError struct {
	Resource Resource
	// NotServed: discovery does not list the resource (a CRD that is not installed).
	NotServed bool
	// Verbs RBAC denies (list, watch), in Namespace ("" for the cluster scope).
	Verbs     []string
	Namespace string
}

func (e *AccessError) Error() string {
	if e.NotServed {
		return fmt.Sprintf("the API server does not serve %s/%s %s (is its CRD installed?)", groupOrCore(e.Resource.Group), e.Resource.Version, e.Resource.Resource)
	}
	scope := "at the cluster scope"
	if e.Namespace != "" {
		scope = "in namespace " + e.Namespace
	}
	return fmt.Sprintf("RBAC does not allow %s on %s %s (grant apiGroups [%q] resources [%q] verbs [get, list, watch])",
		strings.Join(e.Verbs, ", "), e.Resource, scope, e.Resource.Group, e.Resource.Resource)
}

func groupOrCore(g string) string {
	if g == "" {
		return "core"
	}
	return g
}

// CheckAccess asks the API server, before any informer starts, whether each resource is served
// (discovery) and whether this identity may list and watch it (SelfSubjectAccessReview, which every
// authenticated identity may create). Without it a missing permission shows up only as a cache that
// never syncs. A review that cannot be made is not held against the resource: the informer's own
// error handling still catches a refusal.
func CheckAccess(ctx context.Context, kube kubernetes.Interface, namespace string, resources []Resource) []*AccessError {
	var out []*AccessError
	for _, r := range resources {
		gv := r.Version
		if r.Group != "" {
			gv = r.Group + "/" + r.Version
		}
		list, err := kube.Discovery().ServerResourcesForGroupVersion(gv)
		if err != nil || !servesResource(list, r.Resource) {
			out = append(out, &AccessError{Resource: r, NotServed: true})
			continue
		}
		ns := namespace
		if r.ClusterScoped {
			ns = ""
		}
		var denied []string
		for _, verb := range []string{"list", "watch"} { // what an informer does
			review, err := kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: ns, Verb: verb, Group: r.Group, Version: r.Version, Resource: r.Resource,
				}},
			}, metav1.CreateOptions{})
			if err == nil && !review.Status.Allowed {
				denied = append(denied, verb)
			}
		}
		if len(denied) > 0 {
			out = append(out, &AccessError{Resource: r, Verbs: denied, Namespace: ns})
		}
	}
	return out
}
