package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RefusedSpec has constructs CEL cannot compare exactly.
type RefusedSpec struct {
	// Unknown fields are invisible to CEL.
	// +immutable
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Raw *runtime.RawExtension `json:"raw,omitempty"`

	// Atomic list items need two-variable comprehensions (Kubernetes 1.33).
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Items []Item `json:"items,omitempty"`
}

// Item is immutable.
// +immutable
type Item struct {
	// +kubebuilder:validation:MaxLength=8
	Name string `json:"name"`
}

// +kubebuilder:object:root=true

// Refused is a test kind.
type Refused struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RefusedSpec `json:"spec,omitempty"`
}
