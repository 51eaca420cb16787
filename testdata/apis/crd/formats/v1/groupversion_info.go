// Package v1 is a test API for immutable-gen: which string formats bound a
// string's length for the API server's CEL cost estimate (duration, date
// and date-time only).
// +kubebuilder:object:generate=true
// +groupName=formats.example.com
package v1
