// Package inuse is a test API whose markers the openapi generator can only
// judge in the object they end up in: below an immutable field of another
// type, in the items of a set, used by several definitions, in a recursive
// list map. package validation judges them on the objects' trees, as it
// does for CRDs; each finding is reported once.
//
// +k8s:openapi-gen=true
package inuse
