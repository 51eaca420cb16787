// Package v1 is a test API with values the typed validators cannot compare
// exactly: each marker gets an error, and nothing is written.
//
// +kubebuilder:object:generate=true
// +groupName=refused.example.com
package v1

import (
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// GadgetSpec holds the refused values.
type GadgetSpec struct {
	// Raw is free-form JSON.
	// +immutable
	// +optional
	Raw runtime.RawExtension `json:"raw,omitempty"`

	// Config is free-form JSON too.
	// +immutable
	// +optional
	Config *apiextv1.JSON `json:"config,omitempty"`

	// Pairs is a set of structs.
	// +listType=set
	// +immutable
	// +optional
	Pairs []Pair `json:"pairs,omitempty"`

	// Color has its own JSON encoding.
	// +immutable
	// +optional
	Color Color `json:"color,omitempty"`

	// Fine is compared without trouble.
	// +immutable
	Fine string `json:"fine"`
}

// Pair is a set item.
// +mapType=atomic
type Pair struct {
	A string `json:"a"`
	B string `json:"b"`
}

// Color is written as a string by its own MarshalJSON.
// +kubebuilder:validation:Type=string
type Color struct {
	R, G, B uint8
}

// MarshalJSON writes the color as #rrggbb.
func (c Color) MarshalJSON() ([]byte, error) {
	return []byte(`"#000000"`), nil
}

// +kubebuilder:object:root=true

// Gadget is the test kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GadgetSpec `json:"spec"`
}
