package lint

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/schema"
	"github.com/immutable-gen/immutable-gen/validation"
)

// apiServer runs apiextensions-apiserver's own validation of a new CRD —
// what an API server checks on create: structural schema, list types, CEL
// compilation, oldSelf on uncorrelatable paths, the cost budget — and
// reports each error at its schema path (IG020–IG024).
func (c *crdLint) apiServer(crd *apiextv1.CustomResourceDefinition) {
	internal, err := validation.Internal(crd)
	if err != nil {
		c.report("", "<crd>", IDRefused, "fix the manifest", "the API server cannot read this CRD: %v", err)
		return
	}
	errs := apivalidation.ValidateCustomResourceDefinition(context.Background(), internal)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	// The total cost error is reported with the rules that contributed to
	// it, when the server names them.
	totals := map[string]string{} // schema prefix → factor
	contributed := map[string]bool{}
	overRule := map[string]bool{} // rules over the per-rule budget
	for _, e := range errs {
		if strings.Contains(e.Detail, "estimated rule cost exceeds budget") {
			overRule[e.Field] = true
		}
		m := schemaPath.FindStringSubmatch(e.Field)
		if m == nil {
			continue
		}
		if m[3] == "" && strings.Contains(e.Detail, "cost total") {
			totals[m[1]] = factor(e.Detail)
		}
		if strings.Contains(e.Detail, "contributed to estimated rule cost total") {
			contributed[m[1]] = true
		}
	}
	for _, e := range errs {
		m := schemaPath.FindStringSubmatch(e.Field)
		if m == nil {
			c.report("", "<crd>."+e.Field, IDRefused, "fix the CRD as the message says",
				"the API server refuses the CRD: %s", errorText(e))
			continue
		}
		if m[3] == "" && strings.Contains(e.Detail, "cost total") && contributed[m[1]] {
			continue // reported with each rule
		}
		if strings.Contains(e.Detail, "contributed to estimated rule cost total") && overRule[e.Field] {
			continue // the rule alone is over its budget
		}
		var versions []string
		if m[2] != "" {
			i, _ := strconv.Atoi(m[2])
			if i < len(internal.Spec.Versions) {
				versions = []string{internal.Spec.Versions[i].Name}
			}
		} else {
			// One schema for every version (the internal form keeps it
			// once when all versions have the same).
			for _, v := range internal.Spec.Versions {
				versions = append(versions, v.Name)
			}
		}
		for _, v := range versions {
			c.serverError(v, e, m[3], totals[m[1]])
		}
	}
}

// schemaPath splits an API server error path into the schema's prefix,
// version index (empty for spec.validation) and the rest.
var schemaPath = regexp.MustCompile(`^(spec\.(?:versions\[(\d+)\]\.schema|validation)\.openAPIV3Schema)(.*)$`)

var ruleField = regexp.MustCompile(`^\.x-kubernetes-validations\[(\d+)\]\.(\w+)$`)

// serverError reports one error about the schema of version; rest is the
// path below the schema's root, total the factor of the total cost error.
func (c *crdLint) serverError(version string, e *field.Error, rest, total string) {
	root := c.models[version]
	if root == nil {
		c.report(version, "<root>", IDRefused, "fix the schema as the message says", "the API server refuses the CRD: %s%s: %s", "openAPIV3Schema", rest, errorText(e))
		return
	}
	node, tail := root.Follow(rest)
	path := node.Path()
	ruleText, ruleAttr, ruleIndex := "", "", -1
	if r := ruleField.FindStringSubmatch(tail); r != nil {
		ruleIndex, _ = strconv.Atoi(r[1])
		if rules := c.parseRules(node); ruleIndex < len(rules) {
			ruleText = short(rules[ruleIndex].text)
		}
		ruleAttr = r[2]
	}
	what := fmt.Sprintf("the rule `%s`", ruleText)
	if ruleAttr == "messageExpression" {
		what = fmt.Sprintf("the messageExpression of the rule `%s`", ruleText)
	}
	switch {
	case strings.Contains(e.Detail, "oldSelf cannot be used on the uncorrelatable portion"):
		list := "a list"
		fix := "move the rule to a node that is not inside the items of an atomic list or a set"
		if i := strings.LastIndex(e.Detail, " within "); i >= 0 {
			if m := schemaPath.FindStringSubmatch(e.Detail[i+len(" within "):]); m != nil {
				l, _ := root.Follow(m[3])
				if l.Edge == schema.Items {
					l = l.Parent
				}
				if l.IsList() {
					guard := false
					if rules := c.parseRules(node); ruleIndex < len(rules) && rules[ruleIndex].expr != nil {
						guard = guards(node, rules[ruleIndex])
					}
					list, fix = uncorrelatableFix(l, node, guard)
				}
			}
		}
		c.report(version, path, IDUncorrelatable, fix,
			"%s uses oldSelf under the items of %s, which the API server does not correlate between the old and the new object: it refuses the CRD", what, list)
	case strings.Contains(e.Detail, "cost"):
		var msg string
		switch {
		case ruleAttr != "" && strings.Contains(e.Detail, "contributed"):
			msg = fmt.Sprintf("%s contributes to the schema's total estimated rule cost, which exceeds the budget", what)
			if total != "" {
				msg += " by a factor of " + total
			}
		case ruleAttr != "":
			msg = fmt.Sprintf("the estimated cost of %s exceeds the per-rule budget", what)
			if f := factor(e.Detail); f != "" {
				msg += " by a factor of " + f
			}
		default:
			msg = "the total estimated cost of the schema's rules exceeds the budget"
			if f := factor(e.Detail); f != "" {
				msg += " by a factor of " + f
			}
		}
		c.report(version, path, IDCost, boundsHint(node), "%s: the API server refuses the CRD", msg)
	case ruleAttr == "optionalOldSelf":
		c.report(version, path, IDOptionalOldSelf, "remove optionalOldSelf: it only matters for rules that use oldSelf",
			"%s sets optionalOldSelf but does not use oldSelf: the API server refuses the CRD", what)
	case ruleAttr == "rule" || ruleAttr == "messageExpression":
		c.report(version, path, IDRuleInvalid, "correct the expression",
			"%s is refused by the API server: %s", what, oneLine(e.Detail))
	default:
		where := strings.TrimPrefix(tail, ".")
		if where != "" {
			where += ": "
		}
		c.report(version, path, IDRefused, "fix the schema as the message says",
			"the API server refuses the CRD: %s%s", where, errorText(e))
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

var factorRE = regexp.MustCompile(`by factor of ([^(]+?)\s*(?:\(|$)`)

func factor(detail string) string {
	if m := factorRE.FindStringSubmatch(detail); m != nil {
		return m[1]
	}
	return ""
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
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "|") {
			continue
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

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
