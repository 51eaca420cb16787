// Package v1 is one of two versions that both claim to be the storage
// version: a CRD the API server refuses for reasons of its own.
// +groupName=refused.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GadgetSpec has one immutable field.
type GadgetSpec struct {
	// +immutable
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// +immutable
	// +optional
	Config *Config `json:"config,omitempty"`
}

// Config has an own rule that does not compile, under a marker: reported
// at the marker.
type Config struct {
	// +kubebuilder:validation:XValidation:rule="self.size() > 0 && self.missing == 1"
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Note string `json:"note,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion

// Gadget is a test kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec,omitempty"`
}
