package source

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// AccessError says why a resource a source reads cannot be read: the API server does not serve it
// (its CRD is not installed), or RBAC does not grant the verbs. The message names both, so that the
// fix is a copy and paste away.
type AccessError struct {
	Resource Resource
	// NotServed: discovery does not list the resource (a CRD that is not installed).
	NotServed bool
	// Unasked: discovery failed for another reason (the API server unreachable, a 5xx), so whether it
	// serves the resource is not known. Reported as such: "not served (is its CRD installed?)" sent
	// users with a wrong --kubeconfig looking for a CRD.
	Unasked error
	// Verbs RBAC denies (list, watch), in Namespace ("" for the cluster scope).
	Verbs     []string
	Namespace string
}

func (e *AccessError) Error() string {
	if e.Unasked != nil {
		return fmt.Sprintf("cannot ask the API server whether it serves %s/%s %s: %v", groupOrCore(e.Resource.Group), e.Resource.Version, e.Resource.Resource, e.Unasked)
	}
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
func CheckAccess(ctx context.Context, kube *kube.Client, namespace string, resources []Resource) []*AccessError {
	return NewAccessChecker(kube).Check(ctx, namespace, resources)
}

// AccessChecker is CheckAccess with memory: kinds that read the same group versions and resources
// (five gateway-* kinds, service and istio) ask the API server once per start attempt round, which
// matters at the default --kube-api-qps=5. Answers are kept for ttl; a retry after that asks again.
type AccessChecker struct {
	kube *kube.Client
	ttl  time.Duration
	now  func() time.Time

	mu        sync.Mutex
	discovery map[string]cachedAnswer[*metav1.APIResourceList]
	reviews   map[string]cachedAnswer[bool]
}

type cachedAnswer[T any] struct {
	value T
	err   error
	at    time.Time
}

// NewAccessChecker returns a checker whose answers are good for 2 seconds: long enough to serve every
// kind of one start, short enough that a retry sees a CRD or role that appeared.
func NewAccessChecker(kube *kube.Client) *AccessChecker {
	return &AccessChecker{kube: kube, ttl: 2 * time.Second, now: time.Now,
		discovery: map[string]cachedAnswer[*metav1.APIResourceList]{}, reviews: map[string]cachedAnswer[bool]{}}
}

func (a *AccessChecker) resources(ctx context.Context, gv string) (*metav1.APIResourceList, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.discovery[gv]; ok && a.now().Sub(c.at) < a.ttl {
		return c.value, c.err
	}
	list, err := a.kube.ServerResourcesForGroupVersion(ctx, gv)
	a.discovery[gv] = cachedAnswer[*metav1.APIResourceList]{value: list, err: err, at: a.now()}
	return list, err
}

func (a *AccessChecker) allowed(ctx context.Context, attrs authorizationv1.ResourceAttributes) (bool, error) {
	key := attrs.Namespace + "|" + attrs.Verb + "|" + attrs.Group + "|" + attrs.Version + "|" + attrs.Resource
	a.mu.Lock()
	c, ok := a.reviews[key]
	a.mu.Unlock()
	if ok && a.now().Sub(c.at) < a.ttl {
		return c.value, c.err
	}
	review := &authorizationv1.SelfSubjectAccessReview{}
	err := a.kube.Authorization.Post().Resource("selfsubjectaccessreviews").Body(&authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs},
	}).Do(ctx).Into(review)
	allowed := err == nil && review.Status.Allowed
	a.mu.Lock()
	a.reviews[key] = cachedAnswer[bool]{value: allowed, err: err, at: a.now()}
	a.mu.Unlock()
	return allowed, err
}

// Check is CheckAccess through the checker's memory.
func (a *AccessChecker) Check(ctx context.Context, namespace string, resources []Resource) []*AccessError {
	var out []*AccessError
	for _, r := range resources {
		gv := r.Version
		if r.Group != "" {
			gv = r.Group + "/" + r.Version
		}
		list, err := a.resources(ctx, gv)
		if err != nil && !apierrors.IsNotFound(err) {
			out = append(out, &AccessError{Resource: r, Unasked: err})
			continue
		}
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
			allowed, err := a.allowed(ctx, authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Group: r.Group, Version: r.Version, Resource: r.Resource,
			})
			if err == nil && !allowed {
				denied = append(denied, verb)
			}
		}
		if len(denied) > 0 {
			out = append(out, &AccessError{Resource: r, Verbs: denied, Namespace: ns})
		}
	}
	return out
}
