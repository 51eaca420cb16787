package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Port is a list map item.
type Port struct {
	// +kubebuilder:validation:MaxLength=16
	Name string `json:"name"`
	// +optional
	Port int32 `json:"port,omitempty"`
}

// Zone holds a list map.
type Zone struct {
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	Ports []Port `json:"ports,omitempty"`
}

// Group holds list maps in map values.
type Group struct {
	// +kubebuilder:validation:MaxLength=16
	Name string `json:"name"`
	// +optional
	// +kubebuilder:validation:MaxProperties=4
	Zones map[string]Zone `json:"zones,omitempty"`
}

// Arg is an atomic list item.
type Arg struct {
	// +immutable
	// +kubebuilder:validation:MaxLength=16
	Value string `json:"value"`
}

// Spec holds one marker per need.
type Spec struct {
	// A presence rule on spec: fieldPath and reason.
	// +optional
	// +immutable
	// +kubebuilder:validation:MaxLength=16
	Class string `json:"class,omitempty"`

	// The items of an atomic list: compared index by index.
	// +optional
	// +kubebuilder:validation:MaxItems=4
	Args []Arg `json:"args,omitempty"`

	// The order of a list map whose items hold list maps in map values.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +immutable
	Groups []Group `json:"groups,omitempty"`
}

// Floor is the kind.
// +kubebuilder:object:root=true
type Floor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec Spec `json:"spec"`
}
