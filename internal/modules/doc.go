// Package modules holds the test that covers the repository's nested Go
// modules from the root module: runtime, runtime/webhook and
// runtime/admission, the libraries users import and the code that generated
// code calls (docs/architecture.md, "Modules"). Each is a module of its own
// so that importing it asks nothing newer of a user's module than its
// floor (Go 1.23, k8s.io/* v0.31, controller-runtime v0.19); `go test ./...`
// at the root does not reach into nested modules, so TestNestedModules runs
// their vet and tests and checks their floors.
package modules
