// Package ignoreorder is a test API with +immutable:ignoreOrder beside
// +immutable and +immutable=once, on a field and on a type, for the openapi
// generator.
//
// +k8s:openapi-gen=true
package ignoreorder
