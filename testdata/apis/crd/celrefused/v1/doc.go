// Package v1 has markers the CEL lowering must refuse rather than weaken.
// +groupName=refused.example.com
package v1
