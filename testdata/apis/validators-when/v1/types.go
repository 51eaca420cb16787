// Package v1 is the test API of conditional markers (+immutable:when) in
// the typed validators: a kind with fields of the types conditions read
// (bools, ints, strings, lists of each list type, maps, nested objects,
// conditions), a conditional field beside an unconditional one, and the
// conditional fields of conditions.go, whose conditions the differential
// (validators/when_test.go) draws from the subset's grammar and the
// repository's corpus.
//
// +kubebuilder:object:generate=true
// +groupName=when.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// GadgetSpec holds the fields conditions read, a conditional and an
// unconditional field.
type GadgetSpec struct {
	// Size is fixed while the gadget is locked.
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked"
	// +optional
	Size int32 `json:"size,omitempty"`

	// Queue is fixed while the gadget holds quota (Kueue's condition).
	// +immutable
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	// +optional
	Queue string `json:"queue,omitempty"`

	// Template is fixed unless the gadget is suspended (JobSet's).
	// +immutable
	// +immutable:when="!has(self.spec.suspend) || !self.spec.suspend"
	// +optional
	Template *Template `json:"template,omitempty"`

	// Name is fixed always.
	// +immutable
	Name string `json:"name"`

	// Mode is required, and absent from the JSON when empty.
	// +required
	// +kubebuilder:validation:MaxLength=8
	Mode string `json:"mode,omitempty"`

	// Locked freezes Size.
	// +optional
	Locked *bool `json:"locked,omitempty"`

	// Suspend frees Template.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// +optional
	Paused bool `json:"paused,omitempty"`

	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// +optional
	// +kubebuilder:validation:MaxLength=8
	Note string `json:"note,omitempty"`

	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=8
	Tags []string `json:"tags,omitempty"`

	// +optional
	// +kubebuilder:validation:MaxItems=4
	Items []int64 `json:"items,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	Ports []Port `json:"ports,omitempty"`

	// +optional
	// +kubebuilder:validation:MaxProperties=4
	Labels map[string]string `json:"labels,omitempty"`

	// +optional
	// +kubebuilder:validation:MaxProperties=4
	Counts map[string]int32 `json:"counts,omitempty"`

	// +optional
	Topology *Topology `json:"topology,omitempty"`

	// +optional
	Started *metav1.Time `json:"started,omitempty"`

	// Deadline is null in its JSON when zero.
	// +optional
	Deadline metav1.Time `json:"deadline,omitempty"`

	// Timeout is a string to CEL (metav1.Duration's schema has no format).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Port is an int or a string (CEL's dyn).
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`

	// Listener is fixed while the old gadget listens on port 1 or "a": an
	// int-or-string in a list literal.
	// +immutable
	// +immutable:when="has(oldSelf.spec.port) && (oldSelf.spec.port in [1, 2] || oldSelf.spec.port in ['a'])"
	// +optional
	// +kubebuilder:validation:MaxLength=8
	Listener string `json:"listener,omitempty"`

	// Backend is fixed while the port is unchanged and not the double 1.0:
	// int-or-strings compared with each other and with a double.
	// +immutable
	// +immutable:when="has(self.spec.port) && has(oldSelf.spec.port) && self.spec.port == oldSelf.spec.port && oldSelf.spec.port != 1.0"
	// +optional
	Backend *int32 `json:"backend,omitempty"`

	// Guarded holds the conditional fields of the differential.
	// +optional
	Guarded Guarded `json:"guarded,omitempty"`
}

// Template is what a suspended gadget may change.
type Template struct {
	// +optional
	// +kubebuilder:validation:MaxLength=8
	Image string `json:"image,omitempty"`
	// +optional
	Args []string `json:"args,omitempty"`
}

// Port is an item of a list map.
type Port struct {
	// +kubebuilder:validation:MaxLength=8
	Name string `json:"name"`
	// +optional
	Port *int32 `json:"port,omitempty"`
}

// Topology nests objects.
type Topology struct {
	// +optional
	Flag *bool `json:"flag,omitempty"`

	// Zone is fixed while the old gadget is locked: a conditional field
	// below an optional object.
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked"
	// +optional
	// +kubebuilder:validation:MaxLength=8
	Zone string `json:"zone,omitempty"`
	// +optional
	Inner *Inner `json:"inner,omitempty"`
}

// Inner is the innermost object.
type Inner struct {
	// +optional
	// +kubebuilder:validation:MaxLength=8
	Value string `json:"value,omitempty"`
	// +optional
	N int32 `json:"n,omitempty"`
}

// GadgetStatus is read by conditions on oldSelf.
type GadgetStatus struct {
	// +optional
	// +kubebuilder:validation:MaxLength=8
	Phase string `json:"phase,omitempty"`
	// +optional
	Observed int64 `json:"observed,omitempty"`
	// +optional
	Ready bool `json:"ready,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=4
	Conditions []Condition `json:"conditions,omitempty"`
}

// Condition is Kueue's and every controller's condition, without the
// timestamp the conditions do not read.
type Condition struct {
	// +kubebuilder:validation:MaxLength=16
	Type string `json:"type"`
	// +kubebuilder:validation:MaxLength=8
	Status string `json:"status"`
	// +optional
	// +kubebuilder:validation:MaxLength=8
	Reason string `json:"reason,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Gadget is a root kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GadgetSpec `json:"spec"`
	// +optional
	Status *GadgetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// GadgetList is a list of gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}
