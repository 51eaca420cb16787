// Package kubebuilder tests the kubebuilder external plugin
// (cmd/kubebuilder-immutable-gen) with a real kubebuilder: it builds
// kubebuilder v4.15.0 and v4.16.0 (the newest v4 release) from its Go module, the plugin and immutable-gen from
// this repository, scaffolds a project with
// `kubebuilder init --plugins go/v4,immutable-gen.immutable-gen.io/v1-alpha`
// and `kubebuilder create api`, marks a field +immutable, runs
// `make manifests` and checks the CRD and `go build ./...`.
//
// It is a nested module with no dependencies of its own, so that the main
// module's go test ./... does not run it: it needs the Go module proxy
// (kubebuilder, controller-runtime, controller-gen) and takes minutes cold.
// Run it with make e2e-kubebuilder or (cd e2e/kubebuilder && go test -timeout 45m ./...).
package kubebuilder
