package lint

import (
	"fmt"
	"github.com/immutable-gen/immutable-gen/celguard"
	"strings"

	celcommon "github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/parser"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/schema"
)

// This file holds two findings about what a transition rule does beyond
// presence: a ratcheting rule, `self == oldSelf || <validation>`, which is
// not immutability (IG037), and a rule that reads an optional field
// without has(), which is an error where the field is absent and so
// refuses every update of such an object (IG038).

// ratcheting reports whether e is `self == oldSelf || <validation>` (the
// equality either way round, anywhere in a disjunction whose other
// operands do not read oldSelf), and returns the other operands.
func ratcheting(e celast.Expr) ([]celast.Expr, bool) {
	var ops []celast.Expr
	var flatten func(x celast.Expr)
	flatten = func(x celast.Expr) {
		if x.Kind() == celast.CallKind && x.AsCall().FunctionName() == operators.LogicalOr && len(x.AsCall().Args()) == 2 {
			flatten(x.AsCall().Args()[0])
			flatten(x.AsCall().Args()[1])
			return
		}
		ops = append(ops, x)
	}
	flatten(e)
	equality := false
	var rest []celast.Expr
	for _, x := range ops {
		switch {
		case !equality && isPlainEquality(x):
			equality = true
		case usesIdent(x, "oldSelf"):
			return nil, false
		default:
			rest = append(rest, x)
		}
	}
	return rest, equality && len(rest) > 0
}

// transitions reports the ratcheting rules and the rules that error on an
// absent optional field of one served version's schema.
func (c *crdLint) transitions(root *schema.Node) {
	eachNode(root, func(n *schema.Node) {
		if uncorrelatable(n) {
			return // the API server refuses these rules (IG020)
		}
		for _, v := range n.Rules() {
			if !strings.Contains(v.Rule, "oldSelf") || v.OptionalOldSelf {
				continue
			}
			ast, errs := c.parser.Parse(celcommon.NewTextSource(v.Rule))
			if errs != nil && len(errs.GetErrors()) > 0 {
				continue // IG023
			}
			e := ast.Expr()
			if !usesIdent(e, "oldSelf") {
				continue
			}
			if rest, ok := ratcheting(e); ok {
				c.ratchet(n, v.Rule, rest, ast.SourceInfo())
				continue
			}
			c.absentError(n, v.Rule, ast)
		}
	})
}

// ratchet reports a ratcheting rule (IG037).
func (c *crdLint) ratchet(n *schema.Node, text string, rest []celast.Expr, info *celast.SourceInfo) {
	var parts []string
	for _, x := range rest {
		s, err := parser.Unparse(x, info)
		if err != nil {
			return
		}
		parts = append(parts, s)
	}
	validation := strings.Join(parts, " || ")
	if len(parts) > 1 {
		validation = "(" + validation + ")"
	}
	c.report(c.version, n.Path(), IDRatcheting,
		fmt.Sprintf("if every value must satisfy it, make the validation a rule of its own, `%s` (the API server ratchets an unchanged value itself since Kubernetes 1.30); to check a value set later or added back too, set optionalOldSelf: true and write `(oldSelf.hasValue() && self == oldSelf.value()) || %s`; if %s must never change, `self == oldSelf` and a presence rule on its object", validation, validation, n.Path()),
		"the rule `%s` is ratcheting, not immutability: a value that breaks `%s` may stay as it is, any change must satisfy it, and it never runs where the old value is absent, so a value set later, or removed and added back, is not checked by it",
		crdvalidation.ShortRule(text), crdvalidation.ShortRule(validation))
}

// absentError reports a transition rule that reads an optional field
// without has() (IG038): where the field is absent in the old and the new
// object, the rule is an error whatever else they hold, so the API server
// refuses every update of such an object — even one that changes only its
// labels — while creating it succeeds (a transition rule does not run on
// create). Kong's MCPServer: spec is optional and a rule on the root
// reads oldSelf.spec.
func (c *crdLint) absentError(n *schema.Node, text string, tree *celast.AST) {
	e := tree.Expr()
	for _, q := range unguarded(n, tree) {
		between := map[*schema.Node]bool{}
		for a := q.Parent; a != nil && a != n; a = a.Parent {
			between[a] = true
		}
		pres := func(x *schema.Node, old bool) presence {
			switch {
			case x == q:
				return absent
			case between[x]:
				return present
			}
			return unknown
		}
		// An object without q may exist: the rules without oldSelf on n
		// and above it may accept it.
		exists := true
		for a := n; a != nil && exists; a = a.Parent {
			for _, v := range a.Rules() {
				if strings.Contains(v.Rule, "oldSelf") {
					continue
				}
				ast, errs := c.parser.Parse(celcommon.NewTextSource(v.Rule))
				if errs != nil && len(errs.GetErrors()) > 0 {
					continue
				}
				ev := evaluator{self: ref{a, false}, presence: pres}
				if !ev.eval(ast.Expr()).accepts() {
					exists = false
				}
			}
		}
		if !exists {
			continue
		}
		// An update that changes nothing under n, q absent on both sides.
		ev := evaluator{self: ref{n, false}, oldSelf: ref{n, true}, hasOldSelf: true, same: true, presence: pres}
		if ev.eval(e).out != isError {
			continue
		}
		rel := strings.TrimPrefix(q.Path(), n.Path()+".")
		if n.Parent == nil {
			rel = q.Path()
		}
		sel, ok := celSelector(rel)
		rule := strings.Join(strings.Fields(text), " ")
		fix := fmt.Sprintf("guard the rule with has(): `has(self.%s) == has(oldSelf.%s) && (!has(self.%s) || %s)` keeps what it checks where %s is present, and its presence (`!has(oldSelf.%s) || (has(self.%s) && %s)` if %s may be set after creation), or make %s required", sel, sel, sel, rule, q.Path(), sel, sel, rule, q.Name, q.Path())
		if !ok {
			fix = fmt.Sprintf("make %s required, or read it only where it is present", q.Path())
		}
		c.report(c.version, n.Path(), IDAbsentError, fix,
			"the rule `%s` reads the optional %s without has(): where %s is absent the rule is an error, and an error refuses the update, so every update of an object without %s is refused, even one that changes only its labels (a transition rule does not run on create, so such an object is created)",
			crdvalidation.ShortRule(text), q.Path(), q.Path(), q.Path())
		return
	}
}

// unguarded returns the optional properties that the rule, on n, reads
// without has() from self or oldSelf (`self.a.b`: a, then a.b if optional
// too), outermost first, each once: package celguard's reading of CEL's
// errors, the one the crd generator's check of +immutable:when conditions
// (IG046) makes. Whether an object without the property can exist, and
// whether the rule then fails on an update that changes nothing, is
// absentError's to decide. Reads through a comprehension's variable (an
// item of a list) are not followed: an update that changes nothing
// fails on them only where an item lacks the field, which the evaluator
// does not model.
func unguarded(n *schema.Node, tree *celast.AST) []*schema.Node {
	var out []*schema.Node
	seen := map[*schema.Node]bool{}
	for _, u := range celguard.Steps(tree, n) {
		if !strings.HasPrefix(u.Read, "self.") && !strings.HasPrefix(u.Read, "oldSelf.") {
			continue
		}
		if q := u.Node; q.Edge == schema.Property && !seen[q] && !serverSet(q) {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}

// serverSet reports whether n is the object's metadata, apiVersion or
// kind, or inside its metadata: the API server sets them on every object,
// whatever the schema says.
func serverSet(n *schema.Node) bool {
	for ; n.Parent != nil; n = n.Parent {
		if n.Parent.Parent == nil {
			return n.Name == "metadata" || n.Name == "apiVersion" || n.Name == "kind"
		}
	}
	return false
}

// celSelector escapes a dotted path of property names for CEL.
func celSelector(path string) (string, bool) {
	var parts []string
	for _, name := range strings.Split(path, ".") {
		s, ok := apiservercel.Escape(name)
		if !ok {
			return "", false
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "."), true
}
