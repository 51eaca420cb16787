// Package v1 is the test API of the presence-hole fixes (placement's
// TestPresenceFixes): Open has an optional spec and an optional status
// holding immutable fields, with the status subresource on, and the
// generator and lint each give a fix; Closed is Open with the generator's
// fixes followed (+required on spec, +k8s:update=NoUnset on status), and
// Kept with the other fix for spec (+k8s:update=NoSet and =NoUnset).
// +groupName=presence.example.com
package v1
