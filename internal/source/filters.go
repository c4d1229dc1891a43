package source

import (
	"k8s.io/apimachinery/pkg/labels"
)

// admitsObject applies the filters every source shares: --namespace, --label-filter,
// --annotation-filter and the controller annotation.
func (c *compiled) admitsObject(o *objectInput, objLabels map[string]string) bool {
	if c.Namespace != "" && o.ref.Namespace != c.Namespace {
		return false
	}
	if c.labelSelector != nil && !c.labelSelector.Matches(labels.Set(objLabels)) {
		return false
	}
	if c.annotationSelector != nil && !c.annotationSelector.Matches(labels.Set(o.annotations)) {
		return false
	}
	if o.skippedByController() {
		return false
	}
	o.reportShadowed()
	return true
}

// admitsIngressClass applies --ingress-class: spec.ingressClassName, or the legacy
// kubernetes.io/ingress.class annotation when the field is empty.
func (c *compiled) admitsIngressClass(className *string, annotations map[string]string) bool {
	if c.ingressClasses == nil {
		return true
	}
	class := ""
	if className != nil && *className != "" {
		class = *className
	} else {
		class = annotations[ingressClassAnnotation]
	}
	return c.ingressClasses[class]
}
