#!/usr/bin/env bash
# Installs or builds the real servers the integration tests use, and caches them outside the repository so a
# second run costs nothing. Prints the cache directory on its last line. Idempotent.
#   etcd          Debian etcd-server
#   kube-apiserver built from the Go module k8s.io/kubernetes
#   coredns       built from the Go module github.com/coredns/coredns with the plugins the tests' Corefiles use
#                 (COREDNS_PLUGINS: etcd and view among them)
#   external-dns  built from the Go module sigs.k8s.io/external-dns v0.21.0 and v0.23.0 with the providers the
#                 tests select (EXTERNAL_DNS_PROVIDERS): the reference peers for compatibility tests (v0.23.0
#                 with Go 1.27, fetched by GOTOOLCHAIN from the module proxy)
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

# module_field MODULE@VERSION FIELD: FIELD (Dir, GoMod, ...) of `go mod download -json`, which downloads the
# module into the module cache if it is not there yet. Run in an empty directory, outside any module (the
# repository's go.mod stays untouched), with the caller's GOTOOLCHAIN. Fails when the field is empty.
module_field() {
  local module=$1 field=$2 empty value
  empty=$(mktemp -d)
  value=$(cd "$empty" && GOFLAGS=-mod=mod go mod download -json "$module" | sed -n 's/.*"'"$field"'": "\(.*\)".*/\1/p') || true
  rmdir "$empty"
  [ -n "$value" ] || { log "$module: module download failed (no $field)"; return 1; }
  echo "$value"
}

# Every server below is built with CGO_ENABLED=0 and without -trimpath: the flags hack/test.sh compiles
# the tests with. -trimpath is part of each compiled package's build-cache key, so with it nothing the
# servers compiled could serve the tests; without it the tests take from the cache the standard library
# and every dependency package whose module version (and whose dependencies') they share with a server
# built by the same go: 469 packages (232 of them std), 139 CPU-s to compile on 2 cores, saved on a
# cold run. A server's binary then names its source files by their module-cache paths.
build_kube_apiserver() {
  local out="$CACHE/kube-apiserver-v$KUBE_VERSION"
  [ -x "$out" ] && { ln -sf "kube-apiserver-v$KUBE_VERSION" "$CACHE/kube-apiserver"; return 0; }
  log "building kube-apiserver v$KUBE_VERSION (about 4 minutes on 2 cores)"
  local work; work=$(mktemp -d)
  local gomod
  gomod=$(module_field "k8s.io/kubernetes@v$KUBE_VERSION" GoMod)
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
  (cd "$work" && go mod tidy >/dev/null 2>&1 && CGO_ENABLED=0 go build -o "$out.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$out.tmp" "$out"
  ln -sf "kube-apiserver-v$KUBE_VERSION" "$CACHE/kube-apiserver"
  rm -rf "$work"
}

# go_install_cached NAME MODULE VERSION MINUTES: go install MODULE@vVERSION into the cache as NAME-vVERSION,
# with NAME linked to it. For servers whose module has no replace directives (Helm).
go_install_cached() {
  local name=$1 module=$2 version=$3 minutes=$4
  local out="$CACHE/$name-v$version"
  [ -x "$out" ] && { ln -sf "$name-v$version" "$CACHE/$name"; return 0; }
  log "building $name v$version (about $minutes minutes on 2 cores)"
  local work; work=$(mktemp -d)
  (cd "$work" && CGO_ENABLED=0 GOBIN="$work" go install "$module@v$version")
  mv "$work/$(basename "$module")" "$out"
  ln -sf "$name-v$version" "$CACHE/$name"
  rm -rf "$work"
}

# set_tag WORD...: a short name for a set of plugins or providers, for the cache file name of a server built
# with only those, so that a binary built with another set (or a whole one from before) is never taken for it.
set_tag() {
  printf '%s\n' "$@" | sort -u | sha256sum | cut -c1-8
}

# The CoreDNS plugins the tests' Corefiles use (internal/testbed/coredns.go, test/e2e/views_test.go, the
# dnsperf benchmark's cache), plus log, health and ready for a person debugging a Corefile by hand.
COREDNS_PLUGINS=${COREDNS_PLUGINS:-bind cache errors etcd health log ready view}

# build_coredns: CoreDNS with only COREDNS_PLUGINS compiled in, CoreDNS's own way of choosing plugins
# (what plugin.cfg generates): a main package that imports coremain and each plugin, with the directive
# order cut down from the release's own list. Every plugin is the released code, at the versions the
# release's go.mod selects. A Corefile naming another plugin fails to load ("unknown directive").
# Cached as coredns-vVERSION-TAG (TAG names the plugin set), linked as coredns.
build_coredns() {
  local version=$COREDNS_VERSION
  local name="coredns-v$version-plugins-$(set_tag $COREDNS_PLUGINS)"
  local out="$CACHE/$name"
  if [ ! -x "$out" ]; then
    log "building coredns v$version (plugins: $COREDNS_PLUGINS; about 2 minutes on 2 cores)"
    local work; work=$(mktemp -d)
    (
      cd "$work"
      export GOFLAGS=-mod=mod
      go mod init corednsbuild >/dev/null 2>&1
      go mod edit -require "github.com/coredns/coredns@v$version"
      local dir
      dir=$(module_field "github.com/coredns/coredns@v$version" Dir)
      local p order=""
      for p in $COREDNS_PLUGINS; do
        grep -q "^[[:space:]]*\"$p\",\$" "$dir/core/dnsserver/zdirectives.go" || { log "coredns v$version has no plugin $p"; exit 1; }
      done
      # The release's directive order, keeping only the chosen plugins.
      for p in $(sed -n 's/^[[:space:]]*"\([a-z0-9_]*\)",$/\1/p' "$dir/core/dnsserver/zdirectives.go"); do
        case " $COREDNS_PLUGINS " in *" $p "*) order="$order\"$p\", " ;; esac
      done
      {
        echo "package main"
        echo
        echo "import ("
        echo "	\"github.com/coredns/coredns/core/dnsserver\""
        echo "	\"github.com/coredns/coredns/coremain\""
        for p in $COREDNS_PLUGINS; do echo "	_ \"github.com/coredns/coredns/plugin/$p\""; done
        echo ")"
        echo
        echo "func init() { dnsserver.Directives = []string{$order} }"
        echo
        echo "func main() { coremain.Run() }"
      } >main.go
      go mod tidy >/dev/null
      CGO_ENABLED=0 go build -o "$out.tmp" .
    )
    mv "$out.tmp" "$out"
    rm -rf "$work"
  fi
  ln -sf "$name" "$CACHE/coredns"
}

# The external-dns providers the tests run (--provider=...; coredns serves skydns too, azure serves
# azure-private-dns). The reference peers are built with only these: the other providers' cloud SDKs are
# most of external-dns's compile time and no test selects them. An unknown or removed provider name
# still fails the way it did ("unknown dns provider"), and --help lists every flag, because flags are
# declared apart from the providers (pkg/apis/externaldns).
EXTERNAL_DNS_PROVIDERS=${EXTERNAL_DNS_PROVIDERS:-aws azure cloudflare coredns google inmemory pdns rfc2136 webhook}

# build_external_dns VERSION TOOLCHAIN [ALIAS]: external-dns VERSION from a copy of its released module with every
# provider outside EXTERNAL_DNS_PROVIDERS unregistered (its import and its line in the provider factory's
# table removed); every source and every kept provider is the released code. TOOLCHAIN (empty: the local
# go) is what its go.mod needs. Cached as external-dns-vVERSION-providers-TAG, linked as external-dns-vVERSION (and ALIAS).
build_external_dns() {
  local version=$1 toolchain=$2 alias=${3:-}
  local name="external-dns-v$version-providers-$(set_tag $EXTERNAL_DNS_PROVIDERS)"
  local out="$CACHE/$name"
  if [ ! -x "$out" ]; then
    log "building external-dns v$version${toolchain:+ with $toolchain} (providers: $EXTERNAL_DNS_PROVIDERS; about 3 minutes on 2 cores)"
    local work; work=$(mktemp -d)
    (
      [ -n "$toolchain" ] && export GOTOOLCHAIN=$toolchain
      export GOFLAGS=-mod=mod
      local dir
      dir=$(module_field "sigs.k8s.io/external-dns@v$version" Dir)
      cp -r "$dir" "$work/src" && chmod -R u+w "$work/src"
      cd "$work/src"
      local factory=provider/factory/provider.go pkg kept
      for pkg in $(sed -n 's#^[[:space:]]*"sigs.k8s.io/external-dns/provider/\([a-z0-9]*\)"$#\1#p' "$factory"); do
        kept=""
        for k in $EXTERNAL_DNS_PROVIDERS; do [ "$k" = "$pkg" ] && kept=1; done
        [ -n "$kept" ] && continue
        sed -i -e "\#\"sigs.k8s.io/external-dns/provider/$pkg\"\$#d" -e "/[[:space:]]$pkg\.New[A-Za-z]*,\$/d" "$factory"
      done
      # Every kept provider must still be registered: a factory laid out differently from the one this
      # was written against fails here instead of building a peer without it.
      for k in $EXTERNAL_DNS_PROVIDERS; do
        grep -q "[[:space:]]$k\.New[A-Za-z]*,\$" "$factory" || { log "external-dns v$version: provider $k not in $factory"; exit 1; }
      done
      if [ "$version" = 0.23.0 ]; then
        # Three of v0.23.0's dependencies are not served by every module proxy: the civo and exoscale SDKs
        # (their providers are unregistered above) and the openshift/api version, pinned to v0.21.0's.
        go mod edit -droprequire github.com/civo/civogo -droprequire github.com/exoscale/egoscale/v3 \
          -replace github.com/openshift/api=github.com/openshift/api@v0.0.0-20251015095338-264e80a2b6e7
      fi
      CGO_ENABLED=0 go build -o "$out.tmp" \
        -ldflags "-X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=v$version" .
    )
    mv "$out.tmp" "$out"
    rm -rf "$work"
  fi
  ln -sf "$name" "$CACHE/external-dns-v$version"
  [ -z "$alias" ] || ln -sf "$name" "$CACHE/$alias"
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
build_coredns & pids+=($!)
build_external_dns "$EXTERNAL_DNS_VERSION" "" external-dns & pids+=($!)
build_external_dns "$EXTERNAL_DNS_NEXT_VERSION" "$EXTERNAL_DNS_NEXT_TOOLCHAIN" & pids+=($!)
go_install_cached helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION" 3 & pids+=($!)
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc -eq 0 ] || { log "a build failed"; exit 1; }

log "ready in $CACHE"
echo "$CACHE"
