// Package v1 is the cache.example.com/v1 API: a small kubebuilder-style API
// that uses every form of the +immutable marker.
//
// Generate its deep-copy code, typed validators and CRDs with:
//
//	go generate ./...
//
// +kubebuilder:object:generate=true
// +groupName=cache.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CRDs with CEL transition rules that API servers enforce (the default);
// -q: warnings and errors only, no info and no summary on every build:
//go:generate go tool immutable-gen object crd paths=./... output:crd:artifacts:config=../../config/crd/bases -q
// Typed ValidateImmutableUpdate methods (zz_generated.immutable.go), for a
// webhook or a strategy that holds *CacheCluster values:
//go:generate go tool immutable-gen validators paths=./... -q
// The same CRDs with the KEP's extensions, for the immutable-gen runtime and check-update:
//go:generate go tool immutable-gen crd:immutability=extensions paths=./... output:crd:dir=../../config/crd/extensions -q

var (
	// GroupVersion is the group and version of this API.
	GroupVersion = schema.GroupVersion{Group: "cache.example.com", Version: "v1"}

	// SchemeBuilder registers this API's types.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds this API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &CacheCluster{}, &CacheClusterList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
