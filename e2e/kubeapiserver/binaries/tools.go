//go:build tools

// Package binaries pins the control-plane binaries the kube-apiserver e2e
// tests run under envtest: kube-apiserver from k8s.io/kubernetes (with every
// staging module replaced by its published v0.37.1 version, see go.mod) and
// etcd from go.etcd.io/etcd/server/v3 (./etcd). build.sh builds them.
package binaries

import (
	_ "go.etcd.io/etcd/server/v3/etcdmain"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
