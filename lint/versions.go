package lint

import (
	"fmt"
	"slices"
	"strings"

	celast "github.com/google/cel-go/common/ast"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/schema"
)

// versionSkew reports a field immutable in one served version of the CRD
// and not in another (IG017): every served version reads and writes the
// same stored object, so an update through the version without the rule
// changes the field (Kueue's Topology levels: `self == oldSelf` in
// v1beta1, a weaker rule in v1beta2).
func (c *crdLint) versionSkew() {
	if len(c.served) < 2 {
		return
	}
	someImmutable := false
	for _, v := range c.served {
		someImmutable = someImmutable || len(c.immutable[v]) > 0
	}
	if !someImmutable {
		return
	}
	for _, b := range c.served {
		nodes := map[string]*schema.Node{}
		eachNode(c.models[b], func(n *schema.Node) { nodes[n.Path()] = n })
		reported := map[string]bool{}
		for _, a := range c.served {
			if a == b {
				continue
			}
			for _, p := range sortedKeys(c.immutable[a]) {
				if nodes[p] == nil || reported[p] || covered(c.immutable[b], p) {
					continue
				}
				reported[p] = true
				fix := "make it immutable in " + b + " as in " + a + ", with the rules that keep its presence there (or stop serving " + b + ")"
				if _, ok := c.immutableRules[a][p]; ok {
					if rules, required, ok := c.carried(a, b, p); ok && len(rules) > 0 {
						fix = fmt.Sprintf("in %s, as in %s, %s", b, a, addRules(rules))
						if len(required) > 0 {
							fix += fmt.Sprintf(" (the presence rules stand for %s, required or defaulted in %s: or make them so in %s; or stop serving %s)", strings.Join(required, ", "), a, b, b)
						} else {
							fix += " (or stop serving " + b + ")"
						}
					}
				}
				c.report(b, p, IDVersionSkew, fix,
					"immutable in the served version %s (by %s), but not in %s: an update through %s changes it, and every served version writes the same stored object", a, c.immutable[a][p], b, b)
			}
		}
	}
}

// carriedRule is a rule to add at a schema path (PATH, or "the root
// schema") of another version.
type carriedRule struct{ path, text string }

// carried returns the transition rules version a has for path p that
// version b lacks (the same text at the same path): the rules on p, and on
// the objects above it the rules that test the presence of p or of an
// object between them (`has(self.size) == has(oldSelf.size)` on spec,
// `has(self.spec) == has(oldSelf.spec)` on the root), so that copying
// them makes p as immutable in b as in a, presence included, and leaves no
// new IG010 there. A property on the way that is required or defaulted in
// a and not in b is kept present by a presence rule on its object
// (placement.PresenceFix's: set-once at status); required names those. It
// reports false when a rule cannot be carried in a fix's words: it holds a
// backquote, needs optionalOldSelf, or CEL cannot address a name.
func (c *crdLint) carried(a, b, p string) (out []carriedRule, required []string, ok bool) {
	var target *schema.Node
	eachNode(c.models[a], func(n *schema.Node) {
		if n.Path() == p {
			target = n
		}
	})
	if target == nil {
		return nil, nil, false
	}
	has := map[string]map[string]bool{}
	inB := map[string]*schema.Node{}
	eachNode(c.models[b], func(n *schema.Node) {
		inB[n.Path()] = n
		has[n.Path()] = map[string]bool{}
		for _, r := range n.Rules() {
			has[n.Path()][r.Rule] = true
		}
	})
	add := func(x *schema.Node, text string) {
		at := x.Path()
		if x.Parent == nil {
			at = "the root schema"
		}
		if !has[x.Path()][text] && !slices.Contains(out, carriedRule{at, text}) {
			out = append(out, carriedRule{at, text})
		}
	}
	// below are the names from x down to p, "*" for a list item or map
	// value.
	var below []string
	for x := target; x != nil; x = x.Parent {
		for _, r := range c.parseRules(x) {
			if r.expr == nil || has[x.Path()][r.text] {
				continue
			}
			if x == target && !r.usesOldSelf || x != target && !testsPresenceOn(r.expr, below) {
				continue
			}
			if r.optionalOldSelf || strings.Contains(r.text, "`") {
				return nil, nil, false
			}
			add(x, r.text)
		}
		if y := inB[x.Path()]; y != nil && x.AlwaysPresent() && !y.AlwaysPresent() {
			sel, ok := apiservercel.Escape(x.Name)
			if !ok {
				return nil, nil, false
			}
			rule := fmt.Sprintf("has(self.%s) == has(oldSelf.%s)", sel, sel)
			if placement.DroppedOnCreate(x) {
				rule = fmt.Sprintf("!has(oldSelf.%s) || has(self.%s)", sel, sel)
			}
			add(x.Parent, rule)
			required = append(required, x.Path())
		}
		name := "*"
		if x.Edge == schema.Property {
			name = x.Name
		}
		below = append([]string{name}, below...)
	}
	return out, required, true
}

// testsPresenceOn reports whether e tests the presence (`has(self.a.b)`,
// `has(oldSelf.a)`) of a field whose names from the rule's node are a
// prefix of path: the field at the end of path or an object on the way to
// it.
func testsPresenceOn(e celast.Expr, path []string) bool {
	found := false
	celast.PostOrderVisit(e, celast.NewExprVisitor(func(x celast.Expr) {
		if found || x.Kind() != celast.SelectKind || !x.AsSelect().IsTestOnly() {
			return
		}
		v, names := selectChain(x.AsSelect().Operand())
		names = append(names, x.AsSelect().FieldName())
		found = (v == "self" || v == "oldSelf") && len(names) <= len(path) && slices.Equal(names, path[:len(names)])
	}))
	return found
}

// addRules words the rules to add as one clause ApplyFix reads: "add the
// rule `R` to the x-kubernetes-validations of P and the rule `S` to the
// x-kubernetes-validations of Q".
func addRules(rules []carriedRule) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("the rule `%s` to the x-kubernetes-validations of %s", r.text, r.path)
	}
	return "add " + strings.Join(parts, " and ")
}

// covered reports whether path p or an object above it is immutable.
func covered(imm map[string]string, p string) bool {
	for q := range imm {
		if q == p || q == "<root>" || strings.HasPrefix(p, q+".") || strings.HasPrefix(p, q+"[") {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
