package deploy

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// wantArgs fails the test for each expected argument missing from args.
func wantArgs(t testing.TB, args []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(args, w) {
			t.Errorf("args lack %s:\n  %s", w, strings.Join(args, "\n  "))
		}
	}
}

// noArgPrefix fails the test if any argument starts with prefix.
func noArgPrefix(t testing.TB, args []string, prefix string) {
	t.Helper()
	for _, a := range args {
		if strings.HasPrefix(a, prefix) {
			t.Errorf("unexpected argument %s", a)
		}
	}
}

// argValues returns the values given to a repeatable flag, in order.
func argValues(args []string, flag string) []string {
	var out []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+flag+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

func envVar(c corev1.Container, name string) (corev1.EnvVar, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e, true
		}
	}
	return corev1.EnvVar{}, false
}

// wantSecretEnv checks that name comes from a Secret key and has no literal value.
func wantSecretEnv(t testing.TB, c corev1.Container, name, secret, key string) {
	t.Helper()
	e, ok := envVar(c, name)
	if !ok {
		t.Errorf("env %s missing", name)
		return
	}
	if e.Value != "" {
		t.Errorf("env %s has a literal value: credentials must come from a Secret", name)
	}
	ref := e.ValueFrom
	if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != secret || ref.SecretKeyRef.Key != key {
		t.Errorf("env %s: want secretKeyRef %s/%s, got %+v", name, secret, key, ref)
	}
}

func wantEnvValue(t testing.TB, c corev1.Container, name, value string) {
	t.Helper()
	e, ok := envVar(c, name)
	if !ok || e.Value != value {
		t.Errorf("env %s: want %q, got %+v (present %v)", name, value, e, ok)
	}
}

// wantSecureDefaults checks the pod and container security settings every install gets: non-root, a
// read-only root filesystem, no privilege escalation, every capability dropped, the default seccomp
// profile; and the probes on the metrics port named http.
func wantSecureDefaults(t testing.TB, d *appsv1.Deployment) {
	t.Helper()
	pod := d.Spec.Template.Spec
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("pod securityContext.runAsNonRoot is not true")
	}
	if pod.SecurityContext == nil || pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod seccompProfile is not RuntimeDefault")
	}
	c := container(t, d)
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("container has no securityContext")
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Error("container runAsNonRoot is not true")
	case sc.RunAsUser == nil || *sc.RunAsUser == 0:
		t.Error("container runAsUser is not a non-root uid")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("container readOnlyRootFilesystem is not true")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("container allowPrivilegeEscalation is not false")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("container is privileged")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("container capabilities: want drop [ALL] and nothing added, got %+v", sc.Capabilities)
	}
	wantPorts(t, c)
	probe := func(what string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port.String() != "http" {
			t.Errorf("%s probe: want GET %s on port http, got %+v", what, path, p)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")
	wantArgs(t, c.Args, "--metrics-address=:7979")
	if e, ok := envVar(c, "POD_NAMESPACE"); !ok || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.namespace" {
		t.Errorf("env POD_NAMESPACE must come from metadata.namespace (the leader-election lease namespace), got %+v", e)
	}
}

// wantPorts checks the container's ports: http on 7979 and nothing else, or, with the built-in DNS
// server, also dns (UDP) and dns-tcp (TCP) on the unprivileged port --builtin-listen names. Port 53
// would need NET_BIND_SERVICE, which the container never has.
func wantPorts(t testing.TB, c corev1.Container) {
	t.Helper()
	want := []corev1.ContainerPort{{Name: "http", ContainerPort: 7979, Protocol: corev1.ProtocolTCP}}
	if slices.Contains(c.Args, "--provider=builtin") {
		listen := argValues(c.Args, "builtin-listen")
		if len(listen) != 1 || !strings.HasPrefix(listen[0], ":") {
			t.Fatalf("builtin: want one --builtin-listen=:PORT (all addresses), got %v", listen)
		}
		port, err := strconv.Atoi(strings.TrimPrefix(listen[0], ":"))
		if err != nil || port < 1024 {
			t.Fatalf("builtin: --builtin-listen=%s is not an unprivileged port", listen[0])
		}
		want = append(want,
			corev1.ContainerPort{Name: "dns", ContainerPort: int32(port), Protocol: corev1.ProtocolUDP},
			corev1.ContainerPort{Name: "dns-tcp", ContainerPort: int32(port), Protocol: corev1.ProtocolTCP})
	}
	if !slices.Equal(c.Ports, want) {
		t.Errorf("ports: want %+v, got %+v", want, c.Ports)
	}
}
