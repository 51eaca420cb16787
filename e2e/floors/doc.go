// Package floors proves, in a module pinned to the oldest versions
// immutable-gen supports for the code it generates and the libraries users
// import (go 1.23 in go.mod, k8s.io/* v0.31.0, controller-runtime v0.19.0),
// that what immutable-gen generates (api/v1: deep copy, typed validators,
// kube-openapi extensions; config/crd) and runtime/webhook build and serve
// the immutability check there. e2e/floors_test.go regenerates the code with
// the repository's immutable-gen, runs `go mod tidy -diff`, builds and tests
// this module, and checks that its pins did not move.
package floors
