// Package v1 is a test API with a marker on a type no kind uses: the typed
// validators warn that nothing checks it.
//
// +groupName=unreached.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ThingSpec is a spec.
type ThingSpec struct {
	// +immutable
	Name string `json:"name"`
}

// Orphan is used by no kind.
type Orphan struct {
	// +immutable
	Name string `json:"name"`
}

// +kubebuilder:object:root=true

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ThingSpec `json:"spec"`
}
