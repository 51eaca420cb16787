package lint

import (
	"strings"
	"testing"

	celcommon "github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"

	"github.com/immutable-gen/immutable-gen/schema"
)

// outcomes renders an outcome set as "TFEV" letters, in that order.
func outcomes(o outcome) string {
	var b strings.Builder
	for _, x := range []struct {
		o outcome
		c string
	}{{isTrue, "T"}, {isFalse, "F"}, {isError, "E"}, {isValue, "V"}} {
		if o&x.o != 0 {
			b.WriteString(x.c)
		}
	}
	return b.String()
}

// TestEvaluatorLogic is the evaluator's logic table: the outcomes of an
// expression on an object whose properties are present or absent as
// given. A value read from the object that the evaluator cannot decide is
// true or false, never only an error; an error is an outcome only where
// CEL gives one, and || and && absorb it when the other side decides.
func TestEvaluatorLogic(t *testing.T) {
	root := schema.FromExtensions(map[string]any{"type": "object", "properties": map[string]any{
		"enabled": map[string]any{"type": "boolean"},
		"flag":    map[string]any{"type": "boolean", "nullable": true},
		"mode":    map[string]any{"type": "string", "enum": []any{"a", "b"}},
		"count":   map[string]any{"type": "integer"},
		"any":     map[string]any{"x-kubernetes-int-or-string": true},
		"spec":    map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}},
	}})
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.EnableOptionalSyntax(true))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, expr string
		// present and absent list the properties known present or absent
		// (in both objects); the others are unknown.
		present, absent []string
		want            string
	}{
		{name: "boolean field read", expr: "self.enabled", present: []string{"enabled"}, want: "TF"},
		{name: "negated boolean field", expr: "!self.enabled", present: []string{"enabled"}, want: "TF"},
		{name: "negated boolean field, maybe absent", expr: "!self.enabled", want: "TFE"},
		{name: "negated boolean field, absent", expr: "!self.enabled", absent: []string{"enabled"}, want: "E"},
		{name: "boolean sibling rule (Grafana)", expr: "!oldSelf.enabled || (oldSelf.enabled && self.enabled)", present: []string{"enabled"}, want: "TF"},
		{name: "boolean guard of presence (CAPO)", expr: "!self.enabled || has(self.spec)", present: []string{"enabled"}, absent: []string{"spec"}, want: "TF"},
		{name: "true or error is true", expr: "true || self.spec.x == 'a'", absent: []string{"spec"}, want: "T"},
		{name: "error or true is true", expr: "self.spec.x == 'a' || true", absent: []string{"spec"}, want: "T"},
		{name: "error or false is an error", expr: "self.spec.x == 'a' || false", absent: []string{"spec"}, want: "E"},
		{name: "false and error is false", expr: "false && self.spec.x == 'a'", absent: []string{"spec"}, want: "F"},
		{name: "error and false is false", expr: "self.spec.x == 'a' && false", absent: []string{"spec"}, want: "F"},
		{name: "error and true is an error", expr: "self.spec.x == 'a' && true", absent: []string{"spec"}, want: "E"},
		{name: "unknown boolean or error", expr: "self.enabled || self.spec.x == 'a'", present: []string{"enabled"}, absent: []string{"spec"}, want: "TE"},
		{name: "enum comparison", expr: "self.mode == 'a'", present: []string{"mode"}, want: "TF"},
		{name: "enum discriminator ternary", expr: "self.mode == 'a' ? has(self.spec) : !has(self.spec)", present: []string{"mode", "spec"}, want: "TF"},
		{name: "enum discriminator, spec absent", expr: "self.mode == 'a' ? has(self.spec) : !has(self.spec)", present: []string{"mode"}, absent: []string{"spec"}, want: "TF"},
		{name: "number comparison", expr: "self.count > 1 || has(self.spec)", present: []string{"count"}, absent: []string{"spec"}, want: "TFE"},
		{name: "ternary on a boolean field", expr: "self.enabled ? has(self.spec) : true", present: []string{"enabled"}, absent: []string{"spec"}, want: "TF"},
		{name: "boolean equality", expr: "self.enabled == oldSelf.enabled", present: []string{"enabled"}, want: "TF"},
		{name: "nullable boolean may be null", expr: "!self.flag", present: []string{"flag"}, want: "TFE"},
		{name: "int-or-string may be anything", expr: "!self.any", present: []string{"any"}, want: "TFE"},
		{name: "oldSelf == null or: an object that is not nullable is never null", expr: "oldSelf == null || has(self.spec)", absent: []string{"spec"}, want: "F"},
		{name: "a nullable field may be null", expr: "self.flag == null", present: []string{"flag"}, want: "TF"},
		{name: "a nullable field, maybe absent", expr: "self.flag != null", want: "TFE"},
		{name: "deeper presence", expr: "(has(self.spec) && has(self.spec.x)) == (has(oldSelf.spec) && has(oldSelf.spec.x))", absent: []string{"spec"}, want: "T"},
		{name: "presence comparison", expr: "has(self.spec) == has(oldSelf.spec)", want: "TF"},
		{name: "dereference of an absent optional", expr: "oldSelf.spec.x == self.spec.x", absent: []string{"spec"}, want: "E"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ast, errs := p.Parse(celcommon.NewTextSource(tc.expr))
			if errs != nil && len(errs.GetErrors()) > 0 {
				t.Fatal(errs.ToDisplayString())
			}
			pres := func(n *schema.Node, old bool) presence {
				for _, name := range tc.present {
					if n == root.Properties[name] {
						return present
					}
				}
				for _, name := range tc.absent {
					if n == root.Properties[name] {
						return absent
					}
				}
				return unknown
			}
			ev := evaluator{self: ref{root, false}, oldSelf: ref{root, true}, hasOldSelf: true, presence: pres}
			if got := outcomes(ev.eval(ast.Expr()).out); got != tc.want {
				t.Errorf("%s: got %s, want %s", tc.expr, got, tc.want)
			}
		})
	}
}

// TestEvaluatorFacts: a condition the evaluator cannot decide is one fact
// wherever it reads the same objects, so that `!oldSelf.enabled || X` and
// `oldSelf.enabled && Y` in one evaluation agree on oldSelf.enabled, and
// an error it may also be is kept.
func TestEvaluatorFacts(t *testing.T) {
	root := schema.FromExtensions(map[string]any{"type": "object", "properties": map[string]any{
		"enabled": map[string]any{"type": "boolean"},
		"spec":    map[string]any{"type": "object"},
	}})
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, expr string
		fact       bool
		enabled    presence
		want       string
	}{
		{name: "fact true", expr: "!oldSelf.enabled || has(self.spec)", fact: true, enabled: present, want: "F"},
		{name: "fact false", expr: "!oldSelf.enabled || has(self.spec)", fact: false, enabled: present, want: "T"},
		{name: "fact, field maybe absent", expr: "!oldSelf.enabled || has(self.spec)", fact: true, enabled: unknown, want: "FE"},
		{name: "one fact in two places", expr: "oldSelf.enabled && !oldSelf.enabled", fact: true, enabled: present, want: "F"},
		{name: "an unmodelled call is a boolean", expr: "oldSelf.spec.exists(k, k == 'x') || has(self.spec)", fact: false, enabled: present, want: "F"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ast, errs := p.Parse(celcommon.NewTextSource(tc.expr))
			if errs != nil && len(errs.GetErrors()) > 0 {
				t.Fatal(errs.ToDisplayString())
			}
			pres := func(n *schema.Node, old bool) presence {
				if n == root.Properties["enabled"] {
					return tc.enabled
				}
				if old {
					return present
				}
				return absent
			}
			asked := 0
			ev := evaluator{self: ref{root, false}, oldSelf: ref{root, true}, hasOldSelf: true, presence: pres,
				opaque: func(*schema.Node, bool, celast.Expr) (bool, bool) { asked++; return tc.fact, true }}
			if got := outcomes(ev.eval(ast.Expr()).out); got != tc.want {
				t.Errorf("%s: got %s, want %s", tc.expr, got, tc.want)
			}
			if asked == 0 {
				t.Errorf("%s: no fact asked", tc.expr)
			}
		})
	}
}

// TestObjectsRead: the objects a condition reads in each step of a
// two-step bypass.
func TestObjectsRead(t *testing.T) {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, expr string
		mode       int
		selfOld    bool
		want       string
	}{
		{"old only, direct change", "oldSelf.enabled", 0, false, "oldSelf=O1"},
		{"old only, removal", "oldSelf.enabled", 1, false, "oldSelf=O1"},
		{"old only, addition", "oldSelf.enabled", 2, false, "oldSelf=O2"},
		{"new only, direct change", "self.enabled", 0, false, "self=O3 "},
		{"new only, removal", "self.enabled", 1, false, "self=O2 "},
		{"self in the old object, addition", "self.enabled", 2, true, "self=O2 "},
		{"both, addition", "self.mode == oldSelf.mode", 2, false, "self=O3 oldSelf=O2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ast, errs := p.Parse(celcommon.NewTextSource(tc.expr))
			if errs != nil && len(errs.GetErrors()) > 0 {
				t.Fatal(errs.ToDisplayString())
			}
			if got := objectsRead(tc.mode, tc.selfOld, ast.Expr()); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
