package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WidgetSpec is the desired state.
type WidgetSpec struct {
	// Name never changes.
	// +immutable
	Name string `json:"name"`

	// +optional
	Size int32 `json:"size,omitempty"`

	// Labels keep their keys.
	// +immutable=keys
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// +listType=set
	// +immutable
	// +optional
	Tags []string `json:"tags,omitempty"`

	// +optional
	Image *Image `json:"image,omitempty"`

	// +optional
	Y string `json:"y,omitempty"`
}

// Port is a named port.
type Port struct {
	// +immutable
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// Image is set once.
// +immutable
type Image struct {
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
}

// +kubebuilder:object:root=true

// Widget is a test kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}
