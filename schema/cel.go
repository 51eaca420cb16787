package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/markers"
)

// CELResult says what the CEL lowering needed and what it could not do.
type CELResult struct {
	// TwoVariableComprehensions is true when a rule uses `all(i, x, …)`,
	// which API servers accept from Kubernetes 1.33 on (the CEL environment
	// has it from 1.32, and servers accept new expressions at the
	// compatibility version N-1).
	TwoVariableComprehensions bool
	// Inexpressible lists the markers whose semantics CEL cannot express
	// exactly; the lowering wrote nothing weaker for them.
	Inexpressible []Inexpressible
}

// Inexpressible is a marker the lowering refused.
type Inexpressible struct {
	Node   *Node
	Origin markers.Origin
	Reason string
	Fix    string
}

// MinKubeVersion is the oldest Kubernetes minor version that accepts the
// rules, as "1.N".
func (r CELResult) MinKubeVersion() string {
	if r.TwoVariableComprehensions {
		return "1.33"
	}
	return "1.30"
}

// EmitCEL lowers the markers of the model to x-kubernetes-validations
// transition rules that give DESIGN.md 2.3's verdict on every update:
//
//   - an immutable property: `self == oldSelf` on it (with list maps compared
//     in order, which CEL's == does not do), and `has(self.p) ==
//     has(oldSelf.p)` on its object unless it is required, because a
//     transition rule only runs where the value exists in old and new;
//   - an immutable-keys map or list map: the same presence rule, and a rule
//     on the node that the key sets are equal;
//   - list map items and map values are correlated by the API server, so
//     rules go on them directly;
//   - atomic list items are not correlated (oldSelf is refused under them):
//     one rule on the list compares each existing index with a
//     two-variable comprehension, inlining every constraint below;
//   - markers inside set items have no effect (sets have no identity but
//     their items), so nothing is emitted for them.
//
// Redundant markers inside an immutable subtree produce no rule.
// Constructs CEL cannot see exactly (preserve-unknown-fields, embedded
// resources, sets whose items contain list maps, property names CEL cannot
// address) are reported in the result instead of weakened.
func EmitCEL(root *Node) CELResult {
	l := &lowering{}
	l.correlated(root)
	return l.result
}

type lowering struct {
	result CELResult
	depth  int  // for unique comprehension variables
	twoVar bool // the rule being built uses a two-variable comprehension
}

func (l *lowering) refuse(n *Node, reason, fix string) {
	for _, o := range constraintOrigins(n) {
		l.result.Inexpressible = append(l.result.Inexpressible, Inexpressible{Node: n, Origin: o, Reason: reason, Fix: fix})
	}
}

// constraintOrigins are the origins of the markers at or below n that
// constrain anything (the nearest ones on each path).
func constraintOrigins(n *Node) []markers.Origin {
	if len(n.Origins) > 0 {
		return n.Origins
	}
	var out []markers.Origin
	for _, c := range n.Children() {
		out = append(out, constraintOrigins(c)...)
	}
	return out
}

// addRule appends rule to n's x-kubernetes-validations and records which
// markers it enforces (those at or below about).
func (l *lowering) addRule(n *Node, about *Node, rule map[string]any) {
	rules, _ := n.Raw["x-kubernetes-validations"].([]any)
	n.Raw["x-kubernetes-validations"] = append(rules, rule)
	n.Emitted = append(n.Emitted, Emitted{Index: len(rules), Origins: constraintOrigins(about), TwoVariableComprehension: l.twoVar})
	l.result.TwoVariableComprehensions = l.result.TwoVariableComprehensions || l.twoVar
	l.twoVar = false
}

// hasConstraint reports whether a marker at or below n constrains updates
// (markers inside set items constrain nothing).
func hasConstraint(n *Node) bool {
	if n.Immutable() || n.ImmutableKeys() {
		return true
	}
	if n.IsList() && n.ListType() == "set" {
		return false
	}
	return slices.ContainsFunc(n.Children(), hasConstraint)
}

// correlated emits the rules for the subtree of n, a node the API server
// correlates with its old value (the root, properties of correlated
// objects, list map items and map values of correlated nodes).
func (l *lowering) correlated(n *Node) {
	switch {
	case n.Properties != nil:
		for _, name := range sortedNodeKeys(n.Properties) {
			p := n.Properties[name]
			if !hasConstraint(p) {
				continue
			}
			if (p.Immutable() || p.ImmutableKeys()) && !n.Required(name) {
				l.presenceRule(n, p)
			}
			l.node(p)
		}
	case n.IsMap():
		if hasConstraint(n.Values) {
			l.node(n.Values)
		}
	case n.IsList() && n.ListType() == "map":
		if hasConstraint(n.Items) {
			l.node(n.Items)
		}
	case n.IsList() && n.ListType() == "atomic":
		if n.Items != nil && hasConstraint(n.Items) {
			l.atomicItems(n)
		}
	}
}

// node emits the rules for a correlated node n that may itself be marked.
func (l *lowering) node(n *Node) {
	if n.Immutable() {
		if expr, ok := l.equal("self", "oldSelf", n); ok {
			l.addRule(n, n, map[string]any{
				"rule":    expr,
				"message": "field is immutable",
			})
		}
		return // everything below is covered by equality
	}
	if n.ImmutableKeys() {
		if expr, ok := l.keysEqual("self", "oldSelf", n); ok {
			l.addRule(n, n, map[string]any{
				"rule":    expr,
				"message": "keys are immutable: entries may not be added or removed",
				"reason":  "FieldValueForbidden",
			})
		}
	}
	l.correlated(n)
}

func (l *lowering) presenceRule(parent, p *Node) {
	sel, ok := l.selector(p)
	if !ok {
		return
	}
	what := "field"
	if !p.Immutable() {
		what = "field with immutable keys"
	}
	l.addRule(parent, p, map[string]any{
		"rule":      fmt.Sprintf("has(self%s) == has(oldSelf%s)", sel, sel),
		"message":   fmt.Sprintf("%s is an immutable %s: it may not be added or removed after creation", p.Name, what),
		"fieldPath": fieldPath(p.Name),
		"reason":    "FieldValueForbidden",
	})
}

// atomicItems emits one rule on the atomic list n for every constraint in
// its items, compared index by index where both lists have the index.
func (l *lowering) atomicItems(n *Node) {
	i, x := l.vars("i", "x")
	cond, ok := l.cond(x, "oldSelf["+i+"]", n.Items)
	l.depth--
	if !ok || cond == "" {
		return
	}
	l.twoVar = true
	l.addRule(n, n.Items, map[string]any{
		"rule":    fmt.Sprintf("self.all(%s, %s, %s >= oldSelf.size() || %s)", i, x, i, paren(cond)),
		"message": "items are immutable where marked: an item at an existing index may not change",
	})
}

// vars returns comprehension variable names unique at the current depth,
// and enters a deeper level; callers leave it with l.depth--.
func (l *lowering) vars(names ...string) (string, string) {
	l.depth++
	out := make([]string, len(names))
	for k, n := range names {
		out[k] = fmt.Sprintf("%s%d", n, l.depth)
	}
	if len(out) == 1 {
		return out[0], ""
	}
	return out[0], out[1]
}

// cond is the condition that every constraint at or below n holds between a
// (new) and b (old), both present. "" means no constraint.
func (l *lowering) cond(a, b string, n *Node) (string, bool) {
	if n.Immutable() {
		return l.equal(a, b, n)
	}
	var parts []string
	if n.ImmutableKeys() {
		k, ok := l.keysEqual(a, b, n)
		if !ok {
			return "", false
		}
		parts = append(parts, k)
	}
	switch {
	case n.Properties != nil:
		for _, name := range sortedNodeKeys(n.Properties) {
			p := n.Properties[name]
			if !hasConstraint(p) {
				continue
			}
			sel, ok := l.selector(p)
			if !ok {
				return "", false
			}
			if (p.Immutable() || p.ImmutableKeys()) && !n.Required(name) {
				parts = append(parts, fmt.Sprintf("has(%s%s) == has(%s%s)", a, sel, b, sel))
			}
			c, ok := l.cond(a+sel, b+sel, p)
			if !ok {
				return "", false
			}
			if c != "" {
				parts = append(parts, fmt.Sprintf("(!has(%s%s) || !has(%s%s) || %s)", a, sel, b, sel, paren(c)))
			}
		}
	case n.IsMap() && hasConstraint(n.Values):
		k, _ := l.vars("k")
		c, ok := l.cond(a+"["+k+"]", b+"["+k+"]", n.Values)
		l.depth--
		if !ok {
			return "", false
		}
		if c != "" {
			parts = append(parts, fmt.Sprintf("%s.all(%s, !(%s in %s) || %s)", a, k, k, b, paren(c)))
		}
	case n.IsList() && n.ListType() == "map" && hasConstraint(n.Items):
		x, y := l.vars("x", "y")
		c, ok := l.cond(x, y, n.Items)
		match, okm := l.keyMatch(x, y, n)
		l.depth--
		if !ok || !okm {
			return "", false
		}
		if c != "" {
			parts = append(parts, fmt.Sprintf("%s.all(%s, %s.all(%s, !%s || %s))", a, x, b, y, paren(match), paren(c)))
		}
	case n.IsList() && n.ListType() == "atomic" && n.Items != nil && hasConstraint(n.Items):
		i, x := l.vars("i", "x")
		c, ok := l.cond(x, b+"["+i+"]", n.Items)
		l.depth--
		if !ok {
			return "", false
		}
		if c != "" {
			l.twoVar = true
			parts = append(parts, fmt.Sprintf("%s.all(%s, %s, %s >= %s.size() || %s)", a, i, x, i, b, paren(c)))
		}
	}
	return strings.Join(parts, " && "), true
}

// equal is strict equality of a and b as the runtime defines it. CEL's ==
// already compares sets without order, maps by key and atomic lists in
// order; list maps it compares by key, so their order is checked on top.
func (l *lowering) equal(a, b string, n *Node) (string, bool) {
	if reason, ok := invisible(n); ok {
		l.refuse(n, reason, "generate with crd:immutability=extensions and enforce with the immutable-gen runtime, or mark the typed fields inside instead")
		return "", false
	}
	if !hasListMap(n) {
		return a + " == " + b, true
	}
	parts := []string{a + " == " + b}
	switch {
	case n.Properties != nil:
		for _, name := range sortedNodeKeys(n.Properties) {
			p := n.Properties[name]
			if !hasListMap(p) {
				continue
			}
			sel, ok := l.selector(p)
			if !ok {
				return "", false
			}
			e, ok := l.equal(a+sel, b+sel, p)
			if !ok {
				return "", false
			}
			parts = append(parts, fmt.Sprintf("(!has(%s%s) || %s)", a, sel, paren(e)))
		}
	case n.IsMap():
		k, _ := l.vars("k")
		e, ok := l.equal(a+"["+k+"]", b+"["+k+"]", n.Values)
		l.depth--
		if !ok {
			return "", false
		}
		parts = append(parts, fmt.Sprintf("%s.all(%s, %s)", a, k, paren(e)))
	case n.IsList() && n.ListType() == "set":
		l.refuse(n, fmt.Sprintf("the set %s has list maps inside its items, whose order the runtime compares but CEL's set equality cannot", n.Path()),
			"generate with crd:immutability=extensions and enforce with the immutable-gen runtime, or make the inner lists +listType=atomic")
		return "", false
	case n.IsList():
		i, x := l.vars("i", "x")
		var conds []string
		if n.ListType() == "map" {
			match, ok := l.keyMatch(x, b+"["+i+"]", n)
			if !ok {
				l.depth--
				return "", false
			}
			conds = append(conds, match)
		}
		if hasListMap(n.Items) {
			e, ok := l.equal(x, b+"["+i+"]", n.Items)
			if !ok {
				l.depth--
				return "", false
			}
			conds = append(conds, e)
		}
		l.depth--
		l.twoVar = true
		parts = append(parts, fmt.Sprintf("%s.all(%s, %s, %s)", a, i, x, paren(strings.Join(conds, " && "))))
	}
	return strings.Join(parts, " && "), true
}

// keysEqual says that the maps or list maps a and b have the same keys.
// List map keys are unique, so equal sizes and every new key tuple in the
// old list make the key sets equal.
func (l *lowering) keysEqual(a, b string, n *Node) (string, bool) {
	if n.IsMap() {
		k, _ := l.vars("k")
		l.depth--
		return fmt.Sprintf("%s.size() == %s.size() && %s.all(%s, %s in %s)", a, b, a, k, k, b), true
	}
	x, y := l.vars("x", "y")
	defer func() { l.depth-- }()
	match, ok := l.keyMatch(x, y, n)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s.size() == %s.size() && %s.all(%s, %s.exists(%s, %s))", a, b, a, x, b, y, match), true
}

// keyMatch says that list map items x and y have the same key tuple.
func (l *lowering) keyMatch(x, y string, list *Node) (string, bool) {
	var parts []string
	for _, k := range list.ListMapKeys() {
		sel, ok := escape(k)
		if !ok {
			l.refuse(list, fmt.Sprintf("the list map key %q cannot be addressed in CEL", k), "rename the key's JSON name to a CEL-compatible identifier")
			return "", false
		}
		parts = append(parts, fmt.Sprintf("%s.%s == %s.%s", x, sel, y, sel))
	}
	if len(parts) == 0 {
		l.refuse(list, "the list map has no x-kubernetes-list-map-keys", "add +listMapKey")
		return "", false
	}
	return strings.Join(parts, " && "), true
}

// selector is `.name` for property p, CEL-escaped.
func (l *lowering) selector(p *Node) (string, bool) {
	sel, ok := escape(p.Name)
	if !ok {
		l.refuse(p, fmt.Sprintf("the property name %q cannot be addressed in CEL", p.Name),
			"use a JSON name of letters, digits, '_', '.', '-' or '/' that does not start with a digit, or crd:immutability=extensions")
		return "", false
	}
	return "." + sel, true
}

func escape(name string) (string, bool) { return apiservercel.Escape(name) }

// invisible reports a part of n's subtree that CEL does not see as stored,
// so that == there is weaker than the runtime's equality.
func invisible(n *Node) (string, bool) {
	var reason string
	n.Walk(func(c *Node) {
		if reason != "" {
			return
		}
		if b, _ := c.Raw["x-kubernetes-preserve-unknown-fields"].(bool); b {
			reason = fmt.Sprintf("%s preserves unknown fields, which CEL rules cannot see", c.Path())
		} else if c.EmbeddedResource() {
			reason = fmt.Sprintf("%s is an embedded resource, whose metadata CEL rules see only in part", c.Path())
		}
	})
	return reason, reason != ""
}

// hasListMap reports whether n's subtree has a list map (compared in order
// by the runtime, by key by CEL).
func hasListMap(n *Node) bool {
	found := false
	n.Walk(func(c *Node) { found = found || (c.IsList() && c.ListType() == "map") })
	return found
}

var simpleName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// fieldPath is the x-kubernetes-validations fieldPath of property name
// relative to its object.
func fieldPath(name string) string {
	if simpleName.MatchString(name) {
		return "." + name
	}
	return "['" + strings.ReplaceAll(name, "'", "\\'") + "']"
}

func paren(s string) string {
	if strings.ContainsAny(s, " ") {
		return "(" + s + ")"
	}
	return s
}
