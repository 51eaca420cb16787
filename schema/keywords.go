package schema

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// The keywords of a schema node, read from the JSON tree the model is built
// on. Callers outside this package read a node only through these methods.

// Has reports whether the node has the keyword (or extension) at all,
// whatever its value: `maxItems`, `default`, `enum`,
// `x-kubernetes-validations`.
func (n *Node) Has(keyword string) bool {
	_, ok := n.raw[keyword]
	return ok
}

// Description is the node's `description`.
func (n *Node) Description() string { s, _ := n.raw["description"].(string); return s }

// Format is the node's `format`.
func (n *Node) Format() string { s, _ := n.raw["format"].(string); return s }

// HasDefault reports whether the node has a `default`.
func (n *Node) HasDefault() bool { return n.Has("default") }

// AlwaysPresent reports whether the property n exists whenever its parent
// does: it is required, or defaulted. False for the root, list items and map
// values.
func (n *Node) AlwaysPresent() bool {
	return n.Edge == Property && (n.HasDefault() || n.Parent.Required(n.Name))
}

// Enum is the node's `enum`: the values it allows, nil without one.
func (n *Node) Enum() []any {
	e, _ := n.raw["enum"].([]any)
	return e
}

// MaxItems is the node's `maxItems`; ok is false without one.
func (n *Node) MaxItems() (max int64, ok bool) { return n.integer("maxItems") }

// MaxLength is the node's `maxLength`; ok is false without one.
func (n *Node) MaxLength() (max int64, ok bool) { return n.integer("maxLength") }

// MaxProperties is the node's `maxProperties`; ok is false without one.
func (n *Node) MaxProperties() (max int64, ok bool) { return n.integer("maxProperties") }

// integer reads an integer keyword as the decoders leave it: json.Number,
// float64 (a whole one) or a Go integer.
func (n *Node) integer(keyword string) (int64, bool) {
	switch v := n.raw[keyword].(type) {
	case json.Number:
		i, err := v.Int64()
		return i, err == nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return int64(v), true
		}
	case int:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// Extension is the value of the vendor extension (or any other keyword)
// name on the node, as decoded; ok is false when the node has none.
func (n *Node) Extension(name string) (value any, ok bool) {
	value, ok = n.raw[name]
	return value, ok
}

// ExtensionTrue reports whether the extension name is the JSON boolean true
// on the node, the only value the KEP's extensions take.
func (n *Node) ExtensionTrue(name string) bool { return n.raw[name] == true }

// Rule is one entry of a node's `x-kubernetes-validations`.
type Rule struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            string
	FieldPath         string
	OptionalOldSelf   bool
}

// Rules are the node's `x-kubernetes-validations`, in order. Entries that
// are not objects, and fields that are not of their type, read as empty.
func (n *Node) Rules() []Rule {
	list, _ := n.raw[extension.Validations].([]any)
	if len(list) == 0 {
		return nil
	}
	out := make([]Rule, len(list))
	for i, e := range list {
		m, _ := e.(map[string]any)
		r := &out[i]
		r.Rule, _ = m["rule"].(string)
		r.Message, _ = m["message"].(string)
		r.MessageExpression, _ = m["messageExpression"].(string)
		r.Reason, _ = m["reason"].(string)
		r.FieldPath, _ = m["fieldPath"].(string)
		r.OptionalOldSelf, _ = m["optionalOldSelf"].(bool)
	}
	return out
}

// Hidden is a vendor extension found inside a value validation of a node
// (allOf, anyOf, oneOf, not), where nothing reads it.
type Hidden struct {
	// Keyword is the value validation it is in, e.g. "allOf".
	Keyword string
	// Where is the schema below the node that holds it, e.g.
	// `allOf[0].properties.x`.
	Where string
	// Extension is its name, one of the given names.
	Extension string
}

// HiddenExtensions finds the extensions named in names inside the node's
// value validations, in the order of VisitJSON.
func (n *Node) HiddenExtensions(names ...string) []Hidden {
	if !hasValueValidations(n.raw) {
		return nil
	}
	var out []Hidden
	names = slices.Sorted(slices.Values(names))
	VisitJSON(n.raw, func(at Steps, s map[string]any) bool {
		switch {
		case len(at) == 0:
			return true
		case len(at) == 1 && at[0].Edge <= Values:
			return false // the model's own children
		}
		for _, name := range names {
			if _, ok := s[name]; ok {
				out = append(out, Hidden{Keyword: at[0].Edge.keyword(), Where: at.String(), Extension: name})
			}
		}
		return true
	})
	return out
}
