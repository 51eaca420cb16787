// Package form is the one table of immutability forms. A form is what a
// marker, a validation-gen tag or an extension says of one schema node on
// an update: what may happen to its presence, what may happen to its value,
// and the modifiers beside it (list-map order ignored, a condition, a
// message). The table says, for each form, once:
//
//   - its meaning (Presence and Change), the one the runtime, the CEL
//     lowering, the typed validators, lint and migrate all give it;
//   - how it is written: immutable-gen's marker, validation-gen's tags,
//     the OpenAPI extensions;
//   - where it may stand (properties, named types, list items, map values;
//     on any node or only on nodes with keys);
//   - the message its generated rules give by default;
//   - the oldest Kubernetes each of its CEL lowerings needs, and why.
//
// Every marker parser, emitter, enforcer, lint and migrate reads a form's
// meaning here; `immutable-gen help markers` prints the table, and the form
// tables of docs/semantics.md and docs/guide.md are rendered from it.
// Adding a form is adding a row here and teaching it to each backend; a
// test fails for a backend that neither implements a form nor refuses it.
//
// The package imports only runtime/extension, so that the runtime module,
// generated code and the generator all read the same table.
package form

import (
	"strconv"
	"strings"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// Presence is what a form forbids of a node's presence between the old and
// the new object. The zero value forbids nothing.
type Presence uint8

const (
	// NoSet: a node absent in the old object may not be present in the new.
	NoSet Presence = 1 << iota
	// NoUnset: a node present in the old object may not be absent in the new.
	NoUnset
	// Kept is NoSet and NoUnset: the node is present in both or in neither.
	Kept = NoSet | NoUnset
)

// String names p as the table's JSON does: "kept", "noSet", "noUnset" or
// "free".
func (p Presence) String() string {
	switch p {
	case Kept:
		return "kept"
	case NoSet:
		return "noSet"
	case NoUnset:
		return "noUnset"
	}
	return "free"
}

// MarshalText writes p's String.
func (p Presence) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Change is what a form forbids of a node's value while it is present in
// the old and the new object.
type Change uint8

const (
	// AnyChange forbids nothing.
	AnyChange Change = iota
	// NoChange: the values are equal (docs/semantics.md, "Equal"); the form
	// covers the whole subtree.
	NoChange
	// NoKeyChange: the key sets are equal (a map's keys, a list map's key
	// tuples, compared as sets); the values may change.
	NoKeyChange
)

// String names c as the table's JSON does: "none" (no change), "keys"
// (no key change) or "any".
func (c Change) String() string {
	switch c {
	case NoChange:
		return "none"
	case NoKeyChange:
		return "keys"
	}
	return "any"
}

// MarshalText writes c's String.
func (c Change) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Form is one form with its modifiers, as one node carries it.
type Form struct {
	Presence Presence
	Change   Change
	// IgnoreOrder: the list maps in a value compared whole compare by key,
	// their order ignored (beyond the KEP, which compares them in order).
	// Only with Change NoChange.
	IgnoreOrder bool
	// When is a condition, CEL over the root objects self and oldSelf: the
	// form holds only on updates where it is true. "" always holds.
	When string
	// Message is the message of the generated rules; "" is the kind's
	// ValueMessage and PresenceMessage.
	Message string
}

// Kind is one row of the table: a form's meaning, spellings and places,
// without its modifiers.
type Kind struct {
	// Name is the form's name in the table, docs and machine-readable
	// output: "immutable", "keys", "once", "noModify", …
	Name     string   `json:"name"`
	Presence Presence `json:"presence"`
	Change   Change   `json:"change"`
	// Marker is immutable-gen's own marker for the form ("" where there is
	// none: validation-gen's tags are its only spelling).
	Marker string `json:"marker,omitempty"`
	// Tags are validation-gen's spellings of the form, as immutable-gen
	// reads them (the first is the one it writes).
	Tags []string `json:"tags"`
	// Extensions are the schema extensions that carry the form (all of
	// them, each true, on one node).
	Extensions []string `json:"extensions"`
	// Places are where the form may stand.
	Places Places `json:"places"`
	// Means says in one sentence what the form forbids.
	Means string `json:"means"`
	// ValueMessage is the message of the CEL rule that enforces the
	// form's change rule when no +immutable:message is written beside it
	// ("" for a form without one).
	ValueMessage string `json:"valueMessage,omitempty"`
	// PresenceMessage is the message of the CEL rule that enforces the
	// form's presence rule on the parent when no +immutable:message is
	// written beside it, a format of the property's name (%s); "" for a
	// form without one.
	PresenceMessage string `json:"presenceMessage,omitempty"`
	// BeyondKEP is true for the forms the immutable-fields KEP does not
	// define (its extensions are immutable-gen's own).
	BeyondKEP bool `json:"beyondKEP"`
}

// Places says where a form may be written.
type Places struct {
	// Properties: on a struct field, or a named type used as one.
	Properties bool `json:"properties"`
	// Elements: on list items and map values (a named type used as one,
	// or validation-gen's +k8s:eachVal); their presence comes and goes with
	// their index or key, so only forms without a presence rule of their
	// own mean something there.
	Elements bool `json:"elements"`
	// KeyedOnly: only on nodes that have keys: a map that is not
	// x-kubernetes-map-type: atomic, or an x-kubernetes-list-type: map list.
	KeyedOnly bool `json:"keyedOnly"`
}

// The modifiers' markers, written beside a form's marker on one field or
// type.
const (
	MessageMarker     = "+immutable:message"
	IgnoreOrderMarker = "+immutable:ignoreOrder"
	WhenMarker        = "+immutable:when"
)

// Modifier is a marker written beside a form's marker that changes how
// the form is enforced, not what it forbids.
type Modifier struct {
	Marker string `json:"marker"`
	// Extension carries the modifier in extensions mode ("" where the
	// modifier is written as a CEL rule instead).
	Extension string `json:"extension,omitempty"`
	// Beside names the kinds it may stand beside.
	Beside []string `json:"beside"`
	Means  string   `json:"means"`
}

// Modifiers are the markers that modify a form.
func Modifiers() []Modifier {
	var whole, all []string
	for _, k := range kinds {
		all = append(all, k.Name)
		if k.Change == NoChange {
			whole = append(whole, k.Name)
		}
	}
	return []Modifier{
		{
			Marker: IgnoreOrderMarker, Extension: extension.IgnoreOrder, Beside: whole,
			Means: "the list maps in the value compare by key, their order ignored (CEL's self == oldSelf, which needs no MaxItems); needs a list map at or under the node",
		},
		{
			Marker: WhenMarker + `="<CEL>"`, Beside: all,
			Means: "the form holds only on updates where the condition, CEL over the root objects self and oldSelf, is true; on a field reached from the root through properties only",
		},
		{
			Marker: MessageMarker + `="…"`, Beside: all,
			Means: "the message of the CEL rules that enforce the form (the runtime keeps its own)",
		},
	}
}

// kinds is the table. Its order is the order of every listing.
var kinds = [...]Kind{
	{
		Name: "immutable", Presence: Kept, Change: NoChange,
		Marker:          "+immutable",
		Tags:            []string{"+k8s:immutable", "+k8s:update=NoSet,NoUnset,NoModify"},
		Extensions:      []string{extension.Immutable},
		Places:          Places{Properties: true, Elements: true},
		Means:           "never set, removed or changed after creation; the whole subtree",
		ValueMessage:    "field is immutable",
		PresenceMessage: "%s is an immutable field: it may not be added or removed after creation",
	},
	{
		Name: "keys", Presence: Kept, Change: NoKeyChange,
		Marker:          "+immutable=keys",
		Tags:            []string{"+k8s:update=NoAddItem,NoRemoveItem", "+k8s:update=NoSet,NoUnset,NoAddItem,NoRemoveItem"},
		Extensions:      []string{extension.ImmutableKeys},
		Places:          Places{Properties: true, Elements: true, KeyedOnly: true},
		Means:           "no key added or removed, values may change; on a list map every key field must be immutable too",
		ValueMessage:    "keys are immutable: entries may not be added or removed",
		PresenceMessage: "%s is an immutable field with immutable keys: it may not be added or removed after creation",
	},
	{
		Name: "once", Presence: NoUnset, Change: NoChange,
		Marker:          "+immutable=once",
		Tags:            []string{"+k8s:update=NoUnset,NoModify"},
		Extensions:      []string{extension.ImmutableOnce},
		Places:          Places{Properties: true},
		Means:           "may be set after creation, then never changed or removed; on a required property the same as immutable",
		ValueMessage:    "field is immutable once set",
		PresenceMessage: "%s is immutable once set: it may not be removed",
		BeyondKEP:       true,
	},
	{
		Name: "noModify", Presence: 0, Change: NoChange,
		Tags:         []string{"+k8s:update=NoModify"},
		Extensions:   []string{extension.NoModify},
		Places:       Places{Properties: true},
		Means:        "never changed while present; may be removed and set again",
		ValueMessage: "field is immutable while set",
		BeyondKEP:    true,
	},
	{
		Name: "noSetNoModify", Presence: NoSet, Change: NoChange,
		Tags:            []string{"+k8s:update=NoSet,NoModify"},
		Extensions:      []string{extension.NoModify, extension.NoSet},
		Places:          Places{Properties: true},
		Means:           "never added after creation nor changed; may be removed",
		ValueMessage:    "field is immutable while set",
		PresenceMessage: "%s: it may not be added",
		BeyondKEP:       true,
	},
	{
		Name: "noSetNoUnset", Presence: Kept, Change: AnyChange,
		Tags:            []string{"+k8s:update=NoSet,NoUnset"},
		Extensions:      []string{extension.NoSet, extension.NoUnset},
		Places:          Places{Properties: true},
		Means:           "never added or removed after creation; the value may change",
		PresenceMessage: "%s: it may not be added or removed",
		BeyondKEP:       true,
	},
	{
		Name: "noSet", Presence: NoSet, Change: AnyChange,
		Tags:            []string{"+k8s:update=NoSet"},
		Extensions:      []string{extension.NoSet},
		Places:          Places{Properties: true},
		Means:           "never added after creation; may change and be removed",
		PresenceMessage: "%s: it may not be added",
		BeyondKEP:       true,
	},
	{
		Name: "noUnset", Presence: NoUnset, Change: AnyChange,
		Tags:            []string{"+k8s:update=NoUnset"},
		Extensions:      []string{extension.NoUnset},
		Places:          Places{Properties: true},
		Means:           "never removed once present; may be set later and changed",
		PresenceMessage: "%s: it may not be removed",
		BeyondKEP:       true,
	},
}

// Kinds returns the table, one row a form, in its order.
func Kinds() []Kind {
	out := make([]Kind, len(kinds))
	copy(out, kinds[:])
	return out
}

// Lookup returns the kind with the given presence and change rules, and
// whether the table has one (the zero Presence and AnyChange, which forbid
// nothing, is no form).
func Lookup(p Presence, c Change) (Kind, bool) {
	for _, k := range kinds {
		if k.Presence == p && k.Change == c {
			return k, true
		}
	}
	return Kind{}, false
}

// Named returns the kind called name, and whether there is one.
func Named(name string) (Kind, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Kind returns f's row of the table, and whether it has one.
func (f Form) Kind() (Kind, bool) { return Lookup(f.Presence, f.Change) }

// Spelling is how the form is written in Go: immutable-gen's marker, else
// validation-gen's first tag.
func (k Kind) Spelling() string {
	if k.Marker != "" {
		return k.Marker
	}
	return k.Tags[0]
}

// HasExtension reports whether ext is one of the extensions carrying k.
func (k Kind) HasExtension(ext string) bool {
	for _, e := range k.Extensions {
		if e == ext {
			return true
		}
	}
	return false
}

// Canonical returns what f means on a node: a presence rule that cannot
// fail there is dropped or merged. always is true where the node can never
// be absent from an object (a required property; list items and map
// values, whose presence is their index's or key's): there every form with
// a change rule keeps presence (`=once` and `noModify` are `+immutable`),
// and a presence rule alone forbids nothing. ignoreOrder goes only with
// NoChange.
func (f Form) Canonical(always bool) Form {
	if always {
		if f.Change == AnyChange {
			f.Presence = 0
		} else {
			f.Presence = Kept
		}
	}
	if f.Change != NoChange {
		f.IgnoreOrder = false
	}
	return f
}

// Lowering is one shape of CEL the generator writes for a form, with the
// oldest Kubernetes minor version whose API server accepts it and why
// (docs/semantics.md, "The Kubernetes floor").
type Lowering struct {
	// Name names the lowering: "transition", "field path", "atomic
	// items", "list map order".
	Name string `json:"name"`
	// Where says which rules use it.
	Where string `json:"where"`
	// MinKubernetes is the oldest minor version that accepts it, "1.N".
	MinKubernetes string `json:"minKubernetes"`
	// Feature is what the rules use that needs that version.
	Feature string `json:"feature"`
	// Since says from when the API server has the feature, and why that
	// is the version.
	Since string `json:"since"`
}

// Reason is the feature and since when the API server has it.
func (l Lowering) Reason() string { return l.Feature + ", " + l.Since }

// AtomicItemsMessage is the message of the one rule that enforces the forms
// in the items of an atomic list, unless they all have the same
// +immutable:message.
const AtomicItemsMessage = "items are immutable where marked: an item at an existing index may not change"

// twoVariable is the feature of the lowerings that compare items index by
// index.
const (
	twoVariable      = "a two-variable comprehension (`all(i, x, …)`)"
	twoVariableSince = "the CEL environment has it from 1.32, and an API server accepts new expressions at its compatibility version, one minor back"
)

// Lowerings are the CEL shapes of every form, from the oldest Kubernetes
// they need to the newest.
func Lowerings() []Lowering {
	return []Lowering{
		{
			Name: "transition", MinKubernetes: "1.25",
			Where:   "every rule: a transition rule on the node, and a presence rule on its parent",
			Feature: "CEL transition rules in x-kubernetes-validations",
			Since:   "on by default from Kubernetes 1.25",
		},
		{
			Name: "field path", MinKubernetes: "1.28",
			Where:   "the rules that name their field with fieldPath and reason: every presence rule (on the parent) and every +immutable:when rule (on the root)",
			Feature: "the rule's fieldPath and reason",
			Since:   "which x-kubernetes-validations has from Kubernetes 1.28 (older servers drop them)",
		},
		{
			Name: "atomic items", MinKubernetes: "1.33",
			Where:   "a form on the items of an atomic list (or below them): one rule on the list comparing each index the old and the new share",
			Feature: twoVariable, Since: twoVariableSince,
		},
		{
			Name: "list map order", MinKubernetes: "1.33",
			Where:   "immutable or once on a value holding a list map inside list items, without " + IgnoreOrderMarker + ": the key order compared item by item",
			Feature: twoVariable, Since: twoVariableSince,
		},
	}
}

// LoweringNamed returns the lowering called name; it panics for a name
// the table does not have (the names are this package's).
func LoweringNamed(name string) Lowering {
	for _, l := range Lowerings() {
		if l.Name == name {
			return l
		}
	}
	panic("form: no lowering " + name)
}

// FromExtensions returns the form that the extensions on one schema node
// say (set reports whether an extension is there with the value true),
// and whether they make a form of the table. Immutable and ImmutableKeys
// win over the presence extensions, which the runtime and placement refuse
// beside them.
func FromExtensions(set func(ext string) bool) (Form, bool) {
	var f Form
	switch {
	case set(extension.Immutable):
		f = Form{Presence: Kept, Change: NoChange}
	case set(extension.ImmutableKeys):
		f = Form{Presence: Kept, Change: NoKeyChange}
	case set(extension.ImmutableOnce):
		f = Form{Presence: NoUnset, Change: NoChange}
	default:
		if set(extension.NoSet) {
			f.Presence |= NoSet
		}
		if set(extension.NoUnset) {
			f.Presence |= NoUnset
		}
		if set(extension.NoModify) {
			f.Change = NoChange
		}
	}
	f.IgnoreOrder = f.Change == NoChange && set(extension.IgnoreOrder)
	_, ok := f.Kind()
	return f, ok
}

// String renders f as it is written in Go: the kind's spelling and the
// modifiers beside it, one a line.
func (f Form) String() string {
	k, ok := f.Kind()
	if !ok {
		return "no form"
	}
	lines := []string{k.Spelling()}
	if f.IgnoreOrder {
		lines = append(lines, IgnoreOrderMarker)
	}
	if f.When != "" {
		lines = append(lines, WhenMarker+"="+strconv.Quote(f.When))
	}
	if f.Message != "" {
		lines = append(lines, MessageMarker+"="+strconv.Quote(f.Message))
	}
	return strings.Join(lines, " ")
}
