package celshape

import (
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		rule string
		want string // atoms; "rest: …" for the rest; "when: …"; "needs: …"
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
		{`!has(self.x) || !has(self.x) || oldSelf.x == self.x`, "[no-addition x no-modify x] when: has(self.x)"},
		{`self.map(i, i.name) == oldSelf.map(i, i.name)`, "[keys-in-order keys=name]"},
		{`self.ports.map(p, p.name) == oldSelf.ports.map(q, q.name)`, "[keys-in-order ports keys=name]"},
		// The generator's order of a list map deeper in a value compared whole.
		{`self == oldSelf && (has(self.g) ? (has(self.g.l) ? self.g.l.map(x1, x1.name) : []) : []) == (has(oldSelf.g) ? (has(oldSelf.g.l) ? oldSelf.g.l.map(x1, x1.name) : []) : [])`, "[equal keys-in-order g.l keys=name]"},
		// A guard on another field than the projected one is no shape.
		{`(has(self.g) ? self.h.map(x, x.k) : []) == (has(oldSelf.g) ? oldSelf.h.map(x, x.k) : [])`, "rest: [(has(self.g) ? (self.h.map(x, x.k)) : []) == (has(oldSelf.g) ? (oldSelf.h.map(x, x.k)) : [])] old=true"},
		{`sets.equivalent(self.map(i, i.name), oldSelf.map(i, i.name))`, "[same-keys keys=name]"},
		{`oldSelf.all(k, k in self)`, "[no-key-removed]"},
		{`self.all(k, k in oldSelf)`, "[no-key-added]"},
		{`oldSelf.all(k, k in self) && self.all(k, k in oldSelf)`, "[no-key-removed no-key-added]"},
		{`oldSelf.all(x, self.exists(y, y.name == x.name))`, "[no-key-removed keys=name]"},
		{`self.all(x, oldSelf.exists(y, x.name == y.name))`, "[no-key-added keys=name]"},
		{`oldSelf.all(x, x.name in self.map(y, y.name))`, "[no-key-removed keys=name]"},
		{`self.size() == oldSelf.size() && oldSelf.all(k, k in self)`, "[same-size no-key-removed]"},
		{`size(self) == size(oldSelf)`, "[same-size]"},
		// The generator's lowering of +immutable on atomic list items.
		{`self.all(i1, x1, i1 >= oldSelf.size() || (x1 == oldSelf[i1]))`, "[items-equal]"},
		{`self.p.all(i, x, oldSelf.p[i] == x || i >= oldSelf.p.size())`, "[items-equal p]"},
		{`self.all(i, x, i >= oldSelf.size() || x == oldSelf[0])`, "rest: [self.all(i, x, i >= oldSelf.size() || x == oldSelf[0])] old=true"},
		{`self == oldSelf && self.size() < 5 && oldSelf.x != 'a'`, "[equal] rest: [self.size() < 5 oldSelf.x != \"a\"] old=false"},
		{`self.a == oldSelf.a && self.b == oldSelf.b`, "[equal a equal b]"},
		{`oldSelf.suspend || self == oldSelf`, "[equal] when: !oldSelf.suspend"},
		{`!(has(oldSelf.suspend) && oldSelf.suspend) || self.replicas == oldSelf.replicas`, "[equal replicas] when: has(oldSelf.suspend) && oldSelf.suspend"},
		{`oldSelf == '' || self == oldSelf`, `[equal] when: !(oldSelf == "")`},
		{`self == oldSelf || self.x > 0`, "[equal] when: !(self.x > 0)"},
		{`self.x > 0`, "rest: [self.x > 0] old=false"},
		{`!has(oldSelf.t) || (has(self.t) && self.t == oldSelf.t)`, "[no-removal t no-modify t]"},
		{`!has(oldSelf.t) || (has(self.l) == has(oldSelf.l) && (!has(self.l) || self.l == oldSelf.l))`, "[same-presence l no-addition l no-modify l] when: has(oldSelf.t)"},
		{`has(oldSelf.s) && oldSelf.s.ready ? self.spec.x == oldSelf.spec.x : true`, "[equal spec.x] when: has(oldSelf.s) && oldSelf.s.ready"},
		{`self.a == oldSelf.a || self.b > 0`, "[equal a] when: !(self.b > 0)"},
		{`self.a == oldSelf.b || self.b > 0`, "rest: [self.a == oldSelf.b || self.b > 0] old=true"},
		// A condition longer than 80 columns stays on one line (a marker
		// holds it on one comment line).
		{`!(has(oldSelf.status) && oldSelf.status.conditions.exists(condition, condition.type == 'QuotaReserved' && condition.status == 'True' && condition.reason == 'Admitted')) || self == oldSelf`,
			`[equal] when: has(oldSelf.status) && oldSelf.status.conditions.exists(condition, condition.type == "QuotaReserved" && condition.status == "True" && condition.reason == "Admitted")`},
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
	if s.Needs == NeedsSplit {
		return "needs: split"
	}
	if s.Needs == NeedsMixed {
		return "needs: mixed"
	}
	if s.Needs == NeedsDefault {
		return "needs: default"
	}
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
	if s.When != "" {
		parts = append(parts, "when: "+s.When)
	}
	return strings.Join(parts, " ")
}

// TestParseConditional: conditional rules taken apart into the
// immutability and the condition it holds under (+immutable:when), the
// condition relative to the rule's node.
func TestParseConditional(t *testing.T) {
	for _, c := range []struct {
		name, rule, want string
	}{
		{"or, condition first", `oldSelf.paused || self.size == oldSelf.size`, "[equal size] when: !oldSelf.paused"},
		{"or, condition last", `self.size == oldSelf.size || oldSelf.paused`, "[equal size] when: !oldSelf.paused"},
		{"or, negated guarded condition", `(has(oldSelf.paused) && oldSelf.paused) || self.size == oldSelf.size`, "[equal size] when: !(has(oldSelf.paused) && oldSelf.paused)"},
		{"or, two conditions", `oldSelf.a || !oldSelf.b || self == oldSelf`, "[equal] when: !oldSelf.a && oldSelf.b"},
		{"or, condition on self", `self.force || self.size == oldSelf.size`, "[equal size] when: !self.force"},
		{"or, set once under a condition", `oldSelf.paused || !has(oldSelf.x) || self.x == oldSelf.x`, "[no-removal x no-modify x] when: !oldSelf.paused"},
		{"or, NoModify under a condition", `oldSelf.paused || !has(oldSelf.x) || !has(self.x) || self.x == oldSelf.x`, "[no-modify x] when: !oldSelf.paused"},
		{"or, keys under a condition", `oldSelf.paused || (oldSelf.all(k, k in self) && self.all(k, k in oldSelf))`, "[no-key-removed no-key-added] when: !oldSelf.paused"},
		{"ternary, immutability when true", `oldSelf.locked ? self.x == oldSelf.x : true`, "[equal x] when: oldSelf.locked"},
		{"ternary, immutability when false", `oldSelf.open ? true : self.x == oldSelf.x`, "[equal x] when: !oldSelf.open"},
		{"ternary, guards become NoModify (Kueue queueName)", `has(oldSelf.status) && oldSelf.status.reserved && has(oldSelf.spec.queueName) && has(self.spec.queueName) ? oldSelf.spec.queueName == self.spec.queueName : true`, "[no-modify spec.queueName] when: has(oldSelf.status) && oldSelf.status.reserved"},
		{"ternary, guards of a parent (Kueue priorityClassRef.group)", `oldSelf.r && has(oldSelf.spec.ref) && has(self.spec.ref) ? oldSelf.spec.ref.group == self.spec.ref.group : true`, "[equal spec.ref.group guarded=[2]] when: oldSelf.r"},
		{"ternary, one-sided guard stays in the condition", `oldSelf.r && has(oldSelf.spec.ref) ? oldSelf.spec.ref == self.spec.ref : true`, "[equal spec.ref] when: oldSelf.r && has(oldSelf.spec.ref)"},
		{"ternary, guards alone: NoModify", `has(oldSelf.x) && has(self.x) ? oldSelf.x == self.x : true`, "[no-modify x]"},
		{"ternary with exists (Kueue QuotaReserved)", `(has(oldSelf.status) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? self.spec.q == oldSelf.spec.q : true`, `[equal spec.q] when: has(oldSelf.status) && oldSelf.status.conditions.exists(c, c.type == "QuotaReserved" && c.status == "True")`},
		{"presence and value under a condition (Kueue nodeLabels)", `!has(oldSelf.topologyName) || (has(self.nodeLabels) == has(oldSelf.nodeLabels) && (!has(self.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels))`, "[same-presence nodeLabels no-addition nodeLabels no-modify nodeLabels] when: has(oldSelf.topologyName)"},
		{"compared while present, value and keys in order (the generator's list map under :when)", `oldSelf.frozen || !has(self.f) || !has(oldSelf.f) || (self.f == oldSelf.f && self.f.map(x, x.name) == oldSelf.f.map(x, x.name))`, "[no-modify f keys-in-order f keys=name guarded=[1]] when: !oldSelf.frozen"},
		{"compared while present, size and keys (the generator's keys form under :when)", `oldSelf.frozen || !has(self.f) || !has(oldSelf.f) || (self.f.size() == oldSelf.f.size() && self.f.all(k, k in oldSelf.f))`, "[same-size f guarded=[1] no-key-added f guarded=[1]] when: !oldSelf.frozen"},
		{"compared while present, a list map deeper guarded from inside the value", `oldSelf.frozen || !has(self.f) || !has(oldSelf.f) || (self.f == oldSelf.f && (has(self.f.g) ? self.f.g.map(x, x.name) : []) == (has(oldSelf.f.g) ? oldSelf.f.g.map(x, x.name) : []))`, "[no-modify f keys-in-order f.g keys=name guarded=[1]] when: !oldSelf.frozen"},
		{"compared while present, a presence rule inside: the guards are the condition's", `oldSelf.frozen || !has(self.f) || !has(oldSelf.f) || (self.f == oldSelf.f && has(self.f.g) == has(oldSelf.f.g))`, "[no-modify f same-presence f.g guarded=[1]] when: !oldSelf.frozen"},
		{"compared while present, about another field: the guards stay in the condition", `oldSelf.frozen || !has(self.f) || !has(oldSelf.f) || (self.f == oldSelf.f && self.h == oldSelf.h)`, "[equal f equal h] when: !oldSelf.frozen && has(self.f) && has(oldSelf.f)"},
		{"condition compares self and oldSelf", `self.a == oldSelf.a || self.b == oldSelf.b`, "needs: split"},
		{"ternary, else not true", `oldSelf.locked ? self.x == oldSelf.x : self.y > 0`, "needs: split"},
		{"two conditional parts", `(oldSelf.p || self.a == oldSelf.a) && (oldSelf.q || self.b == oldSelf.b)`, "needs: split"},
		{"conditional and unconditional", `self.a == oldSelf.a && (oldSelf.q || self.b == oldSelf.b)`, "needs: mixed"},
		{"conditional with a rest", `self.r >= oldSelf.r && (oldSelf.q || self.b == oldSelf.b)`, "[equal b] rest: [self.r >= oldSelf.r] old=true when: !oldSelf.q"},
		{"immutability mixed into the condition", `(self.a == oldSelf.a && oldSelf.p) || self.b == oldSelf.b`, "needs: split"},
		{"presence written as both absent or both present", `(!has(oldSelf.p) && !has(self.p)) || (has(oldSelf.p) && has(self.p))`, "[same-presence p]"},
		{"presence both ways under a condition (Kueue priorityClassRef)", `oldSelf.r ? (!has(oldSelf.spec.p) && !has(self.spec.p)) || (has(oldSelf.spec.p) && has(self.spec.p)) : true`, "[same-presence spec.p] when: oldSelf.r"},
		{"not presence: one side twice", `(!has(oldSelf.p) && !has(oldSelf.p)) || (has(oldSelf.p) && has(self.p))`, "rest: [!has(oldSelf.p) && !has(oldSelf.p) || has(oldSelf.p) && has(self.p)] old=true"},
		{"absence taken as a default", `(has(oldSelf.m) ? oldSelf.m : 0) == (has(self.m) ? self.m : 0)`, "needs: default"},
		{"absence taken as a default, under a condition (Kueue maximumExecutionTimeSeconds)", `oldSelf.r ? ((has(oldSelf.m) ? oldSelf.m : 0) == (has(self.m) ? self.m : 0)) : true`, "needs: default"},
		{"different defaults: no immutability", `(has(oldSelf.m) ? oldSelf.m : 0) == (has(self.m) ? self.m : 1)`, "rest: [(has(oldSelf.m) ? oldSelf.m : 0) == (has(self.m) ? self.m : 1)] old=true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse(c.rule)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(s); got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.rule, got, c.want)
			}
		})
	}
}

// TestRebase: a condition written for a rule below the root, rewritten
// over the whole objects.
func TestRebase(t *testing.T) {
	for _, c := range []struct {
		name, expr string
		path       []string
		want       string
	}{
		{"root", `oldSelf.paused`, nil, `oldSelf.paused`},
		{"spec", `!(has(oldSelf.paused) && oldSelf.paused)`, []string{"spec"}, `!(has(oldSelf.spec.paused) && oldSelf.spec.paused)`},
		{"deeper, both roots", `self.a || oldSelf.b`, []string{"spec", "template"}, `self.spec.template.a || oldSelf.spec.template.b`},
		{"bare self", `oldSelf == ""`, []string{"spec", "mode"}, `oldSelf.spec.mode == ""`},
		{"comprehension variables stay", `oldSelf.conditions.exists(c, c.type == "Ready")`, []string{"status"}, `oldSelf.status.conditions.exists(c, c.type == "Ready")`},
		{"names in strings stay", `oldSelf.x == "self"`, []string{"spec"}, `oldSelf.spec.x == "self"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Rebase(c.expr, c.path)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
	if _, err := Rebase(`oldSelf.l.all(self, self > 0)`, []string{"spec"}); err == nil {
		t.Errorf("a variable named self: no error")
	}
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
