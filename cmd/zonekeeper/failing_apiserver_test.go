package main

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// failingListAPIServer is an API server that lets --source=service start and then fails every list
// and watch: discovery serves the resources the service kind reads, every SelfSubjectAccessReview is
// allowed, and every other request is answered 500. The sources' informers (client-go's tools/cache
// reflector) then report their failing lists through utilruntime.HandleError, that is through klog.
// It stands in for kube-apiserver because a real one cannot be made to fail its lists on demand.
func failingListAPIServer(t *testing.T) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[` +
				`{"name":"services","namespaced":true,"kind":"Service","verbs":["get","list","watch"]},` +
				`{"name":"nodes","namespaced":false,"kind":"Node","verbs":["get","list","watch"]},` +
				`{"name":"pods","namespaced":true,"kind":"Pod","verbs":["get","list","watch"]}]}`))
		case r.Method == http.MethodGet && r.URL.Path == "/apis/discovery.k8s.io/v1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"discovery.k8s.io/v1","resources":[` +
				`{"name":"endpointslices","namespaced":true,"kind":"EndpointSlice","verbs":["get","list","watch"]}]}`))
		case r.Method == http.MethodPost && r.URL.Path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":true}}`))
		default:
			mu.Lock()
			if key := r.Method + " " + r.URL.Path; !seen[key] {
				seen[key] = true
				t.Logf("API server: answering 500 to %s", key)
			}
			mu.Unlock()
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the test fails every list","reason":"InternalError","code":500}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
