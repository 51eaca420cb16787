package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Spec is the desired state.
type Spec struct {
	// Class never changes.
	// +immutable
	// +kubebuilder:validation:MaxLength=16
	Class string `json:"class"`
	// Size may change.
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Status is written by the controller.
type Status struct {
	// ID is assigned once by the controller, then kept.
	// +optional
	// +immutable=once
	// +kubebuilder:validation:MaxLength=16
	ID string `json:"id,omitempty"`
	// Phase changes.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	Phase string `json:"phase,omitempty"`
}

// Open leaves the presence of spec and status free.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Open struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Spec *Spec `json:"spec,omitempty"`
	// +optional
	Status *Status `json:"status,omitempty"`
}

// Closed follows the generator's fixes for Open.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Closed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec Spec `json:"spec"`
	// +optional
	// +k8s:update=NoUnset
	Status *Status `json:"status,omitempty"`
}

// Kept follows the generator's other fix for spec: its presence kept.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Kept struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	// +k8s:update=NoSet
	// +k8s:update=NoUnset
	Spec *Spec `json:"spec,omitempty"`
	// +optional
	// +k8s:update=NoUnset
	Status *Status `json:"status,omitempty"`
}
