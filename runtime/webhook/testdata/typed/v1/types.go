// Package v1 is a typed example.com/v1 Widget for the tests of
// webhook.ImmutableValidator, with the deep-copy code and the
// ValidateImmutableUpdate that immutable-gen generates for it (regenerate
// with `go test ./validators -run WebhookTestAPI -update` from the
// repository root; TestWebhookTestAPIUpToDate fails when they are stale).
//
// +kubebuilder:object:generate=true
// +groupName=example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is example.com/v1.
var GroupVersion = schema.GroupVersion{Group: "example.com", Version: "v1"}

// AddToScheme registers Widget.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// Widget is the typed object of the tests.
//
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec"`
}

// WidgetList is a list of Widgets.
//
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

// WidgetSpec has an immutable engine, a mutable replica count and ports
// whose keys are immutable.
type WidgetSpec struct {
	// +immutable
	Engine string `json:"engine"`

	Replicas int32 `json:"replicas"`

	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +optional
	Ports []Port `json:"ports,omitempty"`
}

// Port is an item of the ports list map.
type Port struct {
	// +immutable
	Name string `json:"name"`
	Port int32  `json:"port"`
}
