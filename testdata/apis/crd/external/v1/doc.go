// Package v1 is a test API with markers above types declared outside the
// module (k8s.io/api's PersistentVolumeClaim and PodTemplateSpec), after
// JobSet: the generator never asks for a bound inside them.
// +groupName=external.example.com
package v1
