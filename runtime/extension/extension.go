// Package extension names the OpenAPI vendor extensions that carry
// immutability in a schema, once for everything that writes or reads them:
// the generator's model and emitters, lint, the code openapi generates
// (through runtime/immutableopenapi) and the runtime. It imports nothing.
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
)

// Names are the seven extensions, in the order above.
func Names() []string {
	return []string{Immutable, ImmutableKeys, ImmutableOnce, IgnoreOrder, NoModify, NoSet, NoUnset}
}
