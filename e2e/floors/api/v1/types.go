package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is floors.example.com/v1.
var GroupVersion = schema.GroupVersion{Group: "floors.example.com", Version: "v1"}

// AddToScheme registers Volume and VolumeList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Volume{}, &VolumeList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// Volume is a storage volume: its class and size are fixed at creation,
// its ports' names never change, and the ID a controller assigns is set
// once.
//
// +kubebuilder:object:root=true
type Volume struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec VolumeSpec `json:"spec"`
}

// VolumeList is a list of Volumes.
//
// +kubebuilder:object:root=true
type VolumeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Volume `json:"items"`
}

// VolumeSpec is the desired state of a Volume.
type VolumeSpec struct {
	// Class is chosen at creation.
	// +immutable
	Class string `json:"class"`

	// Replicas may change.
	Replicas int32 `json:"replicas"`

	// Ports may change, but not which names there are.
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// VolumeID is assigned by the controller, then never changes.
	// +immutable=once
	// +kubebuilder:validation:MaxLength=64
	// +optional
	VolumeID string `json:"volumeID,omitempty"`
}

// Port is an item of the ports list map.
type Port struct {
	// +immutable
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	Port int32  `json:"port"`
}
