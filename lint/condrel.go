package lint

// This file decides how two +immutable:when conditions of one field
// relate (docs/lint.md, "Comparing two revisions"): equal, one implying
// the other, or neither — proved, not guessed, by evaluating both on every
// case that can make a difference. A condition the proof takes reads only
// scalar fields reached from the root through properties (has(), the
// value as a bool, == and != against literals, in a list of literals),
// joined with !, &&, || and ?:; for such conditions the cases are finite:
// each field absent, or equal to each literal the conditions name, or to
// one value equal to none of them, in the new and the old object apart.
// The runtime's condition evaluator (runtime/when, CEL's semantics in the
// API server) gives each condition's result, an error being its own
// result. Anything else is left undecided, for the witness search.

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/parser"
	openapispec "k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/when"
	"github.com/immutable-gen/immutable-gen/schema"
)

// maxCases bounds the cases a proof evaluates.
const maxCases = 1 << 14

// condFacts is what the proof reads of a condition: the property paths it
// reads (from the root) and the literals it compares them with; ok is
// false for a condition outside what the proof takes.
type condFacts struct {
	paths    [][]string
	literals []any
	ok       bool
}

// readCondition parses a condition and checks it is of the proof's shape.
func readCondition(text string) condFacts {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.MaxRecursionDepth(200))
	if err != nil {
		return condFacts{}
	}
	tree, errs := p.Parse(common.NewTextSource(text))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return condFacts{}
	}
	f := condFacts{ok: true}
	var walk func(e celast.Expr)
	walk = func(e celast.Expr) {
		if !f.ok {
			return
		}
		switch e.Kind() {
		case celast.LiteralKind:
			switch x := e.AsLiteral().Value().(type) {
			case string, bool, int64, float64:
				f.literals = append(f.literals, x)
			}
		case celast.SelectKind, celast.IdentKind:
			var root string
			var names []string
			if e.Kind() == celast.SelectKind && e.AsSelect().IsTestOnly() {
				// has(v.a.b): the chain of its operand, and b.
				root, names = selectChain(e.AsSelect().Operand())
				names = append(names, e.AsSelect().FieldName())
			} else {
				root, names = selectChain(e)
			}
			if root != "self" && root != "oldSelf" || len(names) == 0 {
				f.ok = false
				return
			}
			if !slices.ContainsFunc(f.paths, func(p []string) bool { return slices.Equal(p, names) }) {
				f.paths = append(f.paths, names)
			}
		case celast.ListKind:
			for _, x := range e.AsList().Elements() {
				if x.Kind() != celast.LiteralKind {
					f.ok = false
					return
				}
				walk(x)
			}
		case celast.CallKind:
			c := e.AsCall()
			switch c.FunctionName() {
			case operators.LogicalAnd, operators.LogicalOr, operators.LogicalNot, operators.Conditional, operators.Equals, operators.NotEquals, operators.In, operators.NotStrictlyFalse:
			default:
				f.ok = false
				return
			}
			if c.IsMemberFunction() {
				f.ok = false
				return
			}
			for _, a := range c.Args() {
				walk(a)
			}
		default:
			f.ok = false
		}
	}
	walk(tree.Expr())
	return f
}

// condLeafOf is one field a proof assigns, and its values (nil: absent).
type condLeafOf struct {
	path   []string
	values []any
}

// condImplies reports whether, on every update, condition a true means
// condition b true (an error counts as its own result, which must be the
// same), and whether that is proved (known) — both conditions of the
// proof's shape over the schema rawRoot (the version's openAPIV3Schema)
// and root (its model).
func condImplies(rawRoot map[string]any, root *schema.Node, a, b string) (holds, known bool) {
	fa, fb := readCondition(a), readCondition(b)
	if !fa.ok || !fb.ok {
		return false, false
	}
	ea, err1 := when.Parse(a)
	eb, err2 := when.Parse(b)
	if err1 != nil || err2 != nil {
		return false, false
	}
	sch, ok := whenSchema(rawRoot)
	if !ok {
		return false, false
	}
	lits := append(slices.Clone(fa.literals), fb.literals...)
	var leaves []condLeafOf
	for _, p := range append(slices.Clone(fa.paths), fb.paths...) {
		if slices.ContainsFunc(leaves, func(l condLeafOf) bool { return slices.Equal(l.path, p) }) {
			continue
		}
		n := root
		for _, name := range p {
			if n == nil {
				break
			}
			n = n.Properties[name]
		}
		if n == nil {
			return false, false
		}
		var vals []any
		switch n.Type() {
		case "boolean":
			vals = []any{true, false}
		case "string":
			for _, l := range lits {
				if s, ok := l.(string); ok && !slices.Contains(vals, any(s)) {
					vals = append(vals, s)
				}
			}
			other := "other"
			for slices.Contains(vals, any(other)) {
				other += "-"
			}
			vals = append(vals, other)
		case "integer":
			for _, l := range lits {
				if i, ok := l.(int64); ok && !slices.Contains(vals, any(i)) {
					vals = append(vals, i)
				}
			}
			other := int64(7919)
			for slices.Contains(vals, any(other)) {
				other++
			}
			vals = append(vals, other)
		case "object":
			// Only its presence: an empty object, or none.
			vals = []any{map[string]any{}}
		default:
			return false, false
		}
		vals = append(vals, nil)
		leaves = append(leaves, condLeafOf{p, vals})
	}
	// The cases: each leaf's value in self and in oldSelf.
	total := 1
	for _, l := range leaves {
		total *= len(l.values) * len(l.values)
		if total > maxCases {
			return false, false
		}
	}
	result := func(e *when.Expr, self, old map[string]any) string {
		v, err := e.Eval(sch, self, old)
		if err != nil {
			return "error"
		}
		if v {
			return "true"
		}
		return "false"
	}
	idx := make([]int, 2*len(leaves))
	for range total {
		self, old := map[string]any{}, map[string]any{}
		for i, l := range leaves {
			setPath(self, l.path, l.values[idx[2*i]])
			setPath(old, l.path, l.values[idx[2*i+1]])
		}
		ra, rb := result(ea, self, old), result(eb, self, old)
		if ra == "true" && rb != "true" || ra == "error" && rb != "error" {
			return false, true
		}
		// Next case.
		for k := range idx {
			idx[k]++
			if idx[k] < len(leaves[k/2].values) {
				break
			}
			idx[k] = 0
		}
	}
	return true, true
}

// setPath sets the value at path in obj, creating the objects on the way;
// a nil value leaves the field absent.
func setPath(obj map[string]any, path []string, v any) {
	cur := obj
	for _, name := range path[:len(path)-1] {
		next, ok := cur[name].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[name] = next
		}
		cur = next
	}
	if v != nil {
		cur[path[len(path)-1]] = v
	}
}

// whenSchema is the runtime's condition schema of a version's
// openAPIV3Schema.
func whenSchema(raw map[string]any) (*when.Schema, bool) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, false
	}
	var s openapispec.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, false
	}
	out, err := when.FromOpenAPI(&s)
	return out, err == nil
}

// condRelation is how two different conditions of a version pair relate:
// whether each implies the other, when proved.
func condRelation(vp versionPair, a, b string) (aImpliesB, bImpliesA, known bool) {
	if strings.TrimSpace(a) == "" || strings.TrimSpace(b) == "" {
		return false, false, false
	}
	if canonicalRule(a) == canonicalRule(b) {
		// The same up to the order of operands (inside macros too).
		return true, true, true
	}
	// Each side's schema types the fields the same where the conditions
	// read them; the new revision's is used.
	ab, k1 := condImplies(vp.new.raw, vp.new.root, a, b)
	ba, k2 := condImplies(vp.new.raw, vp.new.root, b, a)
	return ab, ba, k1 && k2
}
