# Developer entry points. CI runs ./hack/test.sh directly (.ci/run); `make test` is the same command.

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE ?= ghcr.io/zonekeeper/zonekeeper
CONTAINER_TOOL ?= docker
BIN ?= bin/zonekeeper
GOOS ?= $(shell go env GOOS)
GOARCH ?= $(shell go env GOARCH)

# A static binary (no cgo), without local paths, with the version stamped in `zonekeeper version`.
LDFLAGS := -s -w -X github.com/zonekeeper/zonekeeper/internal/app.Version=$(VERSION)

# The platforms `make release` and `make binaries` build.
PLATFORMS ?= linux/amd64,linux/arm64

.PHONY: build binaries test image release chart-lint

build:
	CGO_ENABLED=0 GOOS=$(GOOS) GOARCH=$(GOARCH) go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/zonekeeper

test:
	./hack/test.sh

# Needs a running container engine (docker or podman: CONTAINER_TOOL=podman). Without one this stops with a
# clear message instead of pretending an image was built.
image:
	@$(CONTAINER_TOOL) info >/dev/null 2>&1 || { echo "make image: no $(CONTAINER_TOOL) engine is reachable, so no image was built (set CONTAINER_TOOL, or build elsewhere)" >&2; exit 1; }
	$(CONTAINER_TOOL) build --build-arg VERSION=$(VERSION) -t $(IMAGE):$(VERSION) .

# One manifest list IMAGE:VERSION holding an image per platform of PLATFORMS. The Dockerfile's build stage
# runs on the builder's platform and cross-compiles, so no emulation is needed. podman keeps the list in
# local storage (publish it with `podman manifest push --all IMAGE:VERSION docker://IMAGE:VERSION`);
# docker needs buildx and pushes at once, as its local image store holds no lists.
release:
	@$(CONTAINER_TOOL) info >/dev/null 2>&1 || { echo "make release: no $(CONTAINER_TOOL) engine is reachable, so no image was built (set CONTAINER_TOOL, or build elsewhere)" >&2; exit 1; }
ifeq ($(CONTAINER_TOOL),podman)
	podman build --platform $(PLATFORMS) --build-arg VERSION=$(VERSION) --manifest $(IMAGE):$(VERSION) .
else
	$(CONTAINER_TOOL) buildx build --platform $(PLATFORMS) --build-arg VERSION=$(VERSION) -t $(IMAGE):$(VERSION) --push .
endif

# The static binary of every platform of PLATFORMS: bin/zonekeeper-linux-amd64, bin/zonekeeper-linux-arm64.
binaries:
	@for p in $(subst $(comma), ,$(PLATFORMS)); do \
		$(MAKE) --no-print-directory build GOOS=$${p%/*} GOARCH=$${p#*/} BIN=bin/zonekeeper-$${p%/*}-$${p#*/} || exit 1; \
	done

comma := ,

# helm comes from hack/testbed.sh (there is no Helm package in Debian).
chart-lint:
	$${ZONEKEEPER_TESTBIN:-$${XDG_CACHE_HOME:-$$HOME/.cache}/zonekeeper/testbin}/helm lint charts/zonekeeper
