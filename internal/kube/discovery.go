package kube

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServerResourcesForGroupVersion is the API server's list of the resources of one group version
// ("v1", "externaldns.k8s.io/v1alpha1"), as discovery's call of that name returns it. A group version
// the server does not serve is a NotFound error.
func (c *Client) ServerResourcesForGroupVersion(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error) {
	path := "/apis/" + groupVersion
	if groupVersion == "v1" {
		path = "/api/v1"
	}
	raw, err := c.Core.Get().AbsPath(path).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	list := &metav1.APIResourceList{}
	if err := json.Unmarshal(raw, list); err != nil {
		return nil, fmt.Errorf("discovery of %s: %w", groupVersion, err)
	}
	if list.GroupVersion == "" {
		list.GroupVersion = groupVersion // the core group's answer may leave it out
	}
	return list, nil
}
