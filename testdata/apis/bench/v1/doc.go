// Package v1 wraps the specs of Kubernetes' built-in kinds as custom resources
// with immutability markers, for the generation benchmark.
// +groupName=bench.example.com
package v1
