#!/usr/bin/env bash
# Installs or builds the real servers the integration tests use, and caches them outside the repository so a
# second run costs nothing. Prints the cache directory on its last line. Idempotent.
#   etcd          Debian etcd-server
#   kube-apiserver built from the Go module k8s.io/kubernetes
#   coredns       built from the Go module github.com/coredns/coredns (includes the etcd and view plugins)
#   external-dns  built from the Go module sigs.k8s.io/external-dns v0.21.0 and v0.23.0: the reference peers for
#                 compatibility tests (v0.23.0 with Go 1.27, fetched by GOTOOLCHAIN from the module proxy)
#   named         Debian bind9 (RFC 2136 provider tests), with bind9-utils (tsig-keygen) and dig/nsupdate
#   pdns_server   Debian pdns-server with the sqlite3 backend (PowerDNS provider tests)
#   dnsperf       Debian dnsperf (DNS server benchmarks)
#   krb5kdc       Debian krb5-kdc and krb5-admin-server (kdb5_util, kadmin.local): a loopback Kerberos realm for GSS-TSIG
#   helm          built from the Go module helm.sh/helm/v3 (chart rendering tests)
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-1.34.4}
EXTERNAL_DNS_VERSION=${EXTERNAL_DNS_VERSION:-0.21.0}
# The second reference peer. Its go.mod needs Go 1.27, which the go command fetches from the module proxy.
EXTERNAL_DNS_NEXT_VERSION=${EXTERNAL_DNS_NEXT_VERSION:-0.23.0}
EXTERNAL_DNS_NEXT_TOOLCHAIN=${EXTERNAL_DNS_NEXT_TOOLCHAIN:-go1.27.3}
HELM_VERSION=${HELM_VERSION:-3.22.0}
COREDNS_VERSION=${COREDNS_VERSION:-1.12.1}
CACHE=${ZONEKEEPER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/zonekeeper/testbin}
mkdir -p "$CACHE"

log() { echo "testbed: $*" >&2; }

apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  # Servers in these packages (named, pdns_server) must not start on port 53 as system services: tests
  # start their own copies on loopback high ports. policy-rc.d answering 101 forbids the start.
  local policy=/usr/sbin/policy-rc.d created=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy" && created=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  [ -n "$created" ] && $sudo rm -f "$policy"
  return 0
}

build_kube_apiserver() {
  local out="$CACHE/kube-apiserver-v$KUBE_VERSION"
  [ -x "$out" ] && { ln -sf "kube-apiserver-v$KUBE_VERSION" "$CACHE/kube-apiserver"; return 0; }
  log "building kube-apiserver v$KUBE_VERSION (about 4 minutes on 2 cores)"
  local work; work=$(mktemp -d)
  local gomod
  gomod=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    echo "module kasbuild"
    echo
    echo "go 1.25"
    echo
    echo "require k8s.io/kubernetes v$KUBE_VERSION"
    echo
    # k8s.io/kubernetes replaces each staging module with a local directory; point each at its published
    # release instead (staging modules are versioned v0.X.Y for kubernetes v1.X.Y).
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*#replace \1 => \1 v0.'"${KUBE_VERSION#1.}"'#p' "$gomod"
  } >"$work/go.mod"
  cat >"$work/tools.go" <<'GO'
//go:build tools

package kasbuild

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
  (cd "$work" && go mod tidy >/dev/null 2>&1 && CGO_ENABLED=0 go build -trimpath -o "$out.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$out.tmp" "$out"
  ln -sf "kube-apiserver-v$KUBE_VERSION" "$CACHE/kube-apiserver"
  rm -rf "$work"
}

# go_install_cached NAME MODULE VERSION MINUTES: go install MODULE@vVERSION into the cache as NAME-vVERSION,
# with NAME linked to it. For servers whose module has no replace directives (CoreDNS, external-dns).
go_install_cached() {
  local name=$1 module=$2 version=$3 minutes=$4
  local out="$CACHE/$name-v$version"
  [ -x "$out" ] && { ln -sf "$name-v$version" "$CACHE/$name"; return 0; }
  log "building $name v$version (about $minutes minutes on 2 cores)"
  local work; work=$(mktemp -d)
  (cd "$work" && CGO_ENABLED=0 GOBIN="$work" go install -trimpath "$module@v$version")
  mv "$work/$(basename "$module")" "$out"
  ln -sf "$name-v$version" "$CACHE/$name"
  rm -rf "$work"
}

# build_external_dns_next builds external-dns v0.23.0, the second reference peer: `go install` cannot, because
# three of its dependencies are not served by every module proxy. The civo and exoscale providers (whose
# SDKs are among them) are removed, and openshift/api is pinned to the version v0.21.0 uses; every source
# and every other provider is the released code.
build_external_dns_next() {
  local version=$EXTERNAL_DNS_NEXT_VERSION
  local out="$CACHE/external-dns-v$version"
  [ -x "$out" ] && return 0
  log "building external-dns v$version with $EXTERNAL_DNS_NEXT_TOOLCHAIN (about 5 minutes on 2 cores)"
  local work; work=$(mktemp -d)
  export GOTOOLCHAIN=$EXTERNAL_DNS_NEXT_TOOLCHAIN GOFLAGS=-mod=mod
  local dir
  dir=$(cd "$work" && go mod init throwaway >/dev/null 2>&1 && go mod download -json "sigs.k8s.io/external-dns@v$version" |
    sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -n "$dir" ] || { log "external-dns v$version: module download failed"; return 1; }
  cp -r "$dir" "$work/src" && chmod -R u+w "$work/src"
  (
    cd "$work/src"
    rm -rf provider/civo provider/exoscale
    sed -i -e '/external-dns\/provider\/civo"/d' -e '/external-dns\/provider\/exoscale"/d' \
      -e '/externaldns.ProviderCivo/d' -e '/externaldns.ProviderExoscale/d' provider/factory/provider.go
    go mod edit -droprequire github.com/civo/civogo -droprequire github.com/exoscale/egoscale/v3 \
      -replace github.com/openshift/api=github.com/openshift/api@v0.0.0-20251015095338-264e80a2b6e7
    CGO_ENABLED=0 go build -trimpath -o "$out.tmp" \
      -ldflags "-X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=v$version" .
  )
  mv "$out.tmp" "$out"
  rm -rf "$work"
}

apt_install etcd-server bind9 bind9-utils bind9-dnsutils pdns-server pdns-backend-sqlite3 sqlite3 dnsperf \
  krb5-kdc krb5-admin-server podman runc qemu-user-static
# podman for the image test (test/image): runc (crun fails on this kernel's cgroups), and no default
# ulimits (the build machines refuse raising them).
if [ ! -e /etc/containers/containers.conf ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  printf '[containers]\ndefault_ulimits = []\n' | $sudo tee /etc/containers/containers.conf >/dev/null
fi
ln -sf /usr/bin/podman "$CACHE/podman"
# qemu-user-static runs the arm64 image's binary (test/image); binfmt_misc is not needed for that.
ln -sf /usr/bin/qemu-aarch64-static "$CACHE/qemu-aarch64-static"
ln -sf /usr/bin/etcd "$CACHE/etcd"
ln -sf /usr/sbin/named "$CACHE/named"
# MIT Kerberos KDC for the GSS-TSIG tests (internal/testbed/kerberos.go)
for b in krb5kdc kdb5_util kadmin.local; do ln -sf "/usr/sbin/$b" "$CACHE/$b"; done
ln -sf /usr/sbin/pdns_server "$CACHE/pdns_server"
ln -sf /usr/bin/dnsperf "$CACHE/dnsperf"

pids=()
build_kube_apiserver & pids+=($!)
go_install_cached coredns github.com/coredns/coredns "$COREDNS_VERSION" 3.5 & pids+=($!)
go_install_cached external-dns sigs.k8s.io/external-dns "$EXTERNAL_DNS_VERSION" 5 & pids+=($!)
build_external_dns_next & pids+=($!)
go_install_cached helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION" 3 & pids+=($!)
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc -eq 0 ] || { log "a build failed"; exit 1; }

log "ready in $CACHE"
echo "$CACHE"
