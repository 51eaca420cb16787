/*
Copyright The Widget Authors.

Licensed under the Apache License, Version 2.0.
*/

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	// Size of the widget.
	// +kubebuilder:validation:Enum=small;medium;large
	// +kubebuilder:default=medium
	// +optional
	Size string `json:"size,omitempty"`

	// Replicas is the number of widget servers.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Owner is chosen at creation. This hand-written rule predates
	// immutable-gen and comes out unchanged; `+immutable` would also forbid
	// removing an optional field (see docs/guide.md, "Migrating").
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable"
	// +kubebuilder:validation:MaxLength=63
	Owner string `json:"owner"`

	// Ports the widget listens on.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Ports []Port `json:"ports,omitempty"`
}

// Port is a named port.
type Port struct {
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=wg
// +kubebuilder:printcolumn:name="Size",type=string,JSONPath=`.spec.size`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`

// Widget is the Schema for the widgets API.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitzero"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []Widget `json:"items"`
}
