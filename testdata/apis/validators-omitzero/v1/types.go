package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/immutable-gen/immutable-gen/testdata/apis/validators-omitzero/v1/opaque"
)

// ZeroSpec holds a field with the json option omitzero of each kind of
// type.
type ZeroSpec struct {
	// Name never changes.
	// +immutable
	Name string `json:"name"`

	// Meta is not comparable (a map and a slice): left out only when every
	// field is zero; an empty, non-nil list is not zero.
	// +immutable
	// +optional
	Meta Meta `json:"meta,omitzero"`

	// Outer is walked (the marker is inside it) and holds a non-comparable
	// struct: Outer is in the JSON when Inner is not zero.
	// +optional
	Outer Outer `json:"outer,omitzero"`

	// Sched holds arrays, one of a non-comparable type.
	// +optional
	Sched Sched `json:"sched,omitzero"`

	// Slots is an array compared whole: left out when every element is
	// zero.
	// +immutable
	// +optional
	Slots Slots `json:"slots,omitzero"`

	// MetaPtr is zero only when nil: a pointer to a zero Meta is {}.
	// +immutable=once
	// +optional
	MetaPtr *Meta `json:"metaPtr,omitzero"`

	// Version has IsZero on the value receiver, which ignores its notes.
	// +immutable
	// +optional
	Version Version `json:"version,omitzero"`

	// VersionPtr is left out when nil or when IsZero says so.
	// +immutable
	// +optional
	VersionPtr *Version `json:"versionPtr,omitzero"`

	// Handle has IsZero on the pointer receiver.
	// +immutable
	// +optional
	Handle Handle `json:"handle,omitzero"`

	// HandlePtr is left out when nil or when IsZero says so.
	// +immutable=once
	// +optional
	HandlePtr *Handle `json:"handlePtr,omitzero"`

	// Started is left out when nil or zero (metav1.Time's IsZero on the
	// pointer receiver).
	// +immutable=once
	// +optional
	Started *metav1.Time `json:"started,omitzero"`

	// Wrapped embeds Meta, by value.
	// +immutable
	// +optional
	Wrapped Wrapped `json:"wrapped,omitzero"`

	// Both has omitempty and omitzero: left out when empty or nil.
	// +immutable
	// +optional
	Both []string `json:"both,omitempty,omitzero"`

	// List is left out when nil; an empty list is [].
	// +immutable
	// +optional
	List []string `json:"list,omitzero"`

	// Labels are left out when nil; an empty map is {}.
	// +immutable=keys
	// +optional
	Labels map[string]string `json:"labels,omitzero"`

	// Box is a struct of another package with unexported fields (one not
	// comparable): reflect decides its zero value.
	// +immutable
	// +optional
	Box opaque.Box `json:"box,omitzero"`

	// Private is a local struct with unexported fields, not comparable.
	// +immutable
	// +optional
	Private Private `json:"private,omitzero"`

	// Pair is comparable: compared with its zero value.
	// +immutable
	// +optional
	Pair Pair `json:"pair,omitzero"`

	// Probed holds an interface with IsZero.
	// +optional
	Probed Probed `json:"probed,omitzero"`

	// Base is embedded without a name: its fields are ZeroSpec's, and
	// omitzero on it does nothing (encoding/json ignores options of a
	// promoted embedding).
	Base `json:",inline,omitzero"`
}

// Meta is object-metadata-like: not comparable.
type Meta struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Finalizers []string `json:"finalizers,omitempty"`
	// +optional
	Name string `json:"name,omitempty"`
}

// Outer holds an immutable identifier and a non-comparable struct.
type Outer struct {
	// ID never changes while Outer is there.
	// +immutable
	// +optional
	ID string `json:"id,omitempty"`
	// +optional
	Inner Meta `json:"inner,omitzero"`
	// +optional
	Refs []*string `json:"refs,omitempty"`
}

// Slots is an array of a non-comparable type. controller-gen's deep-copy
// generator refuses arrays: its DeepCopyInto is written by hand (copies.go).
// +kubebuilder:object:generate=false
type Slots [2]Meta

// Sched holds arrays (its DeepCopyInto is in copies.go).
// +kubebuilder:object:generate=false
type Sched struct {
	// Owner never changes while Sched is there.
	// +immutable
	// +optional
	Owner string `json:"owner,omitempty"`
	// +optional
	Days [3]bool `json:"days"`
	// +optional
	Windows [2]Meta `json:"windows"`
}

// Version is left out when its major and minor are zero, whatever its
// notes.
type Version struct {
	Major int32 `json:"major"`
	Minor int32 `json:"minor"`
	// +optional
	Notes []string `json:"notes,omitempty"`
}

// IsZero ignores the notes.
func (v Version) IsZero() bool { return v.Major == 0 && v.Minor == 0 }

// Handle is left out when its ID is empty, whatever its aliases.
type Handle struct {
	// +optional
	ID string `json:"id,omitempty"`
	// +optional
	Aliases []string `json:"aliases,omitempty"`
}

// IsZero is on the pointer receiver.
func (h *Handle) IsZero() bool { return h == nil || h.ID == "" }

// Wrapped embeds Meta.
type Wrapped struct {
	Meta `json:",inline"`
	// +optional
	Kind string `json:"kind,omitempty"`
}

// Private has unexported fields, not in its JSON but in its zero value,
// and a blank one, which does not count. controller-gen's deep-copy
// generator does not take a blank field: its DeepCopyInto is in copies.go.
// +kubebuilder:object:generate=false
type Private struct {
	// +optional
	Value string   `json:"value,omitempty"`
	notes []string `json:"-"`
	_     []int    `json:"-"`
}

// SetNotes sets the unexported notes.
func (p *Private) SetNotes(n []string) { p.notes = n }

// Pair is comparable.
type Pair struct {
	// +optional
	Key string `json:"key,omitempty"`
	// +optional
	Weight float64 `json:"weight,omitempty"`
}

// Base is embedded in ZeroSpec.
type Base struct {
	// Region never changes.
	// +immutable
	// +optional
	Region Meta `json:"region,omitzero"`
}

// +kubebuilder:object:root=true

// Zero is the test kind.
type Zero struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// +required
	Spec ZeroSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// ZeroList is a list of Zeros.
type ZeroList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []Zero `json:"items"`
}

// Zeroer is an interface whose method set has IsZero.
// +kubebuilder:object:generate=false
type Zeroer interface {
	IsZero() bool
}

// Level implements Zeroer on the value receiver.
type Level struct {
	// +optional
	N int32 `json:"n,omitempty"`
}

// IsZero reports whether N is zero.
func (l Level) IsZero() bool { return l.N == 0 }

// Probed holds an interface with IsZero (its DeepCopyInto is in copies.go:
// controller-gen's deep-copy generator does not copy interfaces).
// +kubebuilder:object:generate=false
type Probed struct {
	// Probe is left out when nil, when it holds a nil pointer, or when
	// IsZero says so; once there it may not be removed.
	// +k8s:update=NoUnset
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Probe Zeroer `json:"probe,omitzero"`
}
