// Package extension names the OpenAPI vendor extensions that carry
// immutability in a schema, once for everything that writes or reads them:
// the generator's model and emitters, lint, the code openapi generates
// (through runtime/immutableopenapi) and the runtime; and it words, once,
// the placement rules that the runtime checks again. It imports nothing.
package extension

const (
	// Immutable is the immutable-fields KEP's extension for +immutable:
	// the value never changes after creation.
	Immutable = "x-kubernetes-immutable"
	// ImmutableKeys is the KEP's extension for +immutable=keys: the keys
	// of a map or the key tuples of a list map never change.
	ImmutableKeys = "x-kubernetes-immutable-keys"
	// ImmutableOnce is immutable-gen's own extension for +immutable=once,
	// beyond the KEP: a property that, once present, may not change or be
	// removed; while absent it may be set.
	ImmutableOnce = "x-immutable-gen-immutable-once"
	// IgnoreOrder is immutable-gen's own extension for
	// +immutable:ignoreOrder, beyond the KEP: beside Immutable or
	// ImmutableOnce on the same schema, the list maps in the value compare
	// by key, their order ignored.
	IgnoreOrder = "x-immutable-gen-ignore-order"
	// NoModify is immutable-gen's own extension for validation-gen's
	// +k8s:update=NoModify alone, beyond the KEP: a property whose value,
	// while present in the old and the new object, may not change; it may
	// be set, removed and set again.
	NoModify = "x-immutable-gen-no-modify"
	// NoSet and NoUnset are immutable-gen's own extensions for
	// validation-gen's +k8s:update=NoSet and =NoUnset where no other form
	// says the same, beyond the KEP: an absent property may not be added
	// (NoSet), a present one may not be removed (NoUnset); the value itself
	// may change unless another extension says otherwise.
	NoSet   = "x-immutable-gen-no-set"
	NoUnset = "x-immutable-gen-no-unset"
	// When is immutable-gen's own extension for +immutable:when, beyond
	// the KEP: a string, a condition in the runtime's subset of CEL
	// (package runtime/when) on self and oldSelf, the new and the old
	// object at the kind's root. Beside the boolean extensions of one
	// schema, it makes what they say hold only in the updates where the
	// condition is true; where it is false they allow every change, and
	// where its evaluation fails the update is refused, as the API server
	// refuses an update whose rule fails.
	When = "x-immutable-gen-when"
)

// Names are the seven boolean extensions, in the order above; When, a
// string beside them, is not one.
func Names() []string {
	return []string{Immutable, ImmutableKeys, ImmutableOnce, IgnoreOrder, NoModify, NoSet, NoUnset}
}

// The placement rules that runtime.Compile checks again on a schema it is
// given are worded here, once, in the extensions' terms: package placement
// reports the same findings with these texts when it reads extensions
// (lint, the generator's extensions mode) and in the markers' own terms
// at the Go source.

// HaveKeys names the nodes that have keys, for ImmutableKeys.
const HaveKeys = "maps (additionalProperties) and list maps (x-kubernetes-list-type: map)"

// NoKeys words the refusal of ImmutableKeys on a node without keys of its
// own: kind is "atomic map", "set", "atomic list", "struct", or the type
// of a scalar ("string", "integer", "untyped", …). It returns the message
// and the fix.
func NoKeys(kind string) (message, fix string) {
	switch kind {
	case "atomic map":
		return ImmutableKeys + " is not allowed on an atomic map: it has no keys of its own to keep",
			"use `" + Immutable + ": true`, or drop x-kubernetes-map-type: atomic"
	case "set":
		return ImmutableKeys + " is not allowed on a set (KEP: set items are keys, so only " + Immutable + " is allowed)",
			"use `" + Immutable + ": true`: the items of a set are their own keys"
	case "atomic list":
		return ImmutableKeys + " is not allowed on an atomic list: it has no keys",
			"use `" + Immutable + ": true`, or make it a list map with x-kubernetes-list-type: map and x-kubernetes-list-map-keys"
	case "struct":
		return ImmutableKeys + " is not allowed on a struct: only " + HaveKeys + " have keys",
			"use `" + Immutable + ": true` on the object or on its properties"
	}
	return ImmutableKeys + " is not allowed on " + article(kind) + " " + kind + " value: only " + HaveKeys + " have keys",
		"use `" + Immutable + ": true`"
}

// NotOnElements words the refusal of a form about a property's presence
// (ImmutableOnce, NoModify, NoSet, NoUnset: ext) on list items (values
// false) or map values (values true), which come and go with their index
// or key. It returns the message, naming the node's path where (if not
// empty), and the fix.
func NotOnElements(ext string, values bool, where string) (message, fix string) {
	what, why, container := "list items", "items come and go with their index or key", "list"
	if values {
		what, why, container = "map values", "values come and go with their key", "map"
	}
	if where != "" {
		what += " (" + where + ")"
	}
	if ext == ImmutableOnce {
		return ext + " is not allowed on " + what + ": " + why + ", so they are never set later",
			"put " + ext + " on the " + container + " property instead, or " + Immutable + " on the " + elements(values) + " to fix each " + element(values)
	}
	return ext + " is not allowed on " + what + ": " + why + ", so only " + Immutable + " means something there",
		"use " + Immutable + " on the " + elements(values) + " (validation-gen's +k8s:eachVal=+k8s:update=NoModify)"
}

func elements(values bool) string {
	if values {
		return "values"
	}
	return "items"
}

func element(values bool) string {
	if values {
		return "value"
	}
	return "item"
}

// article is "a" or "an" before word.
func article(word string) string {
	if word != "" {
		switch word[0] {
		case 'a', 'e', 'i', 'o', 'u':
			return "an"
		}
	}
	return "a"
}

// The Kubernetes structural-schema extensions (the apiextensions-apiserver's
// names) that immutable-gen reads beside its own: the shape of lists and
// maps, what is not pruned, and the CEL rules.
const (
	ListType              = "x-kubernetes-list-type"
	ListMapKeys           = "x-kubernetes-list-map-keys"
	MapType               = "x-kubernetes-map-type"
	PreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	EmbeddedResource      = "x-kubernetes-embedded-resource"
	IntOrString           = "x-kubernetes-int-or-string"
	Validations           = "x-kubernetes-validations"
)
