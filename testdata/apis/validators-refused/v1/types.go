// Package v1 is a test API with values the typed validators cannot compare
// exactly: each marker gets an error, and nothing is written.
//
// +kubebuilder:object:generate=true
// +groupName=refused.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// GadgetSpec holds the refused values.
type GadgetSpec struct {
	// Paused is fixed while the gadget listens above port 80: an
	// int-or-string ordered, which the typed validators do not compile
	// (IG047: CEL's verdict is an error where the value is a string).
	// +immutable
	// +immutable:when="has(oldSelf.spec.port) && oldSelf.spec.port > 80"
	// +optional
	Paused bool `json:"paused,omitempty"`

	// Port is an int or a string.
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`

	// Tags are fixed while the gadget's name matches a pattern: a
	// function outside the subset the enforcers evaluate (IG048).
	// +immutable
	// +immutable:when="oldSelf.spec.fine.matches('^a')"
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Pairs is a set of structs.
	// +listType=set
	// +immutable
	// +optional
	Pairs []Pair `json:"pairs,omitempty"`

	// Listeners are keyed by an integer or a string.
	// +listType=map
	// +listMapKey=port
	// +immutable=keys
	// +optional
	Listeners []Listener `json:"listeners,omitempty"`

	// Fine is compared without trouble.
	// +immutable
	Fine string `json:"fine"`
}

// Pair is a set item.
// +mapType=atomic
type Pair struct {
	A string `json:"a"`
	B string `json:"b"`
}

// Listener listens on a port.
type Listener struct {
	// +immutable
	Port intstr.IntOrString `json:"port"`
}

// +kubebuilder:object:root=true

// Gadget is the test kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GadgetSpec `json:"spec"`
}
