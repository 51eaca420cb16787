// Package v1 is a test API for immutable-gen.
// +kubebuilder:object:generate=true
// +groupName=basic.example.com
package v1
