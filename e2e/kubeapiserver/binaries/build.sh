#!/usr/bin/env bash
# Builds the control plane the kube-apiserver e2e tests run under envtest,
# from the Go module proxy only: kube-apiserver (k8s.io/kubernetes v1.37.1)
# and etcd (go.etcd.io/etcd/server/v3 v3.7.0), into DIR (default ../bin).
# A build whose inputs (this module's go.mod and go.sum, this script, the Go
# version) are unchanged is skipped, so CI and developers build once: the
# binaries are also kept in a per-user cache keyed by those inputs
# ($IMMUTABLE_GEN_E2E_CACHE, default ~/.cache/immutable-gen/control-plane),
# which a fresh clone on the same machine reuses.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:-$here/../bin}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

stamp="$(cat "$here/go.mod" "$here/go.sum" "$here/build.sh" "$here/etcd/main.go" | sha256sum | cut -d' ' -f1) $(go env GOVERSION)"
cache="${IMMUTABLE_GEN_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/immutable-gen/control-plane}/$(echo "$stamp" | sha256sum | cut -c1-16)"
up_to_date() { [ -x "$1/kube-apiserver" ] && [ -x "$1/etcd" ] && [ "$(cat "$1/.stamp" 2>/dev/null)" = "$stamp" ]; }
save() { mkdir -p "$cache" && cp "$dir/kube-apiserver" "$dir/etcd" "$dir/.stamp" "$cache/" 2>/dev/null || true; }
if up_to_date "$dir"; then
  echo "kube-apiserver and etcd in $dir are up to date"
  up_to_date "$cache" || save
  exit 0
fi
if up_to_date "$cache"; then
  cp "$cache/kube-apiserver" "$cache/etcd" "$cache/.stamp" "$dir/"
  echo "kube-apiserver and etcd copied from the cache $cache"
  exit 0
fi

# The version kube-apiserver reports, as the Kubernetes release build sets it.
kv=v1.37.1
ldflags="-s -w
 -X k8s.io/component-base/version.gitVersion=$kv
 -X k8s.io/component-base/version.gitMajor=1
 -X k8s.io/component-base/version.gitMinor=37
 -X k8s.io/component-base/version.gitTreeState=clean
 -X k8s.io/client-go/pkg/version.gitVersion=$kv
 -X k8s.io/client-go/pkg/version.gitMajor=1
 -X k8s.io/client-go/pkg/version.gitMinor=37"

cd "$here"
rm -f "$dir/.stamp"
start=$(date +%s)
# Default build flags (no -trimpath, cgo as the environment has it), so that
# the packages kube-apiserver shares with the e2e tests (apimachinery,
# client-go, apiserver, apiextensions-apiserver, etcd, grpc, ...) come from
# Go's build cache when the tests built them, and the other way round;
# -ldflags only affect the link.
go build -ldflags "$ldflags" -o "$dir/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
echo "built kube-apiserver in $(( $(date +%s) - start ))s"
start=$(date +%s)
go build -ldflags "-s -w" -o "$dir/etcd" ./etcd
echo "built etcd in $(( $(date +%s) - start ))s"
echo "$stamp" > "$dir/.stamp"
save
