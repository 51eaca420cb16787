// Package v1 is a test API with misplaced +immutable=once and
// +immutable:message markers.
// +groupName=oncebad.example.com
package v1
