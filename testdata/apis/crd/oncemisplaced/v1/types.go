package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WidgetSpec has misplaced set-once markers.
type WidgetSpec struct {
	// A set-once type used as list items.
	Items []Serial `json:"items,omitempty"`

	// A set-once type used as map values.
	Values map[string]Serial `json:"values,omitempty"`

	// Set once and immutable on one field.
	// +immutable
	// +immutable=once
	Both string `json:"both,omitempty"`

	// Set once on the type, immutable on the field.
	// +immutable
	Mixed Serial `json:"mixed,omitempty"`

	// Set once on the type, =keys on the field.
	// +immutable=keys
	Keyed OnceMap `json:"keyed,omitempty"`

	// A message without a form.
	// +immutable:message="lonely"
	Lonely string `json:"lonely,omitempty"`

	// Inside a set-once struct, a marker is redundant.
	// +immutable=once
	Outer *Inner `json:"outer,omitempty"`

	// Near misses.
	// +immutable:once
	Colon string `json:"colon,omitempty"`
}

// Serial is set once.
// +immutable=once
type Serial string

// OnceMap is set once.
// +immutable=once
type OnceMap map[string]string

// Inner has a field that its set-once parent already fixes.
type Inner struct {
	// +immutable
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// Widget is a test kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WidgetSpec `json:"spec"`
}
