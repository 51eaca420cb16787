package migrate

import "testing"

// TestTidy: a bare "//" left last in a doc comment by the removed rules
// goes with them; elsewhere it stays.
func TestTidy(t *testing.T) {
	const src = "// T is a kind.\n//\n// +rule one\n// +rule two\ntype T struct{}\n"
	for _, c := range []struct {
		name string
		edit func(e *edits)
		want string
	}{
		{"all rules removed", func(e *edits) { e.drop[3], e.drop[4] = true, true }, "// T is a kind.\ntype T struct{}\n"},
		{"one rule stays", func(e *edits) { e.drop[4] = true }, "// T is a kind.\n//\n// +rule one\ntype T struct{}\n"},
		{"a marker added above the type", func(e *edits) {
			e.drop[3], e.drop[4] = true, true
			e.before[5] = []added{{text: "// +immutable"}}
		}, "// T is a kind.\n//\n// +immutable\ntype T struct{}\n"},
		{"a rule replaced", func(e *edits) { e.drop[3] = true; e.replace[4] = added{text: "// +rule rest"} }, "// T is a kind.\n//\n// +rule rest\ntype T struct{}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEdits()
			c.edit(e)
			if got := newText(e.apply(src)); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
