// Package v1 is the API of the floors e2e module: a kubebuilder-style kind
// with immutability markers, in a module pinned to the oldest versions
// immutable-gen's generated code and libraries support (Go 1.23,
// k8s.io/* v0.31, controller-runtime v0.19). Its deep-copy code, typed
// validators, kube-openapi extensions and CRD are what immutable-gen
// generates for it (e2e/floors_test.go regenerates them and compares).
//
// +kubebuilder:object:generate=true
// +k8s:openapi-gen=true
// +groupName=floors.example.com
package v1
