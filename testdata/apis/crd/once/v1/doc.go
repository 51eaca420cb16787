// Package v1 is a test API with +immutable=once fields of every shape
// (scalar, struct, set, list map item field, atomic list item field), and
// +immutable:message beside each form.
// +groupName=once.example.com
package v1
