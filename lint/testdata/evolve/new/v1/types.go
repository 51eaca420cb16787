// Package v1 is the new revision of the evolution check's test API: one
// kind a change of markers (lint/evolve_test.go pairs it with the base one).
//
// +kubebuilder:object:generate=true
// +groupName=evolve.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Port is an item of a list map.
type Port struct {
	// +immutable
	Name string `json:"name"`
	// +optional
	Port int32 `json:"port,omitempty"`
}

// Config is an object whose presence the parent cases change.
type Config struct {
	// +immutable
	Name string `json:"name"`
}

// OnceToImmutableSpec is the spec of OnceToImmutable.
type OnceToImmutableSpec struct {
	// +immutable
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// OnceToImmutable is one case.
type OnceToImmutable struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec OnceToImmutableSpec `json:"spec"`
}

// ImmutableToOnceSpec is the spec of ImmutableToOnce.
type ImmutableToOnceSpec struct {
	// +immutable=once
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// ImmutableToOnce is one case.
type ImmutableToOnce struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ImmutableToOnceSpec `json:"spec"`
}

// ImmutableDroppedSpec is the spec of ImmutableDropped.
type ImmutableDroppedSpec struct {

	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// ImmutableDropped is one case.
type ImmutableDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ImmutableDroppedSpec `json:"spec"`
}

// ImmutableAddedSpec is the spec of ImmutableAdded.
type ImmutableAddedSpec struct {
	// +immutable
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// ImmutableAdded is one case.
type ImmutableAdded struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ImmutableAddedSpec `json:"spec"`
}

// ImmutableToNoModifySpec is the spec of ImmutableToNoModify.
type ImmutableToNoModifySpec struct {
	// +k8s:update=NoModify
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// ImmutableToNoModify is one case.
type ImmutableToNoModify struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ImmutableToNoModifySpec `json:"spec"`
}

// NoModifyToOnceSpec is the spec of NoModifyToOnce.
type NoModifyToOnceSpec struct {
	// +immutable=once
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// NoModifyToOnce is one case.
type NoModifyToOnce struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec NoModifyToOnceSpec `json:"spec"`
}

// KeysDroppedSpec is the spec of KeysDropped.
type KeysDroppedSpec struct {

	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// KeysDropped is one case.
type KeysDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec KeysDroppedSpec `json:"spec"`
}

// ImmutableToKeysSpec is the spec of ImmutableToKeys.
type ImmutableToKeysSpec struct {
	// +immutable=keys
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// ImmutableToKeys is one case.
type ImmutableToKeys struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ImmutableToKeysSpec `json:"spec"`
}

// KeysToImmutableSpec is the spec of KeysToImmutable.
type KeysToImmutableSpec struct {
	// +immutable
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// KeysToImmutable is one case.
type KeysToImmutable struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec KeysToImmutableSpec `json:"spec"`
}

// WhenAddedSpec is the spec of WhenAdded.
type WhenAddedSpec struct {
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked"
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// WhenAdded is one case.
type WhenAdded struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WhenAddedSpec `json:"spec"`
}

// WhenRemovedSpec is the spec of WhenRemoved.
type WhenRemovedSpec struct {
	// +immutable
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// WhenRemoved is one case.
type WhenRemoved struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WhenRemovedSpec `json:"spec"`
}

// WhenWidenedSpec is the spec of WhenWidened.
type WhenWidenedSpec struct {
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked || has(oldSelf.spec.frozen) && oldSelf.spec.frozen"
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// WhenWidened is one case.
type WhenWidened struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WhenWidenedSpec `json:"spec"`
}

// WhenNarrowedSpec is the spec of WhenNarrowed.
type WhenNarrowedSpec struct {
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked"
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// WhenNarrowed is one case.
type WhenNarrowed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WhenNarrowedSpec `json:"spec"`
}

// WhenRewrittenSpec is the spec of WhenRewritten.
type WhenRewrittenSpec struct {
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked == true"
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// WhenRewritten is one case.
type WhenRewritten struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WhenRewrittenSpec `json:"spec"`
}

// IgnoreOrderAddedSpec is the spec of IgnoreOrderAdded.
type IgnoreOrderAddedSpec struct {
	// +immutable
	// +immutable:ignoreOrder
	// +listType=map
	// +listMapKey=name
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// IgnoreOrderAdded is one case.
type IgnoreOrderAdded struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec IgnoreOrderAddedSpec `json:"spec"`
}

// IgnoreOrderRemovedSpec is the spec of IgnoreOrderRemoved.
type IgnoreOrderRemovedSpec struct {
	// +immutable
	// +listType=map
	// +listMapKey=name
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// IgnoreOrderRemoved is one case.
type IgnoreOrderRemoved struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec IgnoreOrderRemovedSpec `json:"spec"`
}

// MessageChangedSpec is the spec of MessageChanged.
type MessageChangedSpec struct {
	// +immutable
	// +immutable:message="the name may not change"
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// MessageChanged is one case.
type MessageChanged struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec MessageChangedSpec `json:"spec"`
}

// UnchangedSpec is the spec of Unchanged.
type UnchangedSpec struct {
	// +immutable
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// Unchanged is one case.
type Unchanged struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec UnchangedSpec `json:"spec"`
}

// RequiredToOptionalSpec is the spec of RequiredToOptional.
type RequiredToOptionalSpec struct {
	// +immutable
	// +optional
	Name string `json:"name,omitempty"`

	// +optional
	Locked *bool `json:"locked,omitempty"`
	// +optional
	Frozen *bool `json:"frozen,omitempty"`
}

// +kubebuilder:object:root=true

// RequiredToOptional is one case.
type RequiredToOptional struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec RequiredToOptionalSpec `json:"spec"`
}

// ParentRequiredSpec is the spec of ParentRequired.
type ParentRequiredSpec struct {
	// +required
	Config Config `json:"config"`
}

// +kubebuilder:object:root=true

// ParentRequired is one case.
type ParentRequired struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ParentRequiredSpec `json:"spec"`
}

// ParentOptionalSpec is the spec of ParentOptional.
type ParentOptionalSpec struct {
	// +optional
	Config *Config `json:"config,omitempty"`
}

// +kubebuilder:object:root=true

// ParentOptional is one case.
type ParentOptional struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ParentOptionalSpec `json:"spec"`
}

// ItemA is an item whose non-key field is immutable in the base, not in
// the new revision (ItemB here).
type ItemA struct {
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
	// +immutable
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Value string `json:"value,omitempty"`
}

// ItemB is ItemA without its marker.
type ItemB struct {
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Value string `json:"value,omitempty"`
}

// OuterA holds an inner object with an immutable field.
type OuterA struct {
	// +optional
	Inner *Inner `json:"inner,omitempty"`
}

// OuterB holds one whose field is mutable now.
type OuterB struct {
	// +optional
	Inner *InnerB `json:"inner,omitempty"`
}

// Inner has an immutable field in the base revision.
type Inner struct {
	// +immutable
	// +optional
	Zone string `json:"zone,omitempty"`
}

// InnerB is Inner without its marker.
type InnerB struct {
	// +optional
	Zone string `json:"zone,omitempty"`
}

// ItemFieldDroppedSpec is the spec of ItemFieldDropped.
type ItemFieldDroppedSpec struct {
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Items []ItemB `json:"items,omitempty"`
}

// +kubebuilder:object:root=true

// ItemFieldDropped is one case.
type ItemFieldDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ItemFieldDroppedSpec `json:"spec"`
}

// MapValueDroppedSpec is the spec of MapValueDropped.
type MapValueDroppedSpec struct {
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	Entries map[string]ItemB `json:"entries,omitempty"`
}

// +kubebuilder:object:root=true

// MapValueDropped is one case.
type MapValueDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec MapValueDroppedSpec `json:"spec"`
}

// SetDroppedSpec is the spec of SetDropped.
type SetDroppedSpec struct {
	// +listType=set
	// +optional
	Tags []string `json:"tags,omitempty"`
}

// +kubebuilder:object:root=true

// SetDropped is one case.
type SetDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SetDroppedSpec `json:"spec"`
}

// NoUnsetToNoSetSpec is the spec of NoUnsetToNoSet.
type NoUnsetToNoSetSpec struct {
	// +k8s:update=NoSet
	// +optional
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// NoUnsetToNoSet is one case.
type NoUnsetToNoSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec NoUnsetToNoSetSpec `json:"spec"`
}

// PresenceDroppedSpec is the spec of PresenceDropped.
type PresenceDroppedSpec struct {
	// +optional
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// PresenceDropped is one case.
type PresenceDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec PresenceDroppedSpec `json:"spec"`
}

// NestedDroppedSpec is the spec of NestedDropped.
type NestedDroppedSpec struct {
	// +optional
	Outer *OuterB `json:"outer,omitempty"`
}

// +kubebuilder:object:root=true

// NestedDropped is one case.
type NestedDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec NestedDroppedSpec `json:"spec"`
}

// StatusOnceDroppedStatus is the status of StatusOnceDropped.
type StatusOnceDroppedStatus struct {
	// +optional
	Phase string `json:"phase,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// StatusOnceDropped is one case: a field of status, written through /status.
type StatusOnceDropped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Status StatusOnceDroppedStatus `json:"status,omitempty"`
}

// QuotaWhenRemovedSpec is the spec of QuotaWhenRemoved.
type QuotaWhenRemovedSpec struct {
	// +immutable
	// +optional
	Queue string `json:"queue,omitempty"`
}

// QuotaWhenRemovedStatus holds the conditions its rule reads.
type QuotaWhenRemovedStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// QuotaWhenRemoved is one case: a condition over the status conditions, as Kueue's.
type QuotaWhenRemoved struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec QuotaWhenRemovedSpec `json:"spec"`
	// +optional
	Status QuotaWhenRemovedStatus `json:"status,omitempty"`
}

// QuotaWhenAddedSpec is the spec of QuotaWhenAdded.
type QuotaWhenAddedSpec struct {
	// +immutable
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	// +optional
	Queue string `json:"queue,omitempty"`
}

// QuotaWhenAddedStatus holds the conditions its rule reads.
type QuotaWhenAddedStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// QuotaWhenAdded is one case: a condition over the status conditions, as Kueue's.
type QuotaWhenAdded struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec QuotaWhenAddedSpec `json:"spec"`
	// +optional
	Status QuotaWhenAddedStatus `json:"status,omitempty"`
}

// QuotaWhenNarrowedSpec is the spec of QuotaWhenNarrowed.
type QuotaWhenNarrowedSpec struct {
	// +immutable
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	// +optional
	Queue string `json:"queue,omitempty"`
}

// QuotaWhenNarrowedStatus holds the conditions its rule reads.
type QuotaWhenNarrowedStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// QuotaWhenNarrowed is one case: a condition over the status conditions, as Kueue's.
type QuotaWhenNarrowed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec QuotaWhenNarrowedSpec `json:"spec"`
	// +optional
	Status QuotaWhenNarrowedStatus `json:"status,omitempty"`
}

// Listeners holds a list map, two levels below the field marked.
type Listeners struct {
	// +optional
	Group *ListenerGroup `json:"group,omitempty"`
}

// ListenerGroup holds the list map.
type ListenerGroup struct {
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Items []Listener `json:"items,omitempty"`
}

// Listener is an item of a list map.
type Listener struct {
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
}

// StructIgnoreOrderAddedSpec is the spec of StructIgnoreOrderAdded.
type StructIgnoreOrderAddedSpec struct {
	// +immutable
	// +immutable:ignoreOrder
	// +optional
	Listeners *Listeners `json:"listeners,omitempty"`
}

// +kubebuilder:object:root=true

// StructIgnoreOrderAdded is one case: ignoreOrder on a struct holding a list map.
type StructIgnoreOrderAdded struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec StructIgnoreOrderAddedSpec `json:"spec"`
}

// StructIgnoreOrderRemovedSpec is the spec of StructIgnoreOrderRemoved.
type StructIgnoreOrderRemovedSpec struct {
	// +immutable
	// +optional
	Listeners *Listeners `json:"listeners,omitempty"`
}

// +kubebuilder:object:root=true

// StructIgnoreOrderRemoved is one case: ignoreOrder on a struct holding a list map.
type StructIgnoreOrderRemoved struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec StructIgnoreOrderRemovedSpec `json:"spec"`
}
