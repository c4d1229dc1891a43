# zonekeeper container image: a static binary on distroless, running as a non-root user.
# Build with `make image` (needs a container engine and a registry for the base images). CI, which reaches no
# registry, builds the same runtime layout FROM scratch with podman and runs the quickstart in it
# (test/image; docs/deploy.md).

# The build stage runs on the builder's own platform and cross-compiles, so multi-arch builds
# (docker buildx build --platform linux/amd64,linux/arm64) need no emulation.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first: this layer is reused while go.mod and go.sum do not change.
COPY go.mod go.sum ./
RUN go mod download
COPY Makefile ./
COPY cmd/ cmd/
COPY internal/ internal/
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=dev
# The same target developers run, so the image binary is built exactly as `make build` builds it.
RUN make build GOOS=$TARGETOS GOARCH=$TARGETARCH VERSION=$VERSION BIN=/out/zonekeeper

# distroless/static: no shell, no package manager, CA certificates and /etc/passwd only. The :nonroot
# tag runs as uid/gid 65532, the uid the Helm chart and the manifests expect.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/zonekeeper /zonekeeper
USER 65532:65532
# /metrics, /healthz and /readyz (--metrics-address).
EXPOSE 7979
ENTRYPOINT ["/zonekeeper"]
