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

# Side by side with external-dns (issue 15; the figures are in docs/benchmarks.md): for each N, N
# Ingresses in a real kube-apiserver, then the real external-dns (--events, its defaults otherwise) and
# then zonekeeper (bin/zonekeeper, built first, its defaults), each against an emptied Route 53 emulator;
# one table per N, also appended to BENCH_OUT. Hours at N=100k with the issue's 10-minute idle window;
# `make bench-side-by-side N=1k,20k IDLE=2m` is the short run. Not part of `make test`: the harness is
# behind the build tag sidebyside.
N ?= 1k,20k,100k
IDLE ?= 10m
CHANGES ?= 50
SETTLE ?= 10s
GAP ?= 6s
TOOLS ?= external-dns,zonekeeper
EXTERNAL_DNS ?= v0.23.0
BENCH_OUT ?= bin/side-by-side.md
BENCH_TIMEOUT ?= 8h
.PHONY: bench-side-by-side
bench-side-by-side: build
	ZONEKEEPER_TESTBIN=$$(./hack/testbed.sh | tail -n 1) SBS_N=$(N) SBS_IDLE=$(IDLE) SBS_CHANGES=$(CHANGES) \
	SBS_SETTLE=$(SETTLE) SBS_CHANGE_GAP=$(GAP) SBS_TOOLS=$(TOOLS) SBS_EXTERNAL_DNS=$(EXTERNAL_DNS) \
	SBS_ZONEKEEPER=$(abspath $(BIN)) SBS_OUT=$(abspath $(BENCH_OUT)) \
	go test -tags sidebyside -run '^TestSideBySide$$' -count=1 -v -timeout $(BENCH_TIMEOUT) ./test/bench/

# A million endpoints in one zonekeeper (issue 15; figures in docs/benchmarks.md): OBJECTS Ingresses
# of HOSTS host rules each in a real kube-apiserver, zonekeeper (bin/zonekeeper, its defaults but
# --provider=builtin) asked over DNS until every name is answered, then an idle window and CHANGES
# status-IP changes. `make bench-million OBJECTS=100 HOSTS=100` is the quick check. Table also in MILLION_OUT;
# ZK_ARGS adds flags (e.g. ZK_ARGS=--interval=10m).
OBJECTS ?= 10k
HOSTS ?= 100
MILLION_IDLE ?= 2m
MILLION_GAP ?= 2s
MILLION_OUT ?= bin/million.md
ZK_ARGS ?=
.PHONY: bench-million
bench-million: build
	ZONEKEEPER_TESTBIN=$$(./hack/testbed.sh | tail -n 1) MIL_OBJECTS=$(OBJECTS) MIL_HOSTS=$(HOSTS) \
	MIL_IDLE=$(MILLION_IDLE) MIL_CHANGES=$(CHANGES) MIL_CHANGE_GAP=$(MILLION_GAP) \
	MIL_ZONEKEEPER=$(abspath $(BIN)) MIL_OUT=$(abspath $(MILLION_OUT)) MIL_ARGS="$(ZK_ARGS)" \
	go test -tags sidebyside -run '^TestMillion$$' -count=1 -v -timeout $(BENCH_TIMEOUT) ./test/bench/
