// Package v1 is a test API with misplaced immutability markers, for the
// diagnostics of immutable-gen's openapi generator.
//
// +k8s:openapi-gen=true
// +groupName=misplaced.example.com
package v1
