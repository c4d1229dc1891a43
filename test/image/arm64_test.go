package image

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// checkArm64Image is the linux/arm64 half of the image test (home labs run Raspberry Pis): it
// cross-compiles the static binary for arm64 (the suite's only arm64 build, so CI pays for it once),
// builds the same FROM-scratch image for linux/arm64 around it, and checks what such a machine would
// pull: the image's config says linux/arm64, the binary inside is a static aarch64 ELF, and it runs
// (`zonekeeper version`) under qemu-user-static, which hack/testbed.sh installs. Then the amd64 image
// (amd64Tag) and this one go into one manifest list, as `make release` builds it, listing both
// platforms. ctx is the amd64 build context (CA bundle, passwd, quickstart).
func checkArm64Image(t *testing.T, podman string, rt []string, ctx, amd64Tag string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"ca-certificates.crt", "passwd", "quickstart"} {
		run(t, ".", nil, "cp", "-r", filepath.Join(ctx, f), filepath.Join(dir, f))
	}
	start := time.Now()
	// -trimpath as `make build`: no other test builds for arm64, so nothing is lost, and the packages
	// compiled here stay in the build cache for the next clone, wherever it is checked out.
	run(t, repo("."), []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64"}, "go", "build", "-trimpath", "-ldflags",
		"-s -w -X github.com/zonekeeper/zonekeeper/internal/app.Version=image-test", "-o", filepath.Join(dir, "zonekeeper"), "./cmd/zonekeeper")
	t.Logf("arm64 cross-compile: %s", time.Since(start).Round(100*time.Millisecond))

	tag := amd64Tag + "-arm64"
	run(t, ".", nil, podman, append(rt, "build", "--quiet", "--platform", "linux/arm64", "-f", "Dockerfile.scratch", "-t", tag, dir)...)
	t.Cleanup(func() { _ = exec.Command(podman, "rmi", "-f", tag).Run() })
	if got := strings.TrimSpace(run(t, ".", nil, podman, "image", "inspect", "--format", "{{.Os}}/{{.Architecture}}", tag)); got != "linux/arm64" {
		t.Errorf("the arm64 image's config says %q", got)
	}

	// The binary as the image holds it, copied out of a container that is created, never started.
	cid := strings.TrimSpace(lastLine(run(t, ".", nil, podman, "create", tag)))
	t.Cleanup(func() { _ = exec.Command(podman, "rm", "-f", cid).Run() })
	bin := filepath.Join(t.TempDir(), "zonekeeper")
	run(t, ".", nil, podman, "cp", cid+":/zonekeeper", bin)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 || f.Class != elf.ELFCLASS64 {
		t.Errorf("the binary in the arm64 image is %v %v, want EM_AARCH64 ELFCLASS64", f.Machine, f.Class)
	}
	if slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP }) {
		t.Error("the binary in the arm64 image asks for a dynamic loader: it is not static")
	}
	size := strings.TrimSpace(run(t, ".", nil, podman, "image", "inspect", "--format", "{{.Size}}", tag))
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("arm64 image %s bytes; static binary %d bytes", size, st.Size())

	if qemu, ok := qemuAarch64(); ok {
		if out := run(t, ".", nil, qemu, bin, "version"); !strings.Contains(out, "image-test") {
			t.Errorf("zonekeeper version under %s: %q", qemu, out)
		}
	} else if os.Getenv("CI") == "true" {
		t.Error("qemu-aarch64-static is missing: run hack/testbed.sh")
	} else {
		t.Log("qemu-aarch64-static is missing (hack/testbed.sh installs it): the arm64 binary was not run")
	}

	list := amd64Tag + "-list"
	run(t, ".", nil, podman, "manifest", "create", list)
	t.Cleanup(func() { _ = exec.Command(podman, "manifest", "rm", list).Run() })
	for _, img := range []string{amd64Tag, tag} {
		run(t, ".", nil, podman, "manifest", "add", list, "containers-storage:"+img)
	}
	var index struct {
		Manifests []struct {
			Platform struct{ Architecture, OS string } `json:"platform"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal([]byte(run(t, ".", nil, podman, "manifest", "inspect", list)), &index); err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, m := range index.Manifests {
		platforms = append(platforms, m.Platform.OS+"/"+m.Platform.Architecture)
	}
	if slices.Sort(platforms); strings.Join(platforms, " ") != "linux/amd64 linux/arm64" {
		t.Errorf("the manifest list holds %v, want linux/amd64 and linux/arm64", platforms)
	}
}

// qemuAarch64 finds qemu-user-static's aarch64 emulator: in the testbed's bin directory, else on PATH.
func qemuAarch64() (string, bool) {
	if p := filepath.Join(testbed.BinDir(), "qemu-aarch64-static"); fileExists(p) {
		return p, true
	}
	p, err := exec.LookPath("qemu-aarch64-static")
	return p, err == nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// lastLine is the last non-empty line of out (podman create prints warnings before the id when the
// image's platform is not the host's).
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
