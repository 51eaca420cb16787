// Package v1 is a test API with +immutable:when, after Kueue's Workload
// (fields immutable while quota is reserved) and JobSet (replicated jobs
// immutable unless suspended).
// +groupName=when.example.com
package v1
