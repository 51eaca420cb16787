package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type GadgetSpec struct {
	// +immutable=keys
	Name string `json:"name"`

	// +listType=set
	// +immutable=keys
	Tags []string `json:"tags,omitempty"`

	// +immutable=keys
	Args []string `json:"args,omitempty"`

	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	Ports []Port `json:"ports,omitempty"`

	// +immutable=keys
	Ref Ref `json:"ref"`

	// +immutable=keys
	// +mapType=atomic
	Sel map[string]string `json:"sel,omitempty"`

	// +immutable=keys
	Frozen Frozen `json:"frozen,omitempty"`

	// +imutable
	Typo string `json:"typo,omitempty"`

	// +Immutable
	Case string `json:"case,omitempty"`

	// +immutable:keys
	Colon map[string]string `json:"colon,omitempty"`
}

type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// +immutable
type Ref struct {
	// +immutable
	Name string `json:"name"`
}

// +immutable
type Frozen map[string]string

// +kubebuilder:object:root=true
// +immutable
type Gadget struct {
	metav1.TypeMeta `json:",inline"`
	// +immutable
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec,omitempty"`
}
