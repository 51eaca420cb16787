// Package v1 is a test API of the Kubernetes floor of the CEL rules: a
// presence rule (fieldPath and reason: 1.28), the items of an atomic list
// and the order of a list map with list maps in the map values of its items (two-variable
// comprehensions: 1.33). Generated without crd:kubeVersion (one note), with
// 1.32 (an error at each marker that needs 1.33) and with 1.27 (every
// marker).
// +groupName=floor.example.com
package v1
