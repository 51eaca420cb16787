package runtime

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/internal/engine"
)

// The vendor extensions Compile reads (named in package runtime/extension).
const (
	ExtImmutable     = extension.Immutable
	ExtImmutableKeys = extension.ImmutableKeys
	// ExtImmutableOnce is immutable-gen's own extension for
	// +immutable=once, beyond the KEP: a property that, once present, may
	// not change or be removed; while absent it may be set.
	ExtImmutableOnce = extension.ImmutableOnce
	// ExtNoModify is immutable-gen's own extension for validation-gen's
	// +k8s:update=NoModify alone, beyond the KEP: while present in the old
	// and the new object the value may not change; it may come and go.
	ExtNoModify = extension.NoModify
	// ExtNoSet and ExtNoUnset are immutable-gen's own extensions for
	// validation-gen's +k8s:update=NoSet and =NoUnset, beyond the KEP: the
	// property may not be added, or removed.
	ExtNoSet   = extension.NoSet
	ExtNoUnset = extension.NoUnset
	// ExtIgnoreOrder is immutable-gen's own extension for
	// +immutable:ignoreOrder, beyond the KEP: beside x-kubernetes-immutable
	// or x-immutable-gen-immutable-once, the list maps in the value compare
	// by key, their order ignored (as the API server's CEL compares them).
	ExtIgnoreOrder = extension.IgnoreOrder
	// ExtWhen is immutable-gen's own extension for +immutable:when, beyond the
	// KEP: a condition (a string, in package runtime/when's subset of CEL, on
	// self and oldSelf, the new and the old object at the kind's root) beside
	// the immutability extensions of the same schema, which then hold only in
	// the updates where it is true (docs/semantics.md, "Conditional
	// immutability").
	ExtWhen = extension.When
)

// MaxDepth bounds how deep the check descends into a value, and how deep
// Compile descends into a literal schema. It matches the nesting limit of
// the JSON decoder of the Kubernetes API server, so every object a server
// can store is checked in full; a deeper value is reported as a violation
// rather than overflowing the stack.
const MaxDepth = engine.MaxDepth

// Origin is the origin of every violation ValidateUpdate reports.
const Origin = engine.Origin

// A SchemaError is a problem Compile found in a schema. Path names the
// schema node, JSON-Schema style, e.g. "properties[spec].properties[ports]"
// (empty for the root).
type SchemaError = engine.SchemaError

// CRDOptions selects one CustomResourceDefinition of a manifest, and one of
// its versions. The zero value selects the only CRD of the manifest and its
// storage version.
type CRDOptions = engine.CRDOptions

// A Checker checks updates against the immutability extensions of one
// schema. It is read-only after Compile and safe for concurrent use.
//
// Its plan and JSON engine are in runtime/internal/engine, whose Checker
// has the same representation: runtime/webhook converts a *Checker to it
// for the trusted decoding of AdmissionReview bytes and the rendering of
// denials, which are not part of this package's API.
type Checker engine.Checker

func (c *Checker) engine() *engine.Checker { return (*engine.Checker)(c) }

// Compile compiles a schema carrying x-kubernetes-immutable,
// x-kubernetes-immutable-keys, x-immutable-gen-immutable-once,
// x-immutable-gen-no-modify and x-immutable-gen-ignore-order into a
// Checker. A $ref resolves against
// s.Definitions. Compile only reads s; s may be modified or reused
// afterwards without affecting the Checker.
//
// Compile fails, naming the schema path, when an extension has a value other
// than the boolean true, when x-kubernetes-immutable-keys is on a node
// without keys (neither additionalProperties nor x-kubernetes-list-type map),
// on malformed list and map extensions, on a $ref it cannot resolve, and when
// an immutability extension sits where it would have no effect (inside
// allOf, anyOf, oneOf, not, or next to a $ref).
func Compile(s *spec.Schema) (*Checker, error) {
	c, err := engine.Compile(s)
	return (*Checker)(c), err
}

// CompileWithDefinitions is Compile with $refs resolved against defs. A ref
// "#/definitions/NAME", "#/components/schemas/NAME" or "NAME" resolves to
// defs[NAME] (NAME JSON-pointer unescaped).
func CompileWithDefinitions(s *spec.Schema, defs spec.Definitions) (*Checker, error) {
	c, err := engine.CompileWithDefinitions(s, defs)
	return (*Checker)(c), err
}

// CompileCRD compiles the schema of one version of a CustomResourceDefinition
// (apiextensions.k8s.io/v1 or v1beta1) in a YAML or JSON manifest. The
// manifest may hold several documents and List objects; opts selects the
// CRD and the version.
//
// The openAPIV3Schema is decoded straight into a spec.Schema, so that the
// x-kubernetes-immutable extensions, which the typed apiextensions
// JSONSchemaProps would drop, survive. Schema errors name their path from the
// CRD, e.g. spec.versions[0].schema.openAPIV3Schema.properties[spec].
func CompileCRD(manifest []byte, opts CRDOptions) (*Checker, error) {
	c, err := engine.CompileCRD(manifest, opts)
	return (*Checker)(c), err
}

// CompileDefinitions compiles the definition called name out of the
// definitions a kube-openapi GetOpenAPIDefinitions function returns (the
// immutability extensions sit in their VendorExtensible). A $ref resolves
// whichever ReferenceCallback produced it: "#/definitions/X",
// "#/components/schemas/X" or a bare "X", where X is a definition's Go name
// (k8s.io/api/core/v1.Pod) or its REST-friendly name (io.k8s.api.core.v1.Pod),
// JSON-pointer escaped or not. A recursive type compiles into a cyclic plan,
// so recursion costs nothing at compile time and is bounded by the object
// at check time.
func CompileDefinitions(defs map[string]common.OpenAPIDefinition, name string) (*Checker, error) {
	c, err := engine.CompileDefinitions(defs, name)
	return (*Checker)(c), err
}

// Empty reports whether c checks nothing: no immutability extension of its
// schema applies (a schema without any, such as a CRD of the default CEL
// output, whose x-kubernetes-validations the API server enforces itself),
// so ValidateUpdate allows every update. A nil Checker is empty. The
// enforcers of runtime/enforce refuse a schema whose Checker is empty
// rather than serve a check that allows everything.
func (c *Checker) Empty() bool { return c.engine().Empty() }

// ValidateUpdate checks the update of old to obj and returns one error per
// violation, in a deterministic order: properties in name order, map keys in
// key order, list items in list order. A nil obj or old is an absent object:
// nothing is compared. ValidateUpdate does not allocate when obj and old are
// equal.
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
	return c.engine().ValidateUpdate(obj, old)
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
	return c.engine().ValidateUpdateAt(obj, old, fldPath)
}

// Field returns the Checker of the value at path, a chain of property
// names from the root of c's schema (Field("spec", "template")), for a
// caller that validates that value on its own, as apimachinery's
// ValidateXUpdate functions validate a part of an object. What is marked
// at and below the value is checked as c checks it; the value's own
// presence (its addition or removal) is the caller's, as the check starts
// where both values are present.
//
// A condition (x-immutable-gen-when) reads the kind's whole objects, not
// the value: a Checker that Field made evaluates its conditions on the
// objects given to ValidateUpdateBelow, typed by c's schema, which must be
// the kind's (Compile the kind's schema, then take its fields; a Checker
// compiled from a part of the schema types its conditions by that part as
// if it were the root). Where a condition must be evaluated and
// ValidateUpdate or ValidateUpdateAt was called, which do not have the
// kind's objects, the update is refused with a field.ErrorTypeInternal
// that says so.
//
// Field fails on a name the schema does not have as a property (a key of
// additionalProperties or a list item has no one schema path of its own to
// name) and on an empty path.
func (c *Checker) Field(path ...string) (*Checker, error) {
	f, err := c.engine().Field(path...)
	return (*Checker)(f), err
}

// ValidateUpdateBelow is ValidateUpdateAt for a Checker that Field made:
// obj and old are the values at its field, found at fldPath, and root and
// oldRoot the kind's whole new and old objects, which its conditions
// (x-immutable-gen-when) read as self and oldSelf. A condition's failure
// refuses the update with one field.ErrorTypeInvalid at fldPath. For a
// Checker of the kind itself, root and oldRoot are ignored: its conditions
// read obj and old.
func (c *Checker) ValidateUpdateBelow(obj, old map[string]interface{}, fldPath *field.Path, root, oldRoot map[string]interface{}) field.ErrorList {
	return c.engine().ValidateUpdateBelow(obj, old, fldPath, root, oldRoot)
}

// ValidateUpdateTyped is ValidateUpdate for Go values: API structs (or
// pointers to them) are converted to unstructured content with
// runtime.DefaultUnstructuredConverter, as the API server would serialize
// them; a map[string]interface{} or a runtime.Unstructured (such as
// *unstructured.Unstructured) is used as is. A nil value is an absent object.
//
// When obj and old are deeply equal Go values nothing is converted: equal
// values serialize equally, so there is nothing to report. A value that
// cannot be converted is reported as one field.ErrorTypeInternal error.
func (c *Checker) ValidateUpdateTyped(obj, old interface{}) field.ErrorList {
	return c.engine().ValidateUpdateTyped(obj, old)
}

// DecodeObject decodes the JSON object raw for ValidateUpdate, reading only
// what the check reads. Members of an object that the check never visits (a
// pod template beside an immutable spec field, say) are validated and
// skipped, not built. An array or object that the check compares whole
// (immutable, or immutable once set) is validated and kept as its bytes:
// ValidateUpdate compares two such values as bytes, and decodes them only
// where the bytes differ, since keys in another order, 1.0 for 1, escaped
// characters or a reordered set may still be equal (docs/semantics.md,
// 2.3). The other parts the check reads are decoded as the API server
// decodes unstructured content (k8s.io/apimachinery/pkg/util/json:
// integers as int64, other numbers as float64), so ValidateUpdate returns
// the same errors for two objects decoded with DecodeObject as for the same
// objects decoded in full. The result is for ValidateUpdate only: it is not
// the object, and it shares memory with raw, which must not change while
// the result is in use.
//
// DecodeObject accepts exactly what utiljson.Unmarshal into a
// map[string]interface{} accepts, and fails where it fails: invalid JSON, a
// number beyond float64, nesting deeper than 10000, a value other than an
// object or null. JSON null decodes to a nil map, as there. The time it
// takes is linear in len(raw).
func (c *Checker) DecodeObject(raw []byte) (map[string]interface{}, error) {
	return c.engine().DecodeObject(raw)
}

// DecodeOldObject is DecodeObject for the old object of an update whose new
// object DecodeObject decoded into obj: it decodes raw to the same result
// (the same verdicts from ValidateUpdate, the same errors), but a value
// compared whole whose bytes are those of the same value in obj is
// recognised by comparing bytes rather than scanned again, as is the
// common case (the API server serialises both objects the same way). The
// result shares memory with raw and with obj's bytes, which must not
// change while it is in use.
func (c *Checker) DecodeOldObject(raw []byte, obj map[string]interface{}) (map[string]interface{}, error) {
	return c.engine().DecodeOldObject(raw, obj)
}
