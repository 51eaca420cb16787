package lint

import (
	"fmt"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/schema"
	"github.com/immutable-gen/immutable-gen/validation"
	"github.com/immutable-gen/immutable-gen/validation/apiserver"
)

// apiServer runs apiextensions-apiserver's own validation of a new CRD —
// what an API server checks on create: structural schema, list types, CEL
// compilation, oldSelf on uncorrelatable paths, the cost budget — and
// reports each error, as validation classifies it, at its schema path
// (IG020–IG024).
func (c *crdLint) apiServer(crd *apiextv1.CustomResourceDefinition) {
	internal, err := validation.Internal(crd)
	if err != nil {
		c.report("", "<crd>", IDRefused, "fix the manifest", "the API server cannot read this CRD: %v", err)
		return
	}
	errs, err := validation.ValidateServer(apiserver.InProcess{}, internal)
	if err != nil {
		c.report("", "<crd>", IDRefused, "fix the manifest", "the API server's CRD validation did not run: %v", err)
		return
	}
	// The total cost error is reported with the rules that contributed to
	// it, when the server names them.
	totals := map[string]string{} // schema → factor
	contributed := map[string]bool{}
	overRule := map[string]bool{} // rules over the per-rule budget
	for _, e := range errs {
		switch e.Class {
		case validation.ServerRuleCost:
			overRule[e.Field] = true
		case validation.ServerSchemaCost:
			totals[e.Schema] = e.Factor
		case validation.ServerCostShare:
			contributed[e.Schema] = true
		}
	}
	for _, e := range errs {
		if e.Schema == "" {
			c.report("", "<crd>."+e.Field, IDRefused, "fix the CRD as the message says",
				"the API server refuses the CRD: %s", errorText(e.Error))
			continue
		}
		if e.Class == validation.ServerSchemaCost && contributed[e.Schema] {
			continue // reported with each rule
		}
		if e.Class == validation.ServerCostShare && overRule[e.Field] {
			continue // the rule alone is over its budget
		}
		var versions []string
		if e.Version >= 0 {
			if e.Version < len(internal.Spec.Versions) {
				versions = []string{internal.Spec.Versions[e.Version].Name}
			}
		} else {
			// One schema for every version (the internal form keeps it
			// once when all versions have the same).
			for _, v := range internal.Spec.Versions {
				versions = append(versions, v.Name)
			}
		}
		for _, v := range versions {
			c.serverError(v, e, totals[e.Schema])
		}
	}
}

// serverError reports one error about the schema of version; total is the
// factor of the schema's total cost error.
func (c *crdLint) serverError(version string, e validation.ServerError, total string) {
	root := c.models[version]
	if root == nil {
		c.report(version, "<root>", IDRefused, "fix the schema as the message says", "the API server refuses the CRD: %s%s: %s", "openAPIV3Schema", e.Below, errorText(e.Error))
		return
	}
	node, tail := root.Follow(e.Below)
	path := node.Path()
	ruleText, ruleAttr, ruleIndex := "", "", -1
	if e.Rule >= 0 && tail == e.Below[len(e.At):] { // a rule of node
		ruleIndex, ruleAttr = e.Rule, e.RuleField
		if rules := c.parseRules(node); ruleIndex < len(rules) {
			ruleText = short(rules[ruleIndex].text)
		}
	}
	what := fmt.Sprintf("the rule `%s`", ruleText)
	if ruleAttr == "messageExpression" {
		what = fmt.Sprintf("the messageExpression of the rule `%s`", ruleText)
	}
	switch {
	case e.Class == validation.ServerUncorrelatable:
		list := "a list"
		fix := "move the rule to a node that is not inside the items of an atomic list or a set"
		if e.Within != "" {
			l, _ := root.Follow(e.Within)
			if l.Edge == schema.Items {
				l = l.Parent
			}
			if l.IsList() {
				guard := false
				if rules := c.parseRules(node); ruleIndex >= 0 && ruleIndex < len(rules) && rules[ruleIndex].expr != nil {
					guard = guards(node, rules[ruleIndex])
				}
				list, fix = uncorrelatableFix(l, node, guard)
			}
		}
		c.report(version, path, IDUncorrelatable, fix,
			"%s uses oldSelf under the items of %s, which the API server does not correlate between the old and the new object: it refuses the CRD", what, list)
	case e.Class.Cost():
		var msg string
		switch {
		case ruleAttr != "" && e.Class == validation.ServerCostShare:
			msg = fmt.Sprintf("%s contributes to the schema's total estimated rule cost, which exceeds the budget", what)
			if total != "" {
				msg += " by a factor of " + total
			}
		case ruleAttr != "":
			msg = fmt.Sprintf("the estimated cost of %s exceeds the per-rule budget", what)
			if e.Factor != "" {
				msg += " by a factor of " + e.Factor
			}
		default:
			msg = "the total estimated cost of the schema's rules exceeds the budget"
			if e.Factor != "" {
				msg += " by a factor of " + e.Factor
			}
		}
		c.report(version, path, IDCost, boundsHint(node), "%s: the API server refuses the CRD", msg)
	case e.Class == validation.ServerOptionalOldSelf && ruleAttr != "":
		c.report(version, path, IDOptionalOldSelf, "remove optionalOldSelf: it only matters for rules that use oldSelf",
			"%s sets optionalOldSelf but does not use oldSelf: the API server refuses the CRD", what)
	case (e.Class == validation.ServerRuleInvalid || e.Class == validation.ServerMessageExpressionInvalid) && ruleAttr != "":
		c.report(version, path, IDRuleInvalid, "correct the expression",
			"%s is refused by the API server: %s", what, oneLine(e.Detail))
	default:
		where := strings.TrimPrefix(tail, ".")
		if where != "" {
			where += ": "
		}
		c.report(version, path, IDRefused, "fix the schema as the message says",
			"the API server refuses the CRD: %s%s", where, errorText(e.Error))
	}
}

// uncorrelatableFix names the list l whose items the API server does not
// correlate, and how to compare them instead of the rule on node; guard
// says that the rule makes node immutable.
func uncorrelatableFix(l, node *schema.Node, guard bool) (list, fix string) {
	if l.ListType() == "set" {
		return "the set " + l.Path(), fmt.Sprintf("set items are identities: to forbid changes, put `self == oldSelf` on the set %s itself", l.Path())
	}
	list = "the atomic list " + l.Path()
	// The item's value at node, relative to the item: x.a.b.
	sel := ""
	for n := node; n != l.Items; n = n.Parent {
		if n == nil {
			guard = false // node is not inside l's items
			break
		}
		name, ok := apiservercel.Escape(n.Name)
		if n.Edge != schema.Property || !ok {
			guard = false
			break
		}
		sel = "." + name + sel
	}
	if !guard {
		return list, fmt.Sprintf("move the rule to the list %s and compare its items index by index with `self.all(i, x, i >= oldSelf.size() || ...)` (Kubernetes 1.33 or later), or make the list a list map (x-kubernetes-list-type: map)", l.Path())
	}
	cond := fmt.Sprintf("x%s == oldSelf[i]%s", sel, sel)
	if sel != "" && node.Edge == schema.Property && !node.AlwaysPresent() {
		cond = fmt.Sprintf("has(x%s) == has(oldSelf[i]%s) && (!has(x%s) || %s)", sel, sel, sel, cond)
	}
	return list, fmt.Sprintf("replace it with a rule on the list %s that compares existing items index by index: `self.all(i, x, i >= oldSelf.size() || %s)` (Kubernetes 1.33 or later), or make the list a list map (x-kubernetes-list-type: map)", l.Path(), cond)
}

// errorText is an error without its value when the value is large (the
// API server puts whole schemas and rules in some).
func errorText(e *field.Error) string {
	s := e.Type.String()
	switch v := e.BadValue.(type) {
	case string:
		if e.Type == field.ErrorTypeInvalid || e.Type == field.ErrorTypeNotSupported {
			s += fmt.Sprintf(" %q", short(v))
		}
	case bool, int, int64, float64:
		s += fmt.Sprintf(" %v", v)
	}
	if e.Detail != "" {
		s += ": " + oneLine(e.Detail)
	}
	return s
}

// oneLine keeps the lines of a CEL error that are not its source excerpt
// (` | self.x` and the caret line) and joins them.
func oneLine(s string) string { return strings.Join(validation.DetailLines(s), " ") }

// boundsHint names, as schema keywords, the bounds that make the cost of
// the rules at node (or, for a node without rules, below it) estimable.
func boundsHint(node *schema.Node) string {
	var adds []string
	hasRules := func(n *schema.Node) bool { return n.Has("x-kubernetes-validations") }
	for _, b := range validation.MissingBounds(node, hasRules) {
		adds = append(adds, b.Keyword+" on "+b.Node.Path())
	}
	if len(adds) == 0 {
		return "simplify the rule"
	}
	if len(adds) > 6 {
		adds = append(adds[:6], "…")
	}
	return "bound what the rules iterate and compare: add " + strings.Join(adds, ", ") + "; or simplify the rules"
}
