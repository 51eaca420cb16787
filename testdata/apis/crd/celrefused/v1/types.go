package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RefusedSpec has constructs CEL cannot compare exactly.
type RefusedSpec struct {
	// Free-form content is lowered: == sees every change in it.
	// +immutable
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Raw *runtime.RawExtension `json:"raw,omitempty"`

	// A required immutable struct holding a list map under a name CEL
	// cannot address: refused at this marker, not dropped.
	// +immutable
	Routing Routing `json:"routing"`

	// Atomic list items need two-variable comprehensions (Kubernetes 1.33).
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Items []Item `json:"items,omitempty"`
}

// Routing has a property whose name CEL cannot address.
type Routing struct {
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Rules []Rule `json:"a:b,omitempty"`
}

// Rule is a list map item.
type Rule struct {
	// +kubebuilder:validation:MaxLength=8
	Name string `json:"name"`
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
