// Package once is a test API with +immutable=once, which the openapi
// generator refuses at the marker rather than drop.
//
// +k8s:openapi-gen=true
package once
