// Package info has one info finding and nothing else: a marker inside an
// already immutable struct (redundant), which only --fail-on=info fails on.
// +kubebuilder:object:generate=true
// +groupName=info.example.com
package info

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Inner is immutable as a whole through DoohickeySpec.Inner.
type Inner struct {
	// +immutable
	Name string `json:"name"`
}

// DoohickeySpec is the spec.
type DoohickeySpec struct {
	// +immutable
	Inner Inner `json:"inner"`
}

// +kubebuilder:object:root=true

// Doohickey is a kind.
type Doohickey struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec DoohickeySpec `json:"spec"`
}
