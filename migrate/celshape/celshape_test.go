package celshape

import (
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		rule string
		want string // atoms; "rest: …" for the rest; "needs: …"
	}{
		{`self == oldSelf`, "[equal]"},
		{`oldSelf == self`, "[equal]"},
		{`(self == oldSelf)`, "[equal]"},
		{`self.name == oldSelf.name`, "[equal name]"},
		{`oldSelf.a.b == self.a.b`, "[equal a.b]"},
		{`self.a == oldSelf.b`, "rest: [self.a == oldSelf.b] old=true"},
		{`self.a == self.a`, "rest: [self.a == self.a] old=false"},
		{`has(self.x) == has(oldSelf.x)`, "[same-presence x]"},
		{`has(oldSelf.x) == has(self.x)`, "[same-presence x]"},
		{`has(self.x) == has(self.x)`, "rest: [has(self.x) == has(self.x)] old=false"},
		{`!has(oldSelf.x) || has(self.x)`, "[no-removal x]"},
		{`has(self.x) || !has(oldSelf.x)`, "[no-removal x]"},
		{`!has(self.x) || has(oldSelf.x)`, "[no-addition x]"},
		{`!has(oldSelf.x) || self.x == oldSelf.x`, "[no-removal x no-modify x]"},
		{`!has(oldSelf.x) || !has(self.x) || oldSelf.x == self.x`, "[no-modify x]"},
		{`oldSelf.x == self.x || !has(self.x) || !has(oldSelf.x)`, "[no-modify x]"},
		{`!has(self.x) || !has(self.x) || oldSelf.x == self.x`, "needs: +immutable:when"},
		{`self.map(i, i.name) == oldSelf.map(i, i.name)`, "[keys-in-order keys=name]"},
		{`self.ports.map(p, p.name) == oldSelf.ports.map(q, q.name)`, "[keys-in-order ports keys=name]"},
		{`sets.equivalent(self.map(i, i.name), oldSelf.map(i, i.name))`, "[same-keys keys=name]"},
		{`oldSelf.all(k, k in self)`, "[no-key-removed]"},
		{`self.all(k, k in oldSelf)`, "[no-key-added]"},
		{`oldSelf.all(k, k in self) && self.all(k, k in oldSelf)`, "[no-key-removed no-key-added]"},
		{`oldSelf.all(x, self.exists(y, y.name == x.name))`, "[no-key-removed keys=name]"},
		{`self.all(x, oldSelf.exists(y, x.name == y.name))`, "[no-key-added keys=name]"},
		{`oldSelf.all(x, x.name in self.map(y, y.name))`, "[no-key-removed keys=name]"},
		{`self.size() == oldSelf.size() && oldSelf.all(k, k in self)`, "[same-size no-key-removed]"},
		{`size(self) == size(oldSelf)`, "[same-size]"},
		{`self == oldSelf && self.size() < 5 && oldSelf.x != 'a'`, "[equal] rest: [self.size() < 5 oldSelf.x != \"a\"] old=false"},
		{`self.a == oldSelf.a && self.b == oldSelf.b`, "[equal a equal b]"},
		{`oldSelf.suspend || self == oldSelf`, "needs: +immutable:when"},
		{`!(has(oldSelf.suspend) && oldSelf.suspend) || self.replicas == oldSelf.replicas`, "needs: +immutable:when"},
		{`oldSelf == '' || self == oldSelf`, "needs: +immutable:when"},
		{`self == oldSelf || self.x > 0`, "needs: +immutable:when"},
		{`self.x > 0`, "rest: [self.x > 0] old=false"},
		{`!has(oldSelf.t) || (has(self.t) && self.t == oldSelf.t)`, "[no-removal t no-modify t]"},
		{`!has(oldSelf.t) || (has(self.l) == has(oldSelf.l) && (!has(self.l) || self.l == oldSelf.l))`, "needs: +immutable:when"},
		{`has(oldSelf.s) && oldSelf.s.ready ? self.spec.x == oldSelf.spec.x : true`, "needs: +immutable:when"},
		{`self.a == oldSelf.a || self.b > 0`, "needs: +immutable:when"},
		{`self.a == oldSelf.b || self.b > 0`, "rest: [self.a == oldSelf.b || self.b > 0] old=true"},
	} {
		s, err := Parse(c.rule)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if got := render(s); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.rule, got, c.want)
		}
	}
}

func render(s Shape) string {
	if s.Needs != "" {
		return "needs: " + s.Needs
	}
	var parts []string
	if len(s.Atoms) > 0 {
		parts = append(parts, fmt.Sprint(s.Atoms))
	}
	if len(s.Rest) > 0 {
		parts = append(parts, fmt.Sprintf("rest: %v old=%v", s.Rest, s.RestUsesOldSelf))
	}
	return strings.Join(parts, " ")
}

func TestParseErrors(t *testing.T) {
	for _, rule := range []string{`self ==`, `)(`, ``} {
		if _, err := Parse(rule); err == nil {
			t.Errorf("%q: no error", rule)
		}
	}
}

// FuzzParse checks that Parse never panics, and that what it keeps of a
// rule (the rest) parses again as CEL with nothing recognised in it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`self == oldSelf`, `!has(oldSelf.x) || has(self.x)`, `has(self.x) == has(oldSelf.x)`,
		`self.map(i, i.name) == oldSelf.map(i, i.name)`, `oldSelf.all(k, k in self)`,
		`!has(oldSelf.x) || !has(self.x) || oldSelf.x == self.x`, `self == oldSelf && self.x > 1`,
		`oldSelf.all(x, self.exists(y, y.name == x.name))`, `oldSelf.s || self == oldSelf`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rule string) {
		s, err := Parse(rule)
		if err != nil {
			return
		}
		for _, r := range s.Rest {
			again, err := Parse(r)
			if err != nil {
				t.Fatalf("%q: rest %q does not parse: %v", rule, r, err)
			}
			if len(again.Atoms) > 0 {
				t.Fatalf("%q: rest %q holds atoms %v", rule, r, again.Atoms)
			}
		}
	})
}
