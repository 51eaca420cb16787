// Package v1 is a marker-free API (no +immutable) that exercises many of
// controller-tools' own markers: immutable-gen must generate exactly what
// controller-gen generates for it.
// +groupName=plain.example.com
package v1
