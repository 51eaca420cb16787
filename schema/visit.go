package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// The value validations: edges to subschemas that validate a value without
// describing the object's structure. The model (Node) has none of them; the
// visitors of the schemas themselves (VisitJSON, VisitProps)
// follow them too.
const (
	// AllOf is the Index-th schema of allOf.
	AllOf Edge = iota + Values + 1
	// AnyOf is the Index-th schema of anyOf.
	AnyOf
	// OneOf is the Index-th schema of oneOf.
	OneOf
	// Not is the schema of not.
	Not
)

// Step is one edge from a schema to one of its subschemas.
type Step struct {
	Edge Edge
	// Name is the property, for a Property edge.
	Name string
	// Index is the position in the list, for AllOf, AnyOf and OneOf.
	Index int
}

// Steps is a path from a schema to one of its subschemas.
type Steps []Step

// String renders the steps by the schema's own keywords, joined by dots:
// `allOf[0].properties.a.items`.
func (p Steps) String() string {
	parts := make([]string, len(p))
	for i, s := range p {
		switch s.Edge {
		case Property:
			parts[i] = "properties." + s.Name
		case AllOf, AnyOf, OneOf:
			parts[i] = fmt.Sprintf("%s[%d]", s.Edge.keyword(), s.Index)
		default:
			parts[i] = s.Edge.keyword()
		}
	}
	return strings.Join(parts, ".")
}

// keyword is the schema keyword an edge follows ("" for the root).
func (e Edge) keyword() string {
	switch e {
	case Property:
		return "properties"
	case Items:
		return "items"
	case Values:
		return "additionalProperties"
	case AllOf:
		return "allOf"
	case AnyOf:
		return "anyOf"
	case OneOf:
		return "oneOf"
	case Not:
		return "not"
	}
	return ""
}

// visit is the one walk over schemas, whatever their representation: it
// calls fn on s and, when fn returns true, on every subschema children
// yields, parents first, depth first. fn gets the path from s; it must not
// keep it (the walk reuses it).
func visit[S any](s S, children func(S, func(Step, S)), fn func(Steps, S) bool) {
	w := &walker[S]{children: children, fn: fn}
	w.yield = w.child // one closure for the whole walk
	w.visit(s)
}

type walker[S any] struct {
	children func(S, func(Step, S))
	fn       func(Steps, S) bool
	yield    func(Step, S)
	at       Steps
}

func (w *walker[S]) visit(s S) {
	if w.fn(w.at, s) {
		w.children(s, w.yield)
	}
}

func (w *walker[S]) child(step Step, c S) {
	w.at = append(w.at, step)
	w.visit(c)
	w.at = w.at[:len(w.at)-1]
}

// Walk calls fn on n and every node below it, parents first, in a stable
// order: properties by name, then items, then values. The node itself says
// how it was reached (Edge, Name, Path).
func (n *Node) Walk(fn func(*Node)) {
	n.Visit(func(n *Node) bool { fn(n); return true })
}

// Visit is Walk where fn decides, node by node, whether to go below.
func (n *Node) Visit(fn func(*Node) bool) {
	visit(n, nodeChildren, func(_ Steps, n *Node) bool { return fn(n) })
}

func nodeChildren(n *Node, yield func(Step, *Node)) {
	for _, k := range sortedNodeKeys(n.Properties) {
		yield(Step{Edge: Property, Name: k}, n.Properties[k])
	}
	if n.Items != nil {
		yield(Step{Edge: Items}, n.Items)
	}
	if n.Values != nil {
		yield(Step{Edge: Values}, n.Values)
	}
}

// VisitJSON calls fn on the JSON schema raw (as decoded into maps) and,
// when fn returns true, on every subschema below it: properties by name,
// items, additionalProperties, allOf, anyOf, oneOf, not. Values of other
// types where a schema belongs are passed over.
func VisitJSON(raw map[string]any, fn func(at Steps, s map[string]any) bool) {
	visit(raw, jsonChildren, fn)
}

func jsonChildren(s map[string]any, yield func(Step, map[string]any)) {
	if props, ok := s["properties"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if p, ok := props[k].(map[string]any); ok {
				yield(Step{Edge: Property, Name: k}, p)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		yield(Step{Edge: Items}, items)
	}
	if values, ok := s["additionalProperties"].(map[string]any); ok {
		yield(Step{Edge: Values}, values)
	}
	for _, e := range []struct {
		edge Edge
		key  string
	}{{AllOf, "allOf"}, {AnyOf, "anyOf"}, {OneOf, "oneOf"}} {
		list, _ := s[e.key].([]any)
		for i, v := range list {
			if c, ok := v.(map[string]any); ok {
				yield(Step{Edge: e.edge, Index: i}, c)
			}
		}
	}
	if not, ok := s["not"].(map[string]any); ok {
		yield(Step{Edge: Not}, not)
	}
}

// LookupJSON returns the subschema of the JSON schema raw at the end of
// steps (property, items and values steps), or nil where there is none.
func LookupJSON(raw map[string]any, steps Steps) map[string]any {
	for _, s := range steps {
		if raw == nil {
			return nil
		}
		switch s.Edge {
		case Property:
			props, _ := raw["properties"].(map[string]any)
			raw, _ = props[s.Name].(map[string]any)
		case Items:
			raw, _ = raw["items"].(map[string]any)
		case Values:
			raw, _ = raw["additionalProperties"].(map[string]any)
		default:
			return nil
		}
	}
	return raw
}

// Steps is the path from the root of n's model to n.
func (n *Node) Steps() Steps {
	var out Steps
	for c := n; c.Parent != nil; c = c.Parent {
		out = append(out, Step{Edge: c.Edge, Name: c.Name})
	}
	slices.Reverse(out)
	return out
}

// VisitProps is VisitJSON for the API server's internal typed schema; fn
// may change the schema it is given (properties are written back). It is
// for changing a schema, not for reporting: properties come in map order.
func VisitProps(s *apiextensions.JSONSchemaProps, fn func(at Steps, s *apiextensions.JSONSchemaProps) bool) {
	if s != nil {
		visit(s, propsChildren, fn)
	}
}

func propsChildren(s *apiextensions.JSONSchemaProps, yield func(Step, *apiextensions.JSONSchemaProps)) {
	if len(s.Properties) > 0 {
		p := new(apiextensions.JSONSchemaProps) // one copy per object, not per property
		for k, v := range s.Properties {
			*p = v
			yield(Step{Edge: Property, Name: k}, p)
			s.Properties[k] = *p
		}
	}
	if s.Items != nil {
		if s.Items.Schema != nil {
			yield(Step{Edge: Items}, s.Items.Schema)
		}
		for i := range s.Items.JSONSchemas {
			yield(Step{Edge: Items, Index: i}, &s.Items.JSONSchemas[i])
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		yield(Step{Edge: Values}, s.AdditionalProperties.Schema)
	}
	for _, e := range []struct {
		edge Edge
		list []apiextensions.JSONSchemaProps
	}{{AllOf, s.AllOf}, {AnyOf, s.AnyOf}, {OneOf, s.OneOf}} {
		for i := range e.list {
			yield(Step{Edge: e.edge, Index: i}, &e.list[i])
		}
	}
	if s.Not != nil {
		yield(Step{Edge: Not}, s.Not)
	}
}

// hasCarrierRule reports whether the schema s itself holds a carrier rule.
func hasCarrierRule(s map[string]any) bool {
	rules, _ := s[extension.Validations].([]any)
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		if text, _ := rule["rule"].(string); IsCarrier(text) {
			return true
		}
	}
	return false
}
