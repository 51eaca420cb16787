package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Item is a list map item.
type Item struct {
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name"`
	// +optional
	Paused bool `json:"paused,omitempty"`
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Ref is a reference.
type Ref struct {
	// +kubebuilder:validation:MaxLength=15
	Group string `json:"group"`
	// +kubebuilder:validation:MaxLength=15
	// +optional
	Name string `json:"name,omitempty"`
}

// ThingStatus is the observed state.
type ThingStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ThingSpec is the desired state.

type ThingSpec struct {
	// +kubebuilder:validation:MaxLength=15
	// +optional
	X string `json:"x,omitempty"`
	// +optional
	Paused bool `json:"paused,omitempty"`
	Size int32 `json:"size"`
	// +kubebuilder:validation:MaxLength=15
	// +optional
	Topology string `json:"topology,omitempty"`
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:XValidation:rule="self == oldSelf && self.map(x, x.name) == oldSelf.map(x, x.name)"
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Items []Item `json:"items,omitempty"`
	// +optional
	Ref *Ref `json:"ref,omitempty"`

}

// +kubebuilder:object:root=true

// Thing is the kind.

type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec ThingSpec `json:"spec"`
	// +optional
	Status ThingStatus `json:"status,omitempty"`
}
