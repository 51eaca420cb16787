// Package v1 is bench.immutable-gen.io/v1 Deployment: an API the size of
// apps/v1 Deployment (selector, pod template, containers with ports, env,
// resources, volumes) whose fields carry both validation-gen's +k8s:immutable tags and immutable-gen's
// +immutable markers, for the peer differential and the benchmarks of the
// nested module bench/validators.
//
// +k8s:validation-gen=TypesWithField=TypeMeta
// +kubebuilder:object:generate=true
// +groupName=bench.immutable-gen.io
package v1
