package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is the benchmark's small API.
//
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	// Metadata is not compared: validation-gen's checks of it are
	// not about immutability.
	// +k8s:opaqueType
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

// WidgetSpec holds one immutable field of every shape: scalars, a struct,
// a pointer, a listType=set, a listType=map, a map; and mutable fields,
// some holding immutable fields.
type WidgetSpec struct {
	// Name is a required immutable string.
	// +immutable
	// +k8s:immutable
	// +k8s:optional
	Name string `json:"name"`

	// Class is an optional immutable string.
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	Class string `json:"class,omitempty"`

	// Size is an immutable integer.
	// +immutable
	// +k8s:immutable
	// +k8s:optional
	Size int64 `json:"size"`

	// Replicas may change.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Paused may change.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// Config is an immutable struct.
	// +immutable
	// +k8s:immutable
	Config WidgetConfig `json:"config"`

	// Storage is an immutable pointer to a struct.
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	Storage *Storage `json:"storage,omitempty"`

	// Zones is an immutable set: its order does not matter to the KEP.
	// +listType=set
	// +k8s:listType=set
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	Zones []string `json:"zones,omitempty"`

	// Ports is an immutable list map.
	// +listType=map
	// +listMapKey=name
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	Ports []Port `json:"ports,omitempty"`

	// Labels is an immutable map.
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	Labels map[string]string `json:"labels,omitempty"`

	// Tags is a set without omitempty: nil is null, empty is [].
	// +listType=set
	// +k8s:listType=set
	// +immutable
	// +k8s:immutable
	// +k8s:optional
	Tags []string `json:"tags"`

	// Backends may be added and removed by name; each one's address never
	// changes.
	// +listType=map
	// +listMapKey=name
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +k8s:optional
	Backends []Backend `json:"backends,omitempty"`

	// Options is mutable; its Mode is immutable while Options exists.
	// +optional
	// +k8s:optional
	Options *Options `json:"options,omitempty"`

	// Description may change.
	// +optional
	Description string `json:"description,omitempty"`

	// SeedSnapshot may be set after creation, then never changed or
	// removed: immutable-gen's once, validation-gen's update constraints
	// NoModify and NoUnset (not NoSet).
	// +immutable=once
	// +k8s:optional
	// +k8s:update=NoModify
	// +k8s:update=NoUnset
	// +optional
	SeedSnapshot string `json:"seedSnapshot,omitempty"`

	// ClusterName is fixed while present: it may be cleared and set again
	// (Kueue). Only validation-gen's tag says so; immutable-gen reads it.
	// +k8s:optional
	// +k8s:update=NoModify
	// +optional
	ClusterName string `json:"clusterName,omitempty"`

	// AdmittedAt may be set later and changed, never removed: only
	// validation-gen's +k8s:update=NoUnset says so.
	// +k8s:optional
	// +k8s:update=NoUnset
	// +optional
	AdmittedAt string `json:"admittedAt,omitempty"`

	// Region may be set at creation or never, then not changed; it may be
	// removed: validation-gen's +k8s:update=NoSet and NoModify.
	// +k8s:optional
	// +k8s:update=NoSet
	// +k8s:update=NoModify
	// +optional
	Region string `json:"region,omitempty"`

	// Placement may not be added or removed after creation; its value may
	// change: validation-gen's +k8s:update=NoSet and NoUnset.
	// +k8s:optional
	// +k8s:update=NoSet
	// +k8s:update=NoUnset
	// +optional
	Placement *string `json:"placement,omitempty"`

	// Shards keep their keys (none added or removed); each shard's
	// replicas may change: immutable-gen's keys, validation-gen's update
	// constraints NoAddItem and NoRemoveItem.
	// +listType=map
	// +listMapKey=name
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +immutable=keys
	// +k8s:optional
	// +k8s:update=NoAddItem
	// +k8s:update=NoRemoveItem
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Shards []Shard `json:"shards,omitempty"`
}

// Shard is an item of a list map with immutable keys.
type Shard struct {
	// Name is the key, immutable as =keys requires.
	// +immutable
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// WidgetConfig is a struct with a scalar, a pointer and a list.
type WidgetConfig struct {
	Engine string `json:"engine"`
	// +optional
	Version *string `json:"version,omitempty"`
	// +optional
	Args []string `json:"args,omitempty"`
}

// Storage is a struct behind a pointer.
type Storage struct {
	Class string `json:"class"`
	// +optional
	SizeGiB int32 `json:"sizeGiB,omitempty"`
}

// Port is an item of a list map.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
	// +optional
	Protocol string `json:"protocol,omitempty"`
}

// Backend is an item of a list map whose Address is immutable.
type Backend struct {
	Name string `json:"name"`
	// +immutable
	// +k8s:immutable
	// +kubebuilder:validation:MaxLength=253
	// +k8s:optional
	Address string `json:"address"`
	// +optional
	Weight int32 `json:"weight,omitempty"`
}

// Options is an optional struct with an immutable field.
type Options struct {
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	Mode string `json:"mode,omitempty"`
	// +optional
	Verbose bool `json:"verbose,omitempty"`
}
