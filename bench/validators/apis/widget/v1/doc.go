// Package v1 is bench.immutable-gen.io/v1 Widget: a small API whose fields
// carry both validation-gen's +k8s:immutable tags and immutable-gen's
// +immutable markers, for the peer differential and the benchmarks of the
// nested module bench/validators.
//
// +k8s:validation-gen=TypesWithField=TypeMeta
// +kubebuilder:object:generate=true
// +groupName=bench.immutable-gen.io
package v1
