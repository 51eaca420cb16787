package when

import (
	"errors"
	"testing"
)

// FuzzParse: Parse never panics, refuses with a *SyntaxError whose column
// lies within the condition (or just past its end), and a condition it
// takes evaluates on the evaluation tests' objects without panicking,
// within MaxCost, to a bool or an error. The seeds are every condition of
// testdata/eval.json and these, which reach each construct and refusal;
// testdata/fuzz/FuzzParse holds what the fuzzer found worth keeping.
func FuzzParse(f *testing.F) {
	s := mustSchema(f)
	cases := readCases(f).Cases
	for _, c := range cases {
		f.Add(c.Expr)
	}
	for _, seed := range []string{
		"", "(", "'", `"\`, "'''", "r'", "b'", "0x", "1e", ".5", "-", "--1", "!!", "a.b", "self.", "self[",
		"self.spec.l.exists(x, x.exists(y, y))", "has(self.a.b)", "size()", "[1,2,]", "{}", "`a`", "1u", "0x1Fu",
		`'\x41\101\u00e9\U0001F600'`, "true ? 1 : 2", "self.spec.?a", "self.l[?0]", "// c",
		"-9223372036854775808", "18446744073709551615u", "1e400", "'\xff'",
	} {
		f.Add(seed)
	}
	self, old := obj(f, string(cases[0].Self)), obj(f, string(cases[2].Old))
	f.Fuzz(func(t *testing.T, expr string) {
		e, err := Parse(expr)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): %T %v, want a *SyntaxError", expr, err, err)
			}
			if se.Column < 1 || se.Column > len([]rune(expr))+1 {
				t.Fatalf("Parse(%q): column %d outside the condition", expr, se.Column)
			}
			return
		}
		if e.String() != expr {
			t.Fatalf("String() = %q, want %q", e.String(), expr)
		}
		for _, pair := range [][2]map[string]any{{self, old}, {old, self}} {
			_, err := e.Eval(s, pair[0], pair[1])
			var ee *EvalError
			if err != nil && !errors.As(err, &ee) && !errors.Is(err, ErrCost) {
				t.Fatalf("Eval(%q): %T %v", expr, err, err)
			}
		}
	})
}
