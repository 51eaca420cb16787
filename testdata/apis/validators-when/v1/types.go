// Package v1 is a test API with a conditional marker beside an
// unconditional one: under validators:conditional=skip the typed validator
// checks the unconditional field and leaves the conditional one to the
// CRD's CEL rule, with a warning; by default it is refused.
//
// +kubebuilder:object:generate=true
// +groupName=when.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GadgetSpec holds a conditional and an unconditional field.
type GadgetSpec struct {
	// Size is fixed while the gadget is locked.
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked"
	// +optional
	Size int32 `json:"size,omitempty"`

	// Name is fixed always.
	// +immutable
	Name string `json:"name"`

	// Locked freezes Size.
	// +optional
	Locked *bool `json:"locked,omitempty"`
}

// +kubebuilder:object:root=true

// Gadget is a root kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GadgetSpec `json:"spec"`
}
