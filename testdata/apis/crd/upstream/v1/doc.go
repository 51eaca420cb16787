// Package v1 is a test API with validation-gen's declarative update tags
// (k8s.io/code-generator v0.37), after Kueue's Workload: +k8s:update in
// every combination immutable-gen has a form for, +k8s:eachVal, and a tag
// wrapped in +k8s:alpha.
// +groupName=upstream.example.com
package v1
