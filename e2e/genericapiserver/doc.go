// Package genericapiserver runs the ImmutableFields admission plugin
// (runtime/admission) inside a real generic API server: an in-process
// apiextensions-apiserver, backed by an embedded etcd on 127.0.0.1, with the
// plugin registered in its admission chain and configured by an admission
// configuration file, as an aggregated API server would wire it. The test
// installs the bundled example CRD without any CEL rule, so that the plugin
// is the only thing enforcing immutability, and checks update, merge patch,
// server-side apply and dry-run requests.
//
// It is a nested module so that the main module's go test ./... does not
// build the API server; run it with make e2e-admission or
// (cd e2e/genericapiserver && go test ./...).
package genericapiserver
