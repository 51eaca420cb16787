// Package once is a test API with +immutable=once placed where the openapi
// generator refuses or notes it, as the CRD path does: on list items and map
// values, beside another immutability form, on a required property.
//
// +k8s:openapi-gen=true
package once
