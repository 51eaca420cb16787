package whendiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// gen draws objects of theSchema and conditions of the subset over it.
type gen struct {
	rng *rand.Rand
}

func (g *gen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }
func (g *gen) chance(p float64) bool    { return g.rng.Float64() < p }

var (
	strVals   = []string{"", "a", "b", "ab", "True", "False", "Ready", "x-y"}
	intVals   = []int64{-1, 0, 1, 2, 3, 10}
	dblVals   = []float64{0, 0.5, 1, 2.5, -1}
	dateVals  = []string{"2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00", "2025-06-01T12:00:00Z", "2024-01-01T00:00:00.5Z"}
	durVals   = []string{"1s", "60s", "1m", "1h", "90m", "1d"}
	condTypes = []string{"Ready", "QuotaReserved", "Admitted"}
	keyVals   = []string{"a", "b", "ab", "x-y"}
)

func (g *gen) str() string { return strVals[g.rng.IntN(len(strVals))] }
func (g *gen) int() int64  { return intVals[g.rng.IntN(len(intVals))] }

// number is a JSON number as the API server decodes it: int64 when whole.
func (g *gen) number() any {
	f := dblVals[g.rng.IntN(len(dblVals))]
	if f == float64(int64(f)) && g.chance(0.5) {
		return int64(f)
	}
	return f
}

func (g *gen) distinct(from []string, max int) []string {
	perm := g.rng.Perm(len(from))
	n := g.rng.IntN(max + 1)
	out := make([]string, 0, n)
	for _, i := range perm[:min(n, len(perm))] {
		out = append(out, from[i])
	}
	return out
}

// specField draws a value of the spec's property name.
func (g *gen) specField(name string) any {
	switch name {
	case "suspend", "paused", "locked":
		return g.chance(0.5)
	case "replicas", "size":
		return g.int()
	case "ratio":
		return g.number()
	case "x", "name", "topologyName":
		return g.str()
	case "note":
		if g.chance(0.3) {
			return nil
		}
		return g.str()
	case "start":
		return g.pick(dateVals...)
	case "timeout":
		return g.pick(durVals...)
	case "ios":
		if g.chance(0.5) {
			return g.int()
		}
		return g.pick("a", "1", "b")
	case "f":
		var l []any
		for i := g.rng.IntN(4); i > 0; i-- {
			l = append(l, g.str())
		}
		return orEmpty(l)
	case "items":
		var l []any
		for i := g.rng.IntN(4); i > 0; i-- {
			l = append(l, g.int())
		}
		return orEmpty(l)
	case "tags":
		var l []any
		for _, s := range g.distinct(strVals, 4) {
			l = append(l, s)
		}
		return orEmpty(l)
	case "ports":
		var l []any
		for _, n := range g.distinct(keyVals, 3) {
			p := map[string]any{"name": n}
			if g.chance(0.7) {
				p["port"] = g.int()
			}
			if g.chance(0.3) {
				p["weight"] = g.number()
			}
			l = append(l, p)
		}
		return orEmpty(l)
	case "labels":
		m := map[string]any{}
		for _, k := range g.distinct(keyVals, 3) {
			m[k] = g.str()
		}
		return m
	case "counts":
		m := map[string]any{}
		for _, k := range g.distinct(keyVals, 3) {
			m[k] = g.int()
		}
		return m
	case "topology":
		t := map[string]any{}
		if g.chance(0.6) {
			t["flag"] = g.chance(0.5)
		}
		if g.chance(0.6) {
			in := map[string]any{}
			if g.chance(0.6) {
				in["value"] = g.str()
			}
			if g.chance(0.6) {
				in["n"] = g.int()
			}
			t["inner"] = in
		}
		return t
	}
	panic("no field " + name)
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

var specFields = []string{"suspend", "paused", "locked", "replicas", "size", "ratio", "x", "name", "topologyName", "note", "start", "timeout", "ios", "f", "items", "tags", "ports", "labels", "counts", "topology"}
var statusFields = []string{"phase", "observed", "ready", "conditions"}

func (g *gen) statusField(name string) any {
	switch name {
	case "phase":
		return g.str()
	case "observed":
		return g.int()
	case "ready":
		return g.chance(0.5)
	}
	var l []any
	for _, t := range g.distinct(condTypes, 3) {
		c := map[string]any{"type": t, "status": g.pick("True", "False")}
		if g.chance(0.3) {
			c["reason"] = g.str()
		}
		l = append(l, c)
	}
	return orEmpty(l)
}

func (g *gen) object() map[string]any {
	o := map[string]any{"apiVersion": "diff.example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": g.pick("n1", "n2")}}
	if g.chance(0.9) {
		spec := map[string]any{}
		for _, f := range specFields {
			if g.chance(0.6) {
				spec[f] = g.specField(f)
			}
		}
		o["spec"] = spec
	}
	if g.chance(0.7) {
		status := map[string]any{}
		for _, f := range statusFields {
			if g.chance(0.6) {
				status[f] = g.statusField(f)
			}
		}
		o["status"] = status
	}
	return o
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}

// mutate returns old with one to three changes: a field set anew or
// removed, a list reordered.
func (g *gen) mutate(old map[string]any) map[string]any {
	o := deepCopy(old).(map[string]any)
	for n := 1 + g.rng.IntN(3); n > 0; n-- {
		top, fields, draw := "spec", specFields, g.specField
		if g.chance(0.4) {
			top, fields, draw = "status", statusFields, g.statusField
		}
		m, ok := o[top].(map[string]any)
		if !ok {
			if g.chance(0.5) {
				o[top] = map[string]any{}
			}
			continue
		}
		if g.chance(0.05) {
			delete(o, top)
			continue
		}
		f := fields[g.rng.IntN(len(fields))]
		switch {
		case g.chance(0.25):
			delete(m, f)
		case g.chance(0.3):
			if l, ok := m[f].([]any); ok && len(l) > 1 {
				g.rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
				continue
			}
			m[f] = draw(f)
		default:
			m[f] = draw(f)
		}
	}
	return o
}

// The condition grammar. Each path has the type CEL gives it.
var (
	boolPaths = []string{"spec.suspend", "spec.paused", "spec.locked", "spec.topology.flag", "status.ready"}
	intPaths  = []string{"spec.replicas", "spec.size", "status.observed", "spec.topology.inner.n"}
	strPaths  = []string{"spec.x", "spec.name", "spec.topologyName", "status.phase", "spec.topology.inner.value", "metadata.name"}
	anyPaths  = []string{"spec", "status", "spec.topology", "spec.topology.inner", "spec.f", "spec.items", "spec.tags", "spec.ports", "spec.labels", "spec.counts", "status.conditions", "spec.note", "spec.start", "spec.timeout", "spec.ios", "spec.ratio", "metadata", "kind"}
)

func (g *gen) root() string { return g.pick("self", "oldSelf") }

func (g *gen) path(paths []string) string { return g.root() + "." + paths[g.rng.IntN(len(paths))] }

// strLit writes a string of strVals in one of CEL's literal syntaxes.
func (g *gen) strLit() string {
	s := g.str()
	switch g.rng.IntN(6) {
	case 0:
		return `"` + s + `"`
	case 1:
		return "r'" + s + "'"
	case 2:
		return "'''" + s + "'''"
	case 3:
		var b strings.Builder
		for _, c := range s {
			fmt.Fprintf(&b, `\x%02x`, c)
		}
		return "'" + b.String() + "'"
	case 4:
		var b strings.Builder
		for _, c := range s {
			fmt.Fprintf(&b, `\u%04x`, c)
		}
		return `"` + b.String() + `"`
	}
	return "'" + s + "'"
}

func (g *gen) intLit() string {
	i := g.int()
	if i >= 0 && g.chance(0.2) {
		return fmt.Sprintf("0x%x", i)
	}
	return fmt.Sprint(i)
}

func (g *gen) intExpr() string {
	switch g.rng.IntN(5) {
	case 0, 1:
		return g.path(intPaths)
	case 2:
		return "size(" + g.path([]string{"spec.f", "spec.tags", "spec.labels", "spec.x", "status.conditions"}) + ")"
	case 3:
		return g.path([]string{"spec.items", "spec.ports", "spec.counts", "spec.name"}) + ".size()"
	}
	return g.intLit()
}

func (g *gen) strExpr() string {
	if g.chance(0.5) {
		return g.path(strPaths)
	}
	return g.strLit()
}

func (g *gen) dblExpr() string {
	if g.chance(0.5) {
		return g.root() + ".spec.ratio"
	}
	return g.pick("0.5", "1.0", "-2.5", "1e0", "0.0", ".5")
}

func (g *gen) relop() string { return g.pick("==", "!=", "<", "<=", ">", ">=") }

// boolean draws a bool condition of depth at most d.
func (g *gen) boolean(d int) string {
	n := 20
	if d <= 0 {
		n = 6
	}
	switch g.rng.IntN(n) {
	case 0:
		return "has(" + g.path(append(append(append([]string{}, boolPaths...), intPaths...), anyPaths[:5]...)) + ")"
	case 1:
		return g.path(boolPaths)
	case 2:
		return g.intExpr() + " " + g.relop() + " " + g.intExpr()
	case 3:
		return g.strExpr() + " " + g.relop() + " " + g.strExpr()
	case 4:
		// doubles with doubles, or ordered against ints
		if g.chance(0.5) {
			return g.dblExpr() + " " + g.relop() + " " + g.dblExpr()
		}
		if g.chance(0.5) {
			return g.intExpr() + " " + g.pick("<", "<=", ">", ">=") + " " + g.dblExpr()
		}
		return g.dblExpr() + " " + g.pick("<", "<=", ">", ">=") + " " + g.intExpr()
	case 5:
		return g.pick("true", "false")
	case 6:
		return "!" + g.paren(d-1)
	case 7, 8:
		return g.paren(d-1) + " " + g.pick("&&", "||") + " " + g.paren(d-1)
	case 9:
		return g.paren(d-1) + " ? " + g.paren(d-1) + " : " + g.paren(d-1)
	case 10:
		switch g.rng.IntN(5) {
		case 0:
			return g.strExpr() + " in " + g.path([]string{"spec.tags", "spec.f"})
		case 1:
			return g.strExpr() + " in [" + g.strLit() + ", " + g.strLit() + "]"
		case 2:
			return g.strExpr() + " in " + g.path([]string{"spec.labels", "spec.counts"})
		case 3:
			return g.intExpr() + " in " + g.root() + ".spec.items"
		}
		return g.intExpr() + " in [1, 2, " + g.intLit() + "]"
	case 11, 12:
		return g.macro(d)
	case 13:
		return g.path(strPaths) + "." + g.pick("startsWith", "endsWith", "contains") + "(" + g.strExpr() + ")"
	case 14:
		p := g.pick(anyPaths...)
		return "self." + p + " " + g.pick("==", "!=") + " oldSelf." + p
	case 15:
		switch g.rng.IntN(4) {
		case 0:
			return g.root() + ".spec.items[" + g.pick("0", "1", "3") + "] " + g.relop() + " " + g.intExpr()
		case 1:
			return g.root() + ".spec.labels[" + g.strLit() + "] == " + g.strExpr()
		case 2:
			return g.root() + ".status.conditions[0].status == 'True'"
		}
		return g.root() + ".spec.counts[" + g.strLit() + "] " + g.relop() + " " + g.intExpr()
	case 16:
		switch g.rng.IntN(4) {
		case 0:
			return g.root() + ".spec.start " + g.relop() + " " + g.root() + ".spec.start"
		case 1:
			return g.root() + ".spec.timeout " + g.relop() + " " + g.root() + ".spec.timeout"
		case 2:
			return g.root() + ".spec.ios == " + g.pick("1", "'a'", "self.spec.ios", "oldSelf.spec.ios")
		}
		return g.root() + ".spec.note " + g.pick("==", "!=") + " " + g.pick("null", "'a'")
	case 17:
		r := g.root()
		return fmt.Sprintf("has(%s.status) && has(%s.status.conditions) && %s.status.conditions.exists(c, c.type == %s && c.status == 'True')", r, r, r, g.strLit())
	case 18:
		return g.strExpr() + " " + g.pick("==", "!=") + " " + g.strExpr()
	}
	return "has(" + g.path(strPaths[:5]) + ") && " + g.path(strPaths[:5]) + " == " + g.strLit()
}

func (g *gen) paren(d int) string { return "(" + g.boolean(d) + ")" }

func (g *gen) macro(d int) string {
	m := g.pick("exists", "all", "exists_one")
	r := g.root()
	switch g.rng.IntN(6) {
	case 0:
		return fmt.Sprintf("%s.spec.ports.%s(p, p.name == %s && p.port %s %s)", r, m, g.strLit(), g.relop(), g.intLit())
	case 1:
		return fmt.Sprintf("%s.status.conditions.%s(c, c.type == %s && c.status == 'True')", r, m, g.strLit())
	case 2:
		return fmt.Sprintf("%s.spec.labels.%s(k, k.startsWith(%s) || %s.spec.labels[k] == %s)", r, m, g.strLit(), r, g.strLit())
	case 3:
		return fmt.Sprintf("%s.spec.tags.%s(t, t.size() < %s)", r, m, g.intLit())
	case 4:
		return fmt.Sprintf("%s.spec.ports.%s(p, %s.spec.ports.exists(q, q.name == p.name && q.port != p.port))", r, m, g.root())
	}
	if d > 0 {
		return fmt.Sprintf("%s.spec.items.%s(i, i > %s || %s)", r, m, g.intLit(), g.paren(d-1))
	}
	return fmt.Sprintf("%s.spec.counts.%s(k, %s.spec.counts[k] > %s)", r, m, r, g.intLit())
}
