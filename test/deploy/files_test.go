package deploy

import (
	"path"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// fileSource is where a file the container reads comes from: a key of a Secret or a ConfigMap.
type fileSource struct {
	kind, name, key string // kind: Secret or ConfigMap
}

// mountedFile resolves a path given in an argument to the Secret or ConfigMap key the kubelet puts there,
// through the container's volumeMounts and the pod's volumes; it fails the test when nothing is
// mounted at that path (zonekeeper would stop at start: file not found).
func mountedFile(t testing.TB, d *appsv1.Deployment, file string) fileSource {
	t.Helper()
	c := container(t, d)
	for _, m := range c.VolumeMounts {
		rel, ok := strings.CutPrefix(file, strings.TrimSuffix(m.MountPath, "/")+"/")
		if !ok {
			continue
		}
		if !m.ReadOnly {
			t.Errorf("volume %s is mounted read-write", m.Name)
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name != m.Name {
				continue
			}
			switch {
			case v.Secret != nil:
				for _, it := range v.Secret.Items {
					if path.Clean(it.Path) == rel {
						if mode := v.Secret.DefaultMode; mode == nil || *mode&0o007 != 0 {
							t.Errorf("Secret volume %s: files readable by others (defaultMode %v)", v.Name, mode)
						}
						return fileSource{"Secret", v.Secret.SecretName, it.Key}
					}
				}
			case v.ConfigMap != nil:
				for _, it := range v.ConfigMap.Items {
					if path.Clean(it.Path) == rel {
						return fileSource{"ConfigMap", v.ConfigMap.Name, it.Key}
					}
				}
			}
			t.Fatalf("%s: volume %s has no item at %s", file, v.Name, rel)
		}
		t.Fatalf("%s: volumeMount %s names no volume", file, m.Name)
	}
	t.Fatalf("%s: no volume is mounted there; mounts: %+v", file, c.VolumeMounts)
	return fileSource{}
}

// wantFileArg checks that flag has the one value (after an optional "VIEW=" prefix) that is a file
// mounted from want.
func wantFileArg(t testing.TB, d *appsv1.Deployment, flag, view string, want fileSource) {
	t.Helper()
	for _, v := range argValues(container(t, d).Args, flag) {
		if view != "" {
			var ok bool
			if v, ok = strings.CutPrefix(v, view+"="); !ok {
				continue
			}
		}
		if got := mountedFile(t, d, v); got != want {
			t.Errorf("--%s (%s): file comes from %+v, want %+v", flag, view, got, want)
		}
		return
	}
	t.Errorf("no --%s for %q in %v", flag, view, container(t, d).Args)
}
