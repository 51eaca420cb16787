// Package e2e runs the CRDs that immutable-gen generates in its default
// crd:immutability=cel mode on a real, in-process apiextensions-apiserver
// (backed by an embedded etcd on 127.0.0.1) and checks that the lowered
// x-kubernetes-validations enforce docs/semantics.md section 2.3 on every update
// path: update, JSON merge patch, server-side apply and dry-run.
//
// It is a nested module so that the main module's go test ./... does not
// build the API server; run it with make e2e or (cd e2e && go test ./...).
package e2e
