// Package invalid is a test API with marker values that do not parse and a
// misspelled marker, for the diagnostics of immutable-gen's openapi generator.
//
// +k8s:openapi-gen=true
package invalid
