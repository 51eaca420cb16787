// Package schema holds immutable-gen's immutability model: a view over one
// generated OpenAPI v3 schema (as the generic JSON tree controller-tools
// writes) in which every node knows where it sits in the object and which
// +immutable markers name it. It builds the model from the carrier rules the
// markers package leaves in the generated schema, and emits the result: the
// KEP's vendor extensions, or CEL.
package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/form"
)

// Edge says how a node is reached from its parent.
type Edge int

const (
	// Root is the schema's root.
	Root Edge = iota
	// Property is an object property.
	Property
	// Items is a list's items.
	Items
	// Values is a map's values (additionalProperties).
	Values
)

// Node is one schema node with its immutability markers.
type Node struct {
	// raw is the schema node itself; emitters write into it.
	raw map[string]any
	// Parent is nil at the root.
	Parent *Node
	// Edge is how Parent reaches this node; Name is the property name for
	// Property edges.
	Edge Edge
	Name string
	// Properties, Items and Values are the children.
	Properties map[string]*Node
	Items      *Node
	Values     *Node
	// Origins are the markers naming this node, in a stable order.
	Origins []Origin
	// Emitted are the rules an emitter added to this node's
	// x-kubernetes-validations, with the markers each enforces.
	Emitted []Emitted
	// External names the Go type declared outside the user's module whose
	// declaration holds this node (the struct it is a field of, the list or
	// map type it is the items or values of, at any depth), such as
	// `k8s.io/api/core/v1.PersistentVolumeClaimStatus`: no bound can be
	// added here without changing that type. Empty for the user's own
	// declarations, and where nothing says (crdmodel.MarkExternal sets it
	// on the crd path).
	External string
}

// Emitted is one rule an emitter added to a node.
type Emitted struct {
	// Index is the rule's position in x-kubernetes-validations.
	Index int
	// Origins are the markers the rule enforces.
	Origins []Origin
	// TwoVariableComprehension is true when the rule needs an API server
	// that has CEL's two-variable comprehensions.
	TwoVariableComprehension bool
	// Reads is the node whose value the rule reads (its cost grows with
	// that subtree's size); nil when it reads only whether a property is
	// present.
	Reads *Node
	// Needs is what the rule needs of the API server: the oldest
	// Kubernetes version that accepts it, and why.
	Needs KubeNeed
}

// Build turns a schema tree into the model, removing the carrier rules the
// markers left in x-kubernetes-validations (and the key when none remain).
// It fails on a corrupt carrier or one where the model cannot follow it
// (inside allOf, anyOf, oneOf or not).
func Build(raw map[string]any) (*Node, error) {
	return builder{origins: takeCarriers, carriers: true}.build(raw)
}

// BuildWith builds the model of a schema tree whose markers are known to the
// caller rather than carried in the tree: originsOf returns the markers
// naming each schema node, and may take out of the node what it reads, as
// Build takes out the carriers. The openapi generator builds its trees from
// the Go types this way. Origins are kept in the order Build keeps them.
func BuildWith(raw map[string]any, originsOf func(raw map[string]any) ([]Origin, error)) (*Node, error) {
	ordered := func(raw map[string]any) ([]Origin, error) {
		origins, err := originsOf(raw)
		return inOrder(origins), err
	}
	return builder{origins: ordered}.build(raw)
}

// builder builds a model, reading each node's origins with origins;
// carriers says that they come from marker carriers, which must not hide
// inside allOf, anyOf, oneOf or not.
type builder struct {
	origins  func(raw map[string]any) ([]Origin, error)
	carriers bool
}

// build makes a Node of every schema the model follows (properties, items,
// additionalProperties), parents first.
func (b builder) build(raw map[string]any) (*Node, error) {
	var err error
	var path []*Node // the nodes from the root to the one visited
	VisitJSON(raw, func(at Steps, s map[string]any) bool {
		if err != nil || len(at) > 0 && at[len(at)-1].Edge > Values {
			return false // value validations: not in the model
		}
		n := &Node{raw: s, Edge: Root}
		if len(at) > 0 {
			step := at[len(at)-1]
			n.Parent, n.Edge, n.Name = path[len(at)-1], step.Edge, step.Name
			switch step.Edge {
			case Property:
				n.Parent.Properties[step.Name] = n
			case Items:
				n.Parent.Items = n
			case Values:
				n.Parent.Values = n
			}
		}
		path = append(path[:len(at)], n)
		if _, ok := s["properties"].(map[string]any); ok {
			n.Properties = map[string]*Node{}
		}
		if n.Origins, err = b.origins(s); err != nil {
			err = fmt.Errorf("%s: %w", n.Path(), err)
			return false
		}
		if b.carriers && hasValueValidations(s) {
			VisitJSON(s, func(in Steps, v map[string]any) bool {
				if len(in) == 1 && in[0].Edge <= Values {
					return false // the model's own children
				}
				if len(in) > 0 && err == nil && hasCarrierRule(v) {
					err = fmt.Errorf("%s: an immutability marker ended up inside %s, which immutable-gen cannot follow; move the marker to a field whose type has no conflicting validation", n.Path(), in[0].Edge.keyword())
				}
				return err == nil
			})
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return path[0], nil
}

// hasValueValidations reports whether s has allOf, anyOf, oneOf or not.
func hasValueValidations(s map[string]any) bool {
	for _, k := range []string{"allOf", "anyOf", "oneOf", "not"} {
		if _, ok := s[k]; ok {
			return true
		}
	}
	return false
}

func takeCarriers(raw map[string]any) ([]Origin, error) {
	rules, ok := raw[extension.Validations].([]any)
	if !ok {
		return nil, nil
	}
	var origins []Origin
	kept := rules[:0:0]
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		text, _ := rule["rule"].(string)
		o, isCarrier, err := ParseCarrier(text)
		if err != nil {
			return nil, err
		}
		if !isCarrier {
			kept = append(kept, r)
			continue
		}
		origins = append(origins, o)
	}
	if len(origins) == 0 {
		return nil, nil
	}
	if len(kept) == 0 {
		delete(raw, extension.Validations)
	} else {
		raw[extension.Validations] = kept
	}
	// Same marker twice (a type used in one place twice is flattened once per
	// use, but one node holds each origin at most once) and a stable order.
	return inOrder(origins), nil
}

// inOrder sorts the origins of one node by position and drops repeats of
// one marker.
func inOrder(origins []Origin) []Origin {
	if len(origins) < 2 {
		return origins
	}
	origins = slices.Clone(origins)
	slices.SortFunc(origins, func(a, b Origin) int {
		return strings.Compare(a.Pos.String()+a.Marker(), b.Pos.String()+b.Marker())
	})
	return slices.CompactFunc(origins, func(a, b Origin) bool {
		return a.Pos == b.Pos && a.Keys == b.Keys && a.Once == b.Once && a.NoModify == b.NoModify && a.NoSet == b.NoSet && a.NoUnset == b.NoUnset
	})
}

// Path renders where the node sits in an object: `spec.ports[*].name`,
// `spec.labels[*]`; the root is `<root>`.
func (n *Node) Path() string {
	if n.Parent == nil {
		return "<root>"
	}
	var parts []string
	for c := n; c.Parent != nil; c = c.Parent {
		switch c.Edge {
		case Property:
			parts = append(parts, "."+c.Name)
		case Items, Values:
			parts = append(parts, "[*]")
		}
	}
	slices.Reverse(parts)
	return strings.TrimPrefix(strings.Join(parts, ""), ".")
}

// Pointer is the JSON pointer (RFC 6901) of the node below the root:
// `/properties/spec/properties/ports/items`; "" for the root.
func (n *Node) Pointer() string {
	var parts []string
	for c := n; c.Parent != nil; c = c.Parent {
		switch c.Edge {
		case Property:
			parts = append(parts, "/properties/"+pointerEscaper.Replace(c.Name))
		case Items:
			parts = append(parts, "/items")
		case Values:
			parts = append(parts, "/additionalProperties")
		}
	}
	slices.Reverse(parts)
	return strings.Join(parts, "")
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Follow walks a schema path as the API server's CRD validation writes it
// below openAPIV3Schema (`.properties[a].items.additionalProperties…`) as
// far as the model goes, and returns the node reached and the rest of the
// path (e.g. `.x-kubernetes-validations[0].rule`).
func (n *Node) Follow(path string) (*Node, string) {
	node, rest := n, path
	for rest != "" {
		var next *Node
		var tail string
		switch {
		case strings.HasPrefix(rest, ".properties["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return node, rest
			}
			next, tail = node.Properties[rest[len(".properties["):end]], rest[end+1:]
		case strings.HasPrefix(rest, ".items"):
			next, tail = node.Items, rest[len(".items"):]
		case strings.HasPrefix(rest, ".additionalProperties"):
			next, tail = node.Values, rest[len(".additionalProperties"):]
		}
		if next == nil {
			return node, rest
		}
		node, rest = next, tail
	}
	return node, rest
}

// Type is the node's `type`.
func (n *Node) Type() string { s, _ := n.raw["type"].(string); return s }

// ListType is `x-kubernetes-list-type`, "atomic" for a list without one.
func (n *Node) ListType() string {
	if s, ok := n.raw[extension.ListType].(string); ok {
		return s
	}
	return "atomic"
}

// ListMapKeys is `x-kubernetes-list-map-keys`.
func (n *Node) ListMapKeys() []string {
	raw, _ := n.raw[extension.ListMapKeys].([]any)
	keys := make([]string, 0, len(raw))
	for _, k := range raw {
		if s, ok := k.(string); ok {
			keys = append(keys, s)
		}
	}
	return keys
}

// MapType is `x-kubernetes-map-type`, "granular" when unset.
func (n *Node) MapType() string {
	if s, ok := n.raw[extension.MapType].(string); ok {
		return s
	}
	return "granular"
}

// Nullable reports `nullable: true`: null is a value distinct from every
// other, which CEL rules see as absence.
func (n *Node) Nullable() bool {
	b, _ := n.raw["nullable"].(bool)
	return b
}

// IsMap reports whether the node is a map: an object with additionalProperties.
func (n *Node) IsMap() bool { return n.Type() == "object" && n.Values != nil }

// IsList reports whether the node is an array.
func (n *Node) IsList() bool { return n.Type() == "array" }

// EmbeddedResource reports `x-kubernetes-embedded-resource: true`.
func (n *Node) EmbeddedResource() bool {
	b, _ := n.raw[extension.EmbeddedResource].(bool)
	return b
}

// Required reports whether the node's object schema requires property name.
func (n *Node) Required(name string) bool {
	req, _ := n.raw["required"].([]any)
	return slices.Contains(req, any(name))
}

// Immutable reports whether a +immutable marker names this node.
func (n *Node) Immutable() bool {
	return slices.ContainsFunc(n.Origins, func(o Origin) bool { f := o.Form(); return f.Presence == form.Kept && f.Change == form.NoChange })
}

// ImmutableOnce reports whether a +immutable=once marker names this node.
func (n *Node) ImmutableOnce() bool {
	return slices.ContainsFunc(n.Origins, func(o Origin) bool { return o.Once })
}

// NoModify reports whether +k8s:update=NoModify alone (fixed while
// present) names this node.
func (n *Node) NoModify() bool {
	return slices.ContainsFunc(n.Origins, func(o Origin) bool { return o.NoModify })
}

// Presence reports which changes of the node's presence a marker on it
// forbids, when the node is a property: adding it (+immutable, =keys,
// NoSet) and removing it (those and =once, NoUnset). +k8s:update=NoModify
// alone forbids neither.
func (n *Node) Presence() (noAdd, noRemove bool) {
	for _, o := range n.Origins {
		p := o.Form().Presence
		noAdd = noAdd || p&form.NoSet != 0
		noRemove = noRemove || p&form.NoUnset != 0
	}
	return noAdd, noRemove
}

// PresenceOnly reports whether the markers on the node constrain only its
// presence (+k8s:update=NoSet and/or =NoUnset): its value is free, and
// the markers below it are checked on their own.
func (n *Node) PresenceOnly() bool {
	add, remove := n.Presence()
	return (add || remove) && !n.Fixed() && !n.ImmutableKeys()
}

// Fixed reports whether the node's whole value is constrained by a marker
// on it, +immutable, +immutable=once or +k8s:update=NoModify: nothing
// below needs a rule.
func (n *Node) Fixed() bool { return n.Immutable() || n.ImmutableOnce() || n.NoModify() }

// OnlyWhilePresent reports whether the node's value is fixed only while
// present, with no constraint on its presence (+k8s:update=NoModify alone).
func (n *Node) OnlyWhilePresent() bool {
	add, remove := n.Presence()
	return n.NoModify() && !add && !remove
}

// IgnoreOrder reports whether +immutable:ignoreOrder stands beside a
// +immutable or +immutable=once marker naming this node: its value is
// compared with the order of its list maps ignored.
func (n *Node) IgnoreOrder() bool {
	return slices.ContainsFunc(n.Origins, func(o Origin) bool { return o.IgnoreOrder && !o.Keys })
}

// HasListMap reports whether n or a node below it is a list map (a list
// with x-kubernetes-list-type map), whose order +immutable:ignoreOrder
// ignores.
func (n *Node) HasListMap() bool {
	found := false
	n.Walk(func(c *Node) { found = found || (c.IsList() && c.ListType() == "map") })
	return found
}

// When is the +immutable:when condition of the markers on this node, ""
// when none has one.
func (n *Node) When() string {
	for _, o := range n.Origins {
		if o.When != "" {
			return o.When
		}
	}
	return ""
}

// ThroughProperties reports whether the node is reached from the root
// through properties only (no list items or map values on the way), where
// +immutable:when may stand.
func (n *Node) ThroughProperties() bool {
	for c := n; c.Parent != nil; c = c.Parent {
		if c.Edge != Property {
			return false
		}
	}
	return n.Parent != nil
}

// Message is the +immutable:message of the markers on this node, "" when
// none has one.
func (n *Node) Message() string {
	for _, o := range n.Origins {
		if o.Message != "" {
			return o.Message
		}
	}
	return ""
}

// ImmutableKeys reports whether a +immutable=keys marker names this node.
func (n *Node) ImmutableKeys() bool {
	return slices.ContainsFunc(n.Origins, func(o Origin) bool { return o.Keys })
}

// ImmutableAncestor returns the nearest strict ancestor named by +immutable
// or +immutable=once (whose value, once there, is compared whole), or nil.
// The root does not count: immutability is never allowed there.
func (n *Node) ImmutableAncestor() *Node {
	for a := n.Parent; a != nil && a.Parent != nil; a = a.Parent {
		if a.Fixed() {
			return a
		}
	}
	return nil
}

// Children returns the node's children in a stable order: properties by
// name, then items, then values (the order of Walk).
func (n *Node) Children() []*Node {
	var out []*Node
	nodeChildren(n, func(_ Step, c *Node) { out = append(out, c) })
	return out
}

// Marked reports whether any node in the tree carries a marker.
func (n *Node) Marked() bool {
	found := false
	n.Walk(func(c *Node) { found = found || len(c.Origins) > 0 })
	return found
}

func sortedNodeKeys(m map[string]*Node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
