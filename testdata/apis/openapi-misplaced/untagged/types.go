// Package untagged has immutability markers but no +k8s:openapi-gen tag:
// openapi-gen generates no definitions for it (a CRD-only package, say), so
// immutable-gen's openapi generator writes nothing for it and says so.
package untagged

// Gizmo has a marked field.
type Gizmo struct {
	// +immutable
	Name string `json:"name"`
}
