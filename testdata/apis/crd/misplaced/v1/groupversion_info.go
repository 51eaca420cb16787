// Package v1 is a test API with misplaced markers.
// +groupName=bad.example.com
package v1
