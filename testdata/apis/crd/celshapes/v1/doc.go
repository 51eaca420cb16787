// Package v1 has every marker shape, bounded so that the CEL lowering fits
// the API server's cost budget.
// +groupName=shapes.example.com
package v1
