package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Name is a bounded name.
// +kubebuilder:validation:MaxLength=16
type Name string

// Port is a list map item.
type Port struct {
	// +immutable
	Name Name `json:"name"`
	// +optional
	Port int32 `json:"port,omitempty"`
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Options []Option `json:"options,omitempty"`
}

// Option is a nested list map item.
type Option struct {
	Key Name `json:"key"`
	// +optional
	Value Name `json:"value,omitempty"`
}

// Frozen is immutable wherever it is used.
// +immutable
type Frozen struct {
	A Name `json:"a"`
	// +optional
	B *int64 `json:"b,omitempty"`
}

// Arg is an atomic list item with an immutable field.
type Arg struct {
	// +immutable
	Value Name `json:"value"`
	// +optional
	Note Name `json:"note,omitempty"`
}

// ShapesSpec has one field per marker shape.
type ShapesSpec struct {
	// +immutable
	Required Name `json:"required"`
	// +immutable
	// +optional
	Optional *Name `json:"optional,omitempty"`
	// +immutable
	// +optional
	Count *int64 `json:"count,omitempty"`

	// +listType=set
	// +immutable
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Set []Name `json:"set,omitempty"`

	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Keyed []Port `json:"keyed,omitempty"`

	// A whole list map, compared in order.
	// +listType=map
	// +listMapKey=name
	// +immutable
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Ordered []Port `json:"ordered,omitempty"`

	// +immutable=keys
	// +kubebuilder:validation:MaxProperties=8
	// +optional
	Labels map[string]Name `json:"labels,omitempty"`

	// Map values immutable through their type.
	// +kubebuilder:validation:MaxProperties=8
	// +optional
	Frozen map[string]Frozen `json:"frozen,omitempty"`

	// Atomic list of immutable items: existing indices never change.
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Pinned []Frozen `json:"pinned,omitempty"`

	// Atomic list whose items have an immutable field.
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Args []Arg `json:"args,omitempty"`

	// An optional parent with an immutable child.
	// +optional
	Parent *Arg `json:"parent,omitempty"`

	// +immutable
	// +optional
	Whole *Frozen `json:"whole,omitempty"`

	// Free-form content: == sees every change in it.
	// +immutable
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Raw *runtime.RawExtension `json:"raw,omitempty"`

	// An embedded resource, metadata included.
	// +immutable
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Embedded *runtime.RawExtension `json:"embedded,omitempty"`
}

// +kubebuilder:object:root=true

// Shapes is a test kind.
type Shapes struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ShapesSpec `json:"spec,omitempty"`
}
