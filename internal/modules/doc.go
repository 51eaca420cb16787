// Package modules holds the checks of the repository's nested Go modules
// that run in the root module: runtime, runtime/webhook and
// runtime/admission, the libraries users import and the code that generated
// code calls (docs/architecture.md, "Modules"). Each is a module of its own
// so that importing it asks nothing newer of a user's module than its
// floor (Go 1.23, k8s.io/* v0.31, controller-runtime v0.19). `go test ./...`
// at the root does not reach into nested modules: TestFloors reads their
// go.mod files here, and their vet and tests run in each module, by `make
// test-modules` and .ci/run (docs/testing.md).
package modules
