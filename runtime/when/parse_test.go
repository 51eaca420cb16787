package when

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct{ name, expr string }{
		{"Kueue", "has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"},
		{"JobSet", "!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)"},
		{"conditional", "self.spec.a ? self.spec.b : !self.spec.c"},
		{"relations", "1 < 2 && 2 <= 3 && 3 > 2 && 3 >= 3 && 1 == 1 && 1 != 2"},
		{"in a list literal with a trailing comma", "self.spec.mode in ['a', 'b',]"},
		{"in a map", "'k' in self.spec.labels"},
		{"size function and method", "size(self.spec.l) == self.spec.l.size()"},
		{"string functions", "self.spec.s.startsWith('a') || self.spec.s.endsWith(\"b\") || self.spec.s.contains(r'\\c')"},
		{"macros", "self.spec.l.all(x, x.exists_one(y, y > 0)) || self.spec.m.exists(k, k == 'a')"},
		{"index", "self.spec.l[0] == self.spec.m['k']"},
		{"literals", "[1, -1, 0x1F, -0x1F, 1u, 0x1Fu, 1.5, -1.5, 1e3, .5, true, false, null, 'a', \"b\", '''c''', \"\"\"d\"\"\", r'e', R\"f\"] == []"},
		{"the empty list with a comma", "[,] == []"},
		{"min int", "-9223372036854775808 < 0"},
		{"escaped property name", "has(self.spec.foo__dash__bar)"},
		{"newlines and tabs", "true &&\n\ttrue"},
		{"a long chain of && is one level", "true" + strings.Repeat(" && true", 10*MaxDepth)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if e.String() != tc.expr {
				t.Errorf("String() = %q", e.String())
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		col        int
		want       string
	}{
		{"matches", "self.spec.s.matches('a+')", 13, "the function matches() is not in the subset +immutable:when supports in the runtime"},
		{"a global function", "int(self.spec.s) == 1", 1, "the function int() is not in the subset"},
		{"timestamp()", "self.spec.t < timestamp('2024-01-01T00:00:00Z')", 15, "the function timestamp() is not in the subset"},
		{"arithmetic", "self.spec.a + 1 == 2", 13, `arithmetic ("+") is not in the subset`},
		{"negation of a field", "-self.spec.a < 0", 1, "negation (-) of anything but an int or double literal is not in the subset"},
		{"negation of a uint", "-1u < 0u", 1, "negation (-) of anything but an int or double literal"},
		{"double negation", "--1 == 1", 1, "negation (-) of anything but an int or double literal"},
		{"map literal", "{'a': 1} == self.spec.m", 1, "a map literal is not in the subset"},
		{"message literal", "Foo{a: 1} == self", 1, "a message literal is not in the subset"},
		{"bytes literal", "b'abc' == self.spec.b", 1, "a bytes literal is not in the subset"},
		{"optional field", "self.spec.?a == 1", 10, "optional field selection (.?) is not in the subset"},
		{"optional index", "self.spec.l[?0] == 1", 12, "optional indexing ([?) is not in the subset"},
		{"two-variable comprehension", "self.spec.l.all(i, x, x > i)", 20, "all() with two variables is not in the subset"},
		{"map macro", "self.spec.l.map(x, x + 1) == []", 13, "the function map() is not in the subset"},
		{"filter macro", "self.spec.l.filter(x, x > 1) == []", 13, "the function filter() is not in the subset"},
		{"backquoted name", "self.spec.`a-b` == 1", 11, "a backquoted field name is not in the subset"},
		{"leading dot", ".self == 1", 1, "a name with a leading dot is not in the subset"},
		{"comment", "true // why", 6, "a comment (//)"},
		{"undeclared", "spec.a == 1", 1, `undeclared reference to "spec"`},
		{"macro variable out of scope", "self.l.exists(x, true) && x", 27, `undeclared reference to "x"`},
		{"macro variable shadowing self", "self.l.exists(self, true)", 15, "the variable self would hide the object"},
		{"macro variable reserved", "self.l.exists(null, true)", 15, "null is a reserved word"},
		{"reserved identifier", "self.spec.a == if", 16, "reserved identifier: if"},
		{"a keyword as a field name", "self.true", 6, `expected a field or method name after '.', found "true"`},
		{"in as a field name", "self.in == 1", 6, `expected a field or method name after '.', found "in"`},
		{"has of an identifier", "has(self)", 5, "invalid argument to has() macro"},
		{"size with two arguments", "size(self.a, self.b) == 1", 1, "size() takes 1 argument"},
		{"method with no argument", "self.s.startsWith() == true", 8, "startsWith() takes 1 argument"},
		{"exists as a function", "exists(self.l, x, true)", 1, "exists() is a method"},
		{"unterminated string", "self.s == 'abc", 11, "unterminated string literal"},
		{"newline in a quoted string", "self.s == 'a\nb'", 11, "a quoted string ends at the end of its line"},
		{"bad escape", `self.s == '\q'`, 12, `invalid escape sequence \q`},
		{"surrogate escape", `self.s == '\ud800'`, 12, "invalid unicode code point"},
		{"int overflow", "9223372036854775808 > 0", 1, "invalid int literal"},
		{"negative int overflow", "-9223372036854775809 < 0", 1, "invalid int literal"},
		{"uint overflow", "18446744073709551616u > 0u", 1, "invalid uint literal"},
		{"double overflow", "1e400 > 0.0", 1, "invalid double literal"},
		{"a comma alone in a call", "size(,) == 0", 6, `unexpected ","`},
		{"a comma before an element", "[,1] == []", 2, `unexpected ","`},
		{"a single =", "self.a = 1", 8, `unexpected character '='`},
		{"a single &", "true & false", 6, `unexpected character '&'`},
		{"unbalanced parenthesis", "(true", 6, `expected ")", found the end of the condition`},
		{"trailing token", "true true", 6, `unexpected "true"`},
		{"empty", "", 1, "unexpected end of the condition"},
		{"column counts characters", "'é' == 'é' && self.s.matches('a')", 22, "the function matches()"},
		{"too deep", strings.Repeat("(", MaxDepth+1) + "true" + strings.Repeat(")", MaxDepth+1), 0, "nests deeper than 100 levels"},
		{"too deep in a chain of relations", "true" + strings.Repeat(" == true", 2*MaxDepth), 0, "nests deeper than 100 levels"},
		{"too long", "'" + strings.Repeat("a", MaxLength) + "' == ''", 1, "the runtime takes at most 16384"},
		{"not UTF-8", "'\xff' == ''", 1, "not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.expr)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, want a *SyntaxError", tc.expr, err)
			}
			if !strings.Contains(se.Msg, tc.want) {
				t.Errorf("message %q, want it to contain %q", se.Msg, tc.want)
			}
			if tc.col != 0 && se.Column != tc.col {
				t.Errorf("column %d, want %d (%s)", se.Column, tc.col, se.Msg)
			}
		})
	}
}

// TestOutsideNamesTheAlternative: every refusal of a construct outside
// the subset says where it is taken.
func TestOutsideNamesTheAlternative(t *testing.T) {
	msg := outside("x")
	for _, want := range []string{"x is not in the subset", "crd:immutability=cel"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
}

// TestSyntax: the exported view of the tree names each construct and keeps
// the operands in order.
func TestSyntax(t *testing.T) {
	cases := []struct{ name, expr, want string }{
		{"kueue", "has(oldSelf.status) && oldSelf.status.conditions.exists(c, c.type == 'Q')",
			"&&(has.status(ident.oldSelf), exists.c(select.conditions(select.status(ident.oldSelf)), ==(select.type(ident.c), literal:Q)))"},
		{"literals", "[1, 2u, 1.5, null, true] == []", "==(list(literal:1, literal:2, literal:1.5, literal:<nil>, literal:true), list)"},
		{"ternary and index", "self.a[0] ? !self.b : self.c in ['x']", "?:(index(select.a(ident.self), literal:0), !(select.b(ident.self)), in(select.c(ident.self), list(literal:x)))"},
		{"size", "size(self.s) < self.s.size()", "<(size(select.s(ident.self)), size(select.s(ident.self)))"},
	}
	var render func(s *Syntax) string
	render = func(s *Syntax) string {
		out := s.Op
		if s.Name != "" {
			out += "." + s.Name
		}
		if s.Op == "literal" {
			out += fmt.Sprintf(":%v", s.Literal)
		}
		if len(s.Args) > 0 {
			parts := make([]string, len(s.Args))
			for i, a := range s.Args {
				parts[i] = render(a)
			}
			out += "(" + strings.Join(parts, ", ") + ")"
		}
		return out
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := Parse(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(e.Syntax()); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
