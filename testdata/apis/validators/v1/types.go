package v1

import (
	"fmt"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	// Name never changes.
	// +immutable
	Name string `json:"name"`

	// Size may change.
	// +optional
	Size int32 `json:"size,omitempty"`

	// Class is optional and immutable: it may not be set, changed or
	// removed after creation.
	// +immutable
	// +optional
	Class string `json:"class,omitempty"`

	// Replicas is a pointer: nil is absent.
	// +immutable
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Enabled is a boolean that is absent when false.
	// +immutable
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// Ratio is a float, present even when zero.
	// +immutable
	Ratio float64 `json:"ratio"`

	// Seed may be set later, then never changes.
	// +immutable=once
	// +optional
	Seed string `json:"seed,omitempty"`

	// Owner may be set later, as a whole, then never changes.
	// +immutable=once
	// +optional
	Owner *Owner `json:"owner,omitempty"`

	// Labels keep their keys; values may change.
	// +immutable=keys
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Annotations never change, as a whole.
	// +immutable
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// Limits: each value never changes; keys come and go.
	// +optional
	Limits map[string]Limit `json:"limits,omitempty"`

	// Ports keep their names; each port's number never changes.
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// Routes are keyed by host and path; each route's backend never
	// changes.
	// +listType=map
	// +listMapKey=host
	// +listMapKey=path
	// +optional
	Routes []Route `json:"routes,omitempty"`

	// Tags never change; their order does not matter.
	// +listType=set
	// +immutable
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Zones may change; the set is not marked.
	// +listType=set
	// +optional
	Zones []string `json:"zones,omitempty"`

	// Args never change, in order (an atomic list).
	// +immutable
	// +optional
	Args []string `json:"args,omitempty"`

	// Steps may be appended; each existing step never changes.
	// +optional
	Steps []Step `json:"steps,omitempty"`

	// Image is set once, as a whole (a type-level marker).
	// +optional
	Image *Image `json:"image,omitempty"`

	// Storage is optional; while it exists its class never changes.
	// +optional
	Storage *Storage `json:"storage,omitempty"`

	// Network is required; its fields carry the markers.
	Network Network `json:"network"`

	// Selector is compared whole: it holds a set, compared as a multiset.
	// +immutable
	// +optional
	Selector *Selector `json:"selector,omitempty"`

	// Data is base64 in JSON.
	// +immutable
	// +optional
	Data []byte `json:"data,omitempty"`

	// Items is an immutable list kept even when empty (no omitempty).
	// +immutable
	Items []string `json:"items"`

	// Counts is an immutable map kept even when empty (no omitempty).
	// +immutable
	Counts map[string]int64 `json:"counts"`

	// Port is an integer or a string, fixed at creation.
	// +immutable
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`

	// Target is an integer or a string, never absent.
	// +immutable
	Target intstr.IntOrString `json:"target"`

	// Memory never changes, as written ("1Ki" and "1024" differ).
	// +immutable
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`

	// Resources never change.
	// +immutable
	// +optional
	Resources map[string]resource.Quantity `json:"resources,omitempty"`

	// StartedAt may be set later, then never changes.
	// +immutable=once
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// Created is null when zero, to the second.
	// +immutable
	// +optional
	Created metav1.Time `json:"created,omitempty"`

	// Parent is a pointer without omitempty: nil is present, as null.
	// +immutable
	// +nullable
	Parent *Owner `json:"parent"`

	// Finished is left out when zero (omitzero: metav1.Time's IsZero).
	// +immutable
	// +optional
	Finished metav1.Time `json:"finished,omitzero"`

	// Timeout never changes.
	// +immutable
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Level is left out when zero (omitzero).
	// +immutable
	// +optional
	Level int32 `json:"level,omitzero"`

	// Window is left out when zero (omitzero on a struct).
	// +immutable
	// +optional
	Window Window `json:"window,omitzero"`

	// Listeners are keyed by port and protocol; the keys never change.
	// +listType=map
	// +listMapKey=port
	// +listMapKey=protocol
	// +immutable=keys
	// +optional
	Listeners []Listener `json:"listeners,omitempty"`

	// Codes never change; their order does not matter.
	// +listType=set
	// +immutable
	// +optional
	Codes []int32 `json:"codes,omitempty"`

	// Sidecars may be appended; each existing one never changes (the
	// marker on type Image).
	// +optional
	Sidecars []*Image `json:"sidecars,omitempty"`

	// Backends are keyed by name; items are pointers (a nil item is null
	// and has no key). Each backend's address never changes.
	// +listType=map
	// +listMapKey=name
	// +optional
	Backends []*Backend `json:"backends,omitempty"`

	// Peers never change, in any order (+immutable:ignoreOrder): the
	// list map and the list maps inside its items compare by key.
	// +listType=map
	// +listMapKey=name
	// +immutable
	// +immutable:ignoreOrder
	// +optional
	Peers []Peer `json:"peers,omitempty"`

	// Cluster is fixed while present: it may be cleared and set again
	// (validation-gen's +k8s:update=NoModify alone).
	// +k8s:update=NoModify
	// +optional
	Cluster *string `json:"cluster,omitempty"`

	// Placement is set once (+k8s:update=NoUnset,NoModify).
	// +k8s:update=NoUnset
	// +k8s:update=NoModify
	// +optional
	Placement *Window `json:"placement,omitempty"`

	// Schedule may not be added or removed; its value may change
	// (+k8s:update=NoSet,NoUnset).
	// +k8s:update=NoSet
	// +k8s:update=NoUnset
	// +optional
	Schedule *Window `json:"schedule,omitempty"`

	// Pin may be set at creation only, then not changed; it may be removed
	// (+k8s:update=NoSet,NoModify).
	// +k8s:update=NoSet
	// +k8s:update=NoModify
	// +optional
	Pin string `json:"pin,omitempty"`

	// Kept may be set later and changed, never removed (+k8s:update=NoUnset).
	// +k8s:update=NoUnset
	// +optional
	Kept string `json:"kept,omitempty"`

	// Late may change and be removed, never added after creation
	// (+k8s:update=NoSet).
	// +k8s:update=NoSet
	// +optional
	Late string `json:"late,omitempty"`

	// Members keep their names, and each never changes while there
	// (+k8s:update=NoAddItem,NoRemoveItem and +k8s:eachVal=+k8s:update=NoModify).
	// +listType=map
	// +listMapKey=name
	// +k8s:update=NoAddItem
	// +k8s:update=NoRemoveItem
	// +k8s:eachVal=+k8s:update=NoModify
	// +optional
	Members []PeerPortMember `json:"members,omitempty"`

	// Raw is free-form JSON, compared as JSON values.
	// +immutable
	// +optional
	Raw runtime.RawExtension `json:"raw,omitempty"`

	// Config is free-form JSON too.
	// +immutable
	// +optional
	Config *apiextv1.JSON `json:"config,omitempty"`

	// Color has its own MarshalJSON.
	// +immutable
	// +optional
	Color *Color `json:"color,omitempty"`

	// Template holds object metadata (managed fields included), compared
	// whole.
	// +immutable
	// +optional
	Template *Template `json:"template,omitempty"`

	// Extra is embedded by pointer: its fields are WidgetSpec's when set.
	*Extra `json:",inline"`
}

// Extra is embedded in WidgetSpec by pointer.
type Extra struct {
	// Region never changes.
	// +immutable
	// +optional
	Region string `json:"region,omitempty"`
}

// Color is written as "#rrggbb" by its own MarshalJSON.
// +kubebuilder:validation:Type=string
type Color struct {
	R, G, B uint8
}

// MarshalJSON writes the color as "#rrggbb".
func (c Color) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`"#%02x%02x%02x"`, c.R, c.G, c.B)), nil
}

// Template is an object template.
type Template struct {
	// +optional
	Metadata metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Image string `json:"image,omitempty"`
}

// Backend is a named backend.
type Backend struct {
	Name string `json:"name"`
	// +immutable
	Address string `json:"address"`
}

// Window is a time window.
type Window struct {
	// +optional
	Start int32 `json:"start,omitempty"`
	// +optional
	End int32 `json:"end,omitempty"`
}

// Listener listens on a port.
type Listener struct {
	// +immutable
	Port int32 `json:"port"`
	// +immutable
	Protocol string `json:"protocol"`
	// Rules are keyed by name; each rule's value never changes.
	// +listType=map
	// +listMapKey=name
	// +optional
	Rules []Rule `json:"rules,omitempty"`
	// Hostname may change.
	// +optional
	Hostname string `json:"hostname,omitempty"`
}

// Rule is a named rule.
type Rule struct {
	Name string `json:"name"`
	// +immutable
	// +optional
	Value *int64 `json:"value,omitempty"`
}

// Owner names who owns the widget.
type Owner struct {
	Kind string `json:"kind"`
	// +optional
	Name string `json:"name,omitempty"`
}

// Limit is a resource limit.
// +immutable
type Limit struct {
	Max int64 `json:"max"`
	// +optional
	Unit string `json:"unit,omitempty"`
}

// Port is a named port.
type Port struct {
	// +immutable
	Name string `json:"name"`
	// Number never changes.
	// +immutable
	Number int32 `json:"number"`
	// Protocol may change.
	// +optional
	Protocol string `json:"protocol,omitempty"`
}

// Route is a route keyed by host and path.
type Route struct {
	Host string `json:"host"`
	Path string `json:"path"`
	// Backend never changes.
	// +immutable
	Backend string `json:"backend"`
	// Weight may change.
	// +optional
	Weight *int32 `json:"weight,omitempty"`
}

// Step is one step of a pipeline.
// +immutable
type Step struct {
	Name string `json:"name"`
	// +optional
	Command []string `json:"command,omitempty"`
}

// Image is set once.
// +immutable
type Image struct {
	Repository string `json:"repository"`
	// +optional
	Tag string `json:"tag,omitempty"`
}

// Storage is optional storage.
type Storage struct {
	// Class never changes while storage exists.
	// +immutable
	Class string `json:"class"`
	// Size may change.
	// +optional
	Size int64 `json:"size,omitempty"`
}

// Network is the widget's network.
type Network struct {
	// VPC never changes.
	// +immutable
	VPC string `json:"vpc"`
	// Subnets keep their keys.
	// +immutable=keys
	// +optional
	Subnets map[string]Subnet `json:"subnets,omitempty"`
	// +optional
	Inline `json:",inline"`
}

// Inline is embedded in Network: its fields are Network's.
type Inline struct {
	// Gateway never changes.
	// +immutable
	// +optional
	Gateway string `json:"gateway,omitempty"`
}

// Subnet is a subnet of the network.
type Subnet struct {
	// CIDR never changes.
	// +immutable
	CIDR string `json:"cidr"`
	// +optional
	Description string `json:"description,omitempty"`
}

// Selector selects by labels.
type Selector struct {
	// +listType=set
	// +optional
	Values []string `json:"values,omitempty"`
	// +optional
	Match map[string]string `json:"match,omitempty"`
}

// WidgetStatus is the observed state.
type WidgetStatus struct {
	// +optional
	Ready bool `json:"ready,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Widget is the test kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// GadgetSpec is a small Widget-like spec, for the benchmarks.
type GadgetSpec struct {
	// +immutable
	Name string `json:"name"`
	// +optional
	Size int32 `json:"size,omitempty"`
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
}

// +kubebuilder:object:root=true

// Gadget is a small Widget-like kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GadgetSpec `json:"spec"`
}

// Peer is an item of a list map that holds a list map.
type Peer struct {
	Name string `json:"name"`
	// +listType=map
	// +listMapKey=port
	// +optional
	Ports []PeerPort `json:"ports,omitempty"`
	// Args keep their order.
	// +optional
	Args []string `json:"args,omitempty"`
}

// PeerPort is keyed by port.
type PeerPort struct {
	Port int32 `json:"port"`
	// +optional
	Protocol string `json:"protocol,omitempty"`
}

// PeerPortMember is a list map item.
type PeerPortMember struct {
	Name string `json:"name"`
	// +optional
	Weight int32 `json:"weight,omitempty"`
}
