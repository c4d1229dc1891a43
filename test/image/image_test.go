// Package image builds zonekeeper's container image offline with podman and runs the quickstart in it.
package image

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// repo is the repository root (tests run in their package directory).
func repo(rel string) string { return filepath.Join("..", "..", rel) }

// run runs a command and returns its combined output; a failure ends the test.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// TestImageRunsTheQuickstart builds the static binary (CGO_ENABLED=0, as `make build` in the Dockerfile's
// build stage), the image around it (test/image/Dockerfile.scratch: the runtime layout of the Dockerfile's
// distroless stage, FROM scratch because no registry is reachable here), and runs the README's quickstart
// in it as uid 65532 with a read-only root filesystem, no capabilities and no network: it prints the
// quickstart's zone; `zonekeeper version` reports the stamped version; the chart's default image is the
// one `make image` tags. The same image for linux/arm64, and the manifest list of both, are checked by
// checkArm64Image (arm64_test.go).
func TestImageRunsTheQuickstart(t *testing.T) {
	podman := testbed.Binary(t, "podman")
	ctx := t.TempDir()
	// `make build`'s flags but -trimpath, which would make every package compile again instead of coming
	// from the build cache of the suite (hack/test.sh builds with CGO_ENABLED=0, as make build does).
	run(t, repo("."), []string{"CGO_ENABLED=0"}, "go", "build", "-ldflags",
		"-s -w -X github.com/zonekeeper/zonekeeper/internal/app.Version=image-test", "-o", filepath.Join(ctx, "zonekeeper"), "./cmd/zonekeeper")
	run(t, ".", nil, "cp", "/etc/ssl/certs/ca-certificates.crt", filepath.Join(ctx, "ca-certificates.crt"))
	run(t, ".", nil, "cp", "-r", repo("examples/quickstart"), filepath.Join(ctx, "quickstart"))
	if err := os.WriteFile(filepath.Join(ctx, "passwd"), []byte("nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("localhost/zonekeeper-image-test:%d", time.Now().UnixNano())
	rt := []string{"--runtime", "runc"}
	run(t, ".", nil, podman, append(rt, "build", "--quiet", "-f", "Dockerfile.scratch", "-t", tag, ctx)...)
	t.Cleanup(func() { _ = exec.Command(podman, "rmi", "-f", tag).Run() })

	out := run(t, ".", nil, podman, append(rt, "run", "--rm", "--read-only", "--user", "65532:65532", "--cap-drop=ALL",
		"--network=none", tag, "--source=manifest", "--manifest=/examples/quickstart", "--provider=inmemory",
		"--inmemory-zone=example.com", "--txt-owner-id=quickstart", "--policy=sync", "--once")...)
	for _, want := range []string{"dev1.example.com.", "external-dns/owner=quickstart", "external-dns/resource=ingress/default/nginx-test-ingress"} {
		if !strings.Contains(out, want) {
			t.Errorf("the quickstart in the image printed no %q:\n%s", want, out)
		}
	}
	version := run(t, ".", nil, podman, append(rt, "run", "--rm", "--network=none", tag, "version")...)
	if !strings.Contains(version, "image-test") {
		t.Errorf("zonekeeper version in the image: %q", version)
	}

	size := strings.TrimSpace(run(t, ".", nil, podman, "image", "inspect", "--format", "{{.Size}}", tag))
	bin, err := os.Stat(filepath.Join(ctx, "zonekeeper"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image %s bytes; static binary %d bytes (make build: -s -w, CGO_ENABLED=0)", size, bin.Size())
	checkArm64Image(t, podman, rt, ctx, tag)

	makefile, err := os.ReadFile(repo("Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	values, err := os.ReadFile(repo("charts/zonekeeper/values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	image := regexp.MustCompile(`(?m)^IMAGE \?= (\S+)`).FindSubmatch(makefile)
	repository := regexp.MustCompile(`(?m)^  repository: (\S+)`).FindSubmatch(values)
	if image == nil || repository == nil || string(image[1]) != string(repository[1]) {
		t.Errorf("make image tags %q, the chart pulls %q", image, repository)
	}
}
