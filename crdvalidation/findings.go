package crdvalidation

import (
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// The IDs of the API server's findings (lint prints them; docs/lint.md).
const (
	// IDUncorrelatable: oldSelf under the items of an atomic list or a set.
	IDUncorrelatable diag.ID = "IG020"
	// IDCost: a rule, or the schema's rules, over the CEL cost budget.
	IDCost diag.ID = "IG021"
	// IDOptionalOldSelf: optionalOldSelf on a rule without oldSelf.
	IDOptionalOldSelf diag.ID = "IG022"
	// IDRuleInvalid: a rule or messageExpression that does not compile.
	IDRuleInvalid diag.ID = "IG023"
	// IDRefused: any other refusal.
	IDRefused diag.ID = "IG024"
)

// Finding is one refusal of the API server's CRD validation, classified,
// placed on the model and worded once: crdgen renders it at the Go marker
// responsible for Node, lint at Node's schema path.
type Finding struct {
	ServerError
	// ID is the finding's stable ID, by what Message says.
	ID diag.ID
	// Version is the name of the CRD version whose schema the error is
	// in; "" for an error about the CRD outside every schema.
	Version string
	// Node is the schema node the error is about; nil outside every
	// schema, or when the version has no model.
	Node *schema.Node
	// NodeRule is the index in Node's x-kubernetes-validations of the
	// rule the error is about; -1 when it is about Node itself or below.
	NodeRule int
	// Path is where the finding is: Node's path (`spec.ports[*].name`,
	// `<root>`), the server's own path below the schema's root
	// (`openAPIV3Schema.properties[a]`) when there is no model, and the
	// CRD's field prefixed with `<crd>.` outside every schema.
	Path string
	// Message says what the server refuses and why; Fix what to do. For
	// the cost classes, Fix is what to do besides adding Bounds.
	Message, Fix string
	// Bounds are, for the cost classes, the missing bounds that make the
	// cost of the rules at (or, for a node without rules, below) Node
	// estimable.
	Bounds []Bound
}

// Guards reports whether the rule at index i of n's x-kubernetes-validations
// makes n immutable (lint's analysis of CEL); nil knows no rule.
type Guards func(n *schema.Node, i int) bool

// Findings places and words the API server's errors on a CRD (as Internal
// gives it): each on its version's model (models maps version names to
// them; an error in spec.validation is reported for every version), the
// schema's total cost with the rules that contributed to it when the
// server names them, a rule's share of it not when the rule alone is over
// its budget. hasRules says which nodes' rules the cost bounds are for.
func Findings(crd *apiextensions.CustomResourceDefinition, errs []ServerError, models map[string]*schema.Node, hasRules func(*schema.Node) bool, guards Guards) []Finding {
	totals := map[string]string{} // schema → factor
	contributed := map[string]bool{}
	overRule := map[string]bool{} // rules over the per-rule budget
	for _, e := range errs {
		switch e.Class {
		case ServerRuleCost:
			overRule[e.Field] = true
		case ServerSchemaCost:
			totals[e.Schema] = e.Factor
		case ServerCostShare:
			contributed[e.Schema] = true
		}
	}
	var out []Finding
	for _, e := range errs {
		if e.Schema == "" {
			out = append(out, Finding{ServerError: e, ID: IDRefused, NodeRule: -1, Path: "<crd>." + e.Field,
				Message: "the API server refuses the CRD: " + errorText(e.Error), Fix: "fix the CRD as the message says"})
			continue
		}
		if e.Class == ServerSchemaCost && contributed[e.Schema] {
			continue // reported with each rule
		}
		if e.Class == ServerCostShare && overRule[e.Field] {
			continue // the rule alone is over its budget
		}
		var versions []string
		if e.Version >= 0 {
			if e.Version < len(crd.Spec.Versions) {
				versions = []string{crd.Spec.Versions[e.Version].Name}
			}
		} else {
			// One schema for every version (the internal form keeps it
			// once when all versions have the same).
			for _, v := range crd.Spec.Versions {
				versions = append(versions, v.Name)
			}
		}
		for _, v := range versions {
			out = append(out, place(v, e, models[v], totals[e.Schema], hasRules, guards))
		}
	}
	return out
}

// place words one error about the schema of version; total is the
// factor of the schema's total cost error.
func place(version string, e ServerError, root *schema.Node, total string, hasRules func(*schema.Node) bool, guards Guards) Finding {
	f := Finding{ServerError: e, ID: IDRefused, Version: version, NodeRule: -1}
	if root == nil {
		f.Path = "openAPIV3Schema" + e.Below
		f.Message, f.Fix = "the API server refuses the CRD: "+errorText(e.Error), "fix the schema as the message says"
		return f
	}
	node, tail := root.Follow(e.Below)
	f.Node, f.Path = node, node.Path()
	ruleText, ruleAttr, ruleIndex := "", "", -1
	if e.Rule >= 0 && tail == e.Below[len(e.At):] { // a rule of node
		ruleIndex, ruleAttr = e.Rule, e.RuleField
		f.NodeRule = ruleIndex
		if rules := node.Rules(); ruleIndex < len(rules) {
			ruleText = ShortRule(rules[ruleIndex].Rule)
		}
	}
	what := fmt.Sprintf("the rule `%s`", ruleText)
	if ruleAttr == "messageExpression" {
		what = fmt.Sprintf("the messageExpression of the rule `%s`", ruleText)
	}
	switch {
	case e.Class == ServerUncorrelatable:
		f.ID = IDUncorrelatable
		list := "a list"
		f.Fix = "move the rule to a node that is not inside the items of an atomic list or a set"
		if e.Within != "" {
			l, _ := root.Follow(e.Within)
			if l.Edge == schema.Items {
				l = l.Parent
			}
			if l.IsList() {
				guard := guards != nil && ruleIndex >= 0 && guards(node, ruleIndex)
				list, f.Fix = uncorrelatableFix(l, node, guard)
			}
		}
		f.Message = fmt.Sprintf("%s uses oldSelf under the items of %s, which the API server does not correlate between the old and the new object: it refuses the CRD", what, list)
	case e.Class.Cost():
		f.ID = IDCost
		switch {
		case ruleAttr != "" && e.Class == ServerCostShare:
			f.Message = fmt.Sprintf("%s contributes to the schema's total estimated rule cost, which exceeds the budget", what)
			if total != "" {
				f.Message += " by a factor of " + total
			}
		case ruleAttr != "":
			f.Message = fmt.Sprintf("the estimated cost of %s exceeds the per-rule budget", what)
			if e.Factor != "" {
				f.Message += " by a factor of " + e.Factor
			}
		default:
			f.Message = "the total estimated cost of the schema's rules exceeds the budget"
			if e.Factor != "" {
				f.Message += " by a factor of " + e.Factor
			}
		}
		f.Message += ": the API server refuses the CRD"
		f.Bounds = MissingBounds(node, hasRules)
		f.Fix = "simplify the rules"
		if len(f.Bounds) == 0 {
			f.Fix = "simplify the rule"
		}
	case e.Class == ServerOptionalOldSelf && ruleAttr != "":
		f.ID = IDOptionalOldSelf
		f.Message = what + " sets optionalOldSelf but does not use oldSelf: the API server refuses the CRD"
		f.Fix = "remove optionalOldSelf: it only matters for rules that use oldSelf"
	case (e.Class == ServerRuleInvalid || e.Class == ServerMessageExpressionInvalid) && ruleAttr != "":
		f.ID = IDRuleInvalid
		f.Message = fmt.Sprintf("%s is refused by the API server: %s", what, strings.Join(DetailLines(e.Detail), " "))
		f.Fix = "correct the expression"
	default:
		where := strings.TrimPrefix(tail, ".")
		if where != "" {
			where += ": "
		}
		f.Message = "the API server refuses the CRD: " + where + errorText(e.Error)
		f.Fix = "fix the schema as the message says"
	}
	return f
}

// BoundsFix is the fix of a cost finding: add the bounds (each named by
// name), or the finding's own fix.
func (f Finding) BoundsFix(name func(Bound) string) string {
	if len(f.Bounds) == 0 {
		return f.Fix
	}
	var adds []string
	for _, b := range f.Bounds {
		adds = append(adds, name(b)+" on "+b.Node.Path())
	}
	if len(adds) > 6 {
		adds = append(adds[:6], "…")
	}
	return "bound what the rules iterate and compare: add " + strings.Join(adds, ", ") + "; or " + f.Fix
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

// errorText is a server error on one line: its type, its value only when
// it is a short scalar (the API server puts whole schemas and rules in
// some), and the detail without CEL's source excerpts.
func errorText(e *field.Error) string {
	s := e.Type.String()
	switch v := e.BadValue.(type) {
	case string:
		if e.Type == field.ErrorTypeInvalid || e.Type == field.ErrorTypeNotSupported {
			s += fmt.Sprintf(" %q", ShortRule(v))
		}
	case bool, int, int64, float64:
		s += fmt.Sprintf(" %v", v)
	}
	if e.Detail != "" {
		s += ": " + strings.Join(DetailLines(e.Detail), " ")
	}
	return s
}

// ShortRule shortens a rule's text (or any one-line value) for a message.
func ShortRule(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// Checks describes the API server's refusals of a CRD, as this package
// words them.
func Checks() []diag.Check {
	return []diag.Check{
		{ID: IDUncorrelatable, Severity: diag.Error, Title: "oldSelf under the items of an atomic list or a set: the API server refuses the rule"},
		{ID: IDCost, Severity: diag.Error, Title: "rules over the CEL cost budget: the API server refuses the CRD (the fix names the bounds)"},
		{ID: IDOptionalOldSelf, Severity: diag.Error, Title: "optionalOldSelf on a rule that does not use oldSelf: the API server refuses the CRD"},
		{ID: IDRuleInvalid, Severity: diag.Error, Title: "a rule or messageExpression that does not compile: the API server refuses the CRD"},
		{ID: IDRefused, Severity: diag.Error, Title: "any other reason the API server refuses the CRD"},
		{ID: IDUnconvertible, Severity: diag.Error, Title: "a generated CRD that cannot be converted for the API server's validation (a bug)"},
		{ID: IDUnmarked, Severity: diag.Warning, Title: "the API server refuses the CRD where no immutability marker is at fault (controller-gen writes such a CRD, and so does the crd generator, with this warning)"},
	}
}
