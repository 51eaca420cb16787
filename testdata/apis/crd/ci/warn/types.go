// Package warn has one warning and nothing else: a misspelled marker
// (+imutable), which --fail-on=warning fails on.
// +kubebuilder:object:generate=true
// +groupName=warn.example.com
package warn

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GadgetSpec is the spec.
type GadgetSpec struct {
	// +immutable
	Name string `json:"name"`
	// +imutable
	Size int32 `json:"size"`
}

// +kubebuilder:object:root=true

// Gadget is a kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec GadgetSpec `json:"spec"`
}
