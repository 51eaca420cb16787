package engine

import (
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/when"
)

// MaxDepth bounds how deep the check descends into a value, and how deep
// Compile descends into a literal schema. It matches the nesting limit of
// the JSON decoder of the Kubernetes API server, so every object a server
// can store is checked in full; a deeper value is reported as a violation
// rather than overflowing the stack.
const MaxDepth = 10000

// A Checker checks updates against the immutability extensions of one
// schema. It is read-only after Compile and safe for concurrent use.
type Checker struct {
	root *node
	h    hasher
	// whenRoot types what the conditions (x-immutable-gen-when) read: the
	// schema of the whole object; nil when there are none.
	whenRoot *when.Schema
	// field is, for a Checker that Field made, the path of its value in
	// the kind (properties joined by "."); "" for a Checker of the kind.
	field string
	// indices pools the hash indices (hashindex.go) of the comparisons
	// that correlate items, so that a reordered set or list map costs no
	// allocation.
	indices sync.Pool
	// spans pools the item spans of the comparisons of sets kept as
	// bytes (rawequal.go).
	spans sync.Pool
	// shares pools the span tables of DecodeUpdate (share.go).
	shares sync.Pool
}

func newChecker(root *node) *Checker {
	return &Checker{root: root, h: newHasher()}
}

// Empty reports whether c checks nothing: no immutability extension of its
// schema applies (a schema without any, such as a CRD of the default CEL
// output, whose x-kubernetes-validations the API server enforces itself),
// so ValidateUpdate allows every update. A nil Checker is empty. The
// enforcers of runtime/enforce refuse a schema whose Checker is empty
// rather than serve a check that allows everything.
func (c *Checker) Empty() bool {
	return c == nil || !c.root.needsWalk()
}

// ValidateUpdate checks the update of old to obj and returns one error per
// violation, in a deterministic order: properties in name order, map keys in
// key order, list items in list order. A nil obj or old is an absent object:
// nothing is compared. ValidateUpdate does not allocate on an update it
// allows (scratch memory is pooled per Checker), and on one it refuses
// allocates the errors, their paths and the values they hold.
//
// Violations are field.ErrorTypeInvalid "field is immutable" for a changed
// value, and field.ErrorTypeForbidden for an added or removed immutable
// field, a removed immutable-once field (x-immutable-gen-immutable-once),
// or a key added or removed under x-kubernetes-immutable-keys; all carry the origin
// "immutable". A value that is not JSON (a Go type other than the
// unstructured ones, NaN, an infinity) where a comparison needs it is
// reported as field.ErrorTypeInternal; a value nested deeper than MaxDepth as
// field.ErrorTypeInvalid.
//
// Paths are from the root of the object: "spec.ports[2].name",
// "spec.labels[team]"; a violation of the root itself has the path "".
// ValidateUpdateAt checks a value below a path prefix.
func (c *Checker) ValidateUpdate(obj, old map[string]interface{}) field.ErrorList {
	return c.ValidateUpdateAt(obj, old, nil)
}

// ValidateUpdateAt is ValidateUpdate for obj and old found at fldPath in a
// larger object, after apimachinery's ValidateXUpdate(new, old, fldPath)
// convention: every error's path starts with fldPath, so a Checker compiled
// for a pod template reports "spec.template.spec.containers[0].image" when
// called with field.NewPath("spec", "template"). Conditions
// (x-immutable-gen-when) are evaluated on obj and old as self and oldSelf:
// a Checker of the kind is to be given the kind's whole objects, fldPath
// only prefixing the errors; a caller that checks a value below the root
// on its own takes its Checker with Field and passes the kind's whole
// objects to ValidateUpdateBelow. A nil fldPath is the root,
// as in ValidateUpdate. Paths are built only when there is a violation to
// report: ValidateUpdateAt does not allocate when obj and old are equal.
func (c *Checker) ValidateUpdateAt(obj, old map[string]interface{}, fldPath *field.Path) field.ErrorList {
	return c.validate(obj, old, fldPath, false)
}

// ValidateUpdateMarshaled is ValidateUpdate for a caller that writes the
// errors' values as JSON, as a webhook's denial does. On objects that
// DecodeObject and DecodeOldObject decoded, it reports a changed value that
// DecodeObject kept as its bytes with a MarshaledValue, the JSON
// json.Marshal writes for the decoded value, written from those bytes
// without decoding them, where ValidateUpdate reports the decoded value
// (MarshaledValue.Value); a value too long to be quoted is reported by its
// JSON type by both (immutable.Reported). The errors are otherwise
// ValidateUpdate's.
func (c *Checker) ValidateUpdateMarshaled(obj, old map[string]interface{}) field.ErrorList {
	return c.validate(obj, old, nil, true)
}

func (c *Checker) validate(obj, old map[string]interface{}, fldPath *field.Path, marshal bool) field.ErrorList {
	self, oldSelf := obj, old
	if c != nil && c.field != "" {
		// A Checker for a value below the kind's root: its conditions
		// read objects it was not given (ValidateUpdateBelow).
		self, oldSelf = nil, nil
	}
	return c.validateIn(obj, old, self, oldSelf, fldPath, marshal)
}

// validateIn checks obj and old, whose conditions read the kind's objects
// self and oldSelf (nil when not given).
func (c *Checker) validateIn(obj, old, self, oldSelf map[string]interface{}, fldPath *field.Path, marshal bool) field.ErrorList {
	if c == nil || obj == nil || old == nil {
		return nil
	}
	probe := walker{c: c, self: self, oldSelf: oldSelf}
	probe.walk(c.root, obj, old, nil, 0)
	if !probe.found {
		return nil
	}
	// The conditions the probe evaluated are not evaluated again.
	w := walker{c: c, report: true, marshal: marshal, self: self, oldSelf: oldSelf, conds: probe.conds, root: fldPath}
	w.walk(c.root, obj, old, fldPath, 0)
	return w.errs
}
