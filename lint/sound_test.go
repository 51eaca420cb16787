package lint

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/internal/proofsize"
	"github.com/immutable-gen/immutable-gen/preflight"
)

var (
	soundCRDs = flag.Int("lint.soundcrds", 0, "generated CRDs in TestSoundByConstruction (0: 1000 with IMMUTABLE_GEN_PROOFS=full, else 150)")
	soundSeed = flag.Uint64("lint.soundseed", 31, "seed of TestSoundByConstruction")
)

// This file is the property test of lint's soundness (issue 31): wherever
// lint reports nothing about an optional field (a presence finding at it,
// or at the ancestor the updates go through), the API server's own
// validator (package preflight) refuses every way around a rule that
// refuses a change of the field's value when it is present on both sides:
// removing it (or an optional ancestor) and adding it back with another
// value in two updates, and for an immutability rule unsetting it and
// setting it later. The other fields are held as they were, as lint's
// bypass is defined (docs/lint.md).

// gnode is a node of a generated schema: a leaf with its values, or an
// object with its properties.
type gnode struct {
	name                string
	typ                 string // string, boolean, enum, object
	values              []any
	children            []*gnode
	required, defaulted bool
	rules               []string
}

func (n *gnode) child(name string) *gnode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// optional reports whether the property may be absent.
func (n *gnode) optional() bool { return !n.required && !n.defaulted }

func (n *gnode) schema() map[string]any {
	s := map[string]any{}
	switch n.typ {
	case "string":
		s["type"], s["maxLength"] = "string", 4
	case "enum":
		s["type"], s["enum"] = "string", []any{"x", "y"}
	case "boolean":
		s["type"] = "boolean"
	case "object":
		s["type"] = "object"
		props := map[string]any{}
		var req []any
		for _, c := range n.children {
			props[c.name] = c.schema()
			if c.required {
				req = append(req, c.name)
			}
		}
		s["properties"] = props
		if len(req) > 0 {
			s["required"] = req
		}
	}
	if n.defaulted {
		s["default"] = n.values[0]
	}
	if len(n.rules) > 0 {
		var rs []any
		for _, r := range n.rules {
			rs = append(rs, map[string]any{"rule": r})
		}
		s["x-kubernetes-validations"] = rs
	}
	return s
}

// absentValue marks a property left out of an object.
type absentValue struct{}

// states enumerates the node's values: every leaf value, every
// combination of the properties of an object, and absent when the
// property is optional (a defaulted one is given its values: the server
// defaults an absent one).
func (n *gnode) states(withAbsent bool) []any {
	var out []any
	if withAbsent && n.optional() {
		out = append(out, absentValue{})
	}
	if n.typ != "object" {
		return append(out, n.values...)
	}
	objs := []map[string]any{{}}
	for _, c := range n.children {
		var next []map[string]any
		for _, o := range objs {
			for _, v := range c.states(true) {
				m := map[string]any{}
				for k, x := range o {
					m[k] = x
				}
				if _, ok := v.(absentValue); !ok {
					m[c.name] = v
				}
				next = append(next, m)
			}
		}
		objs = next
	}
	for _, o := range objs {
		out = append(out, o)
	}
	return out
}

// genCRD is one generated CRD: its root (whose only property is spec).
type genCRD struct {
	root *gnode
}

func leaf(name, typ string, r *rand.Rand) *gnode {
	n := &gnode{name: name, typ: typ}
	switch typ {
	case "string":
		n.values = []any{"a", "b"}
	case "enum":
		n.values = []any{"x", "y"}
	case "boolean":
		n.values = []any{false, true}
	}
	switch k := r.IntN(10); {
	case k < 2:
		n.required = true
	case k < 4:
		n.defaulted = true
	}
	return n
}

func generate(r *rand.Rand) genCRD {
	spec := &gnode{name: "spec", typ: "object", required: r.IntN(2) == 0}
	pool := []string{"f", "g", "b", "m", "p"}
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	names := pool[:2+r.IntN(2)]
	if !slices.Contains(names, "f") && !slices.Contains(names, "p") {
		names = append(names[:len(names)-1], "f")
	}
	slices.Sort(names)
	for _, name := range names {
		switch name {
		case "f", "g":
			spec.children = append(spec.children, leaf(name, "string", r))
		case "b":
			spec.children = append(spec.children, leaf(name, "boolean", r))
		case "m":
			spec.children = append(spec.children, leaf(name, "enum", r))
		case "p":
			p := &gnode{name: "p", typ: "object", required: r.IntN(5) == 0}
			p.children = append(p.children, leaf("f", "string", r))
			if r.IntN(2) == 0 {
				p.children = append(p.children, leaf("b", "boolean", r))
			}
			spec.children = append(spec.children, p)
		}
	}
	root := &gnode{name: "", typ: "object", children: []*gnode{spec}}
	// Value rules: immutability of a string or of p, a comparison on spec.
	var targets []*gnode
	for _, c := range spec.children {
		if c.name == "f" || c.name == "g" || c.name == "p" {
			targets = append(targets, c)
		}
		if c.name == "p" {
			targets = append(targets, c.child("f"))
		}
	}
	for _, t := range targets {
		if r.IntN(2) == 0 {
			t.rules = append(t.rules, "self == oldSelf")
		}
	}
	if f := spec.child("f"); f != nil && r.IntN(4) == 0 {
		spec.rules = append(spec.rules, "self.f == oldSelf.f")
	}
	if f := spec.child("g"); f != nil && r.IntN(6) == 0 {
		root.rules = append(root.rules, "!has(self.spec) || !has(oldSelf.spec) || !has(self.spec.g) || !has(oldSelf.spec.g) || self.spec.g == oldSelf.spec.g")
	}
	// Presence and sibling rules, drawn from the corpus' shapes.
	hosts := []*gnode{spec}
	if p := spec.child("p"); p != nil {
		hosts = append(hosts, p)
	}
	for k := r.IntN(4); k > 0; k-- {
		h := hosts[r.IntN(len(hosts))]
		var opt []string
		for _, c := range h.children {
			if c.optional() {
				opt = append(opt, c.name)
			}
		}
		if len(opt) == 0 {
			continue
		}
		x := opt[r.IntN(len(opt))]
		shapes := []string{
			"has(self.X) == has(oldSelf.X)",
			"!has(oldSelf.X) || has(self.X)",
			"!has(self.X) || has(oldSelf.X)",
			"oldSelf == null || has(self.X) == has(oldSelf.X)",
			"self == oldSelf || has(self.X) == has(oldSelf.X)",
		}
		if b := h.child("b"); b != nil && b.name != x {
			shapes = append(shapes,
				"!oldSelf.b || has(self.X) == has(oldSelf.X)",
				"!self.b || has(self.X)",
				"self.b ? has(self.X) == has(oldSelf.X) : true",
				"!has(oldSelf.b) || !oldSelf.b || (oldSelf.b && self.b)",
				"has(oldSelf.b) && oldSelf.b ? has(self.X) : true")
		}
		if m := h.child("m"); m != nil && m.name != x {
			shapes = append(shapes,
				"self.m == 'x' ? has(self.X) : !has(self.X)",
				"!has(self.m) || self.m == oldSelf.m || has(self.X) == has(oldSelf.X)")
		}
		if h == spec && spec.child("p") != nil {
			shapes = append(shapes,
				"(has(self.p) && has(self.p.f)) == (has(oldSelf.p) && has(oldSelf.p.f))",
				"!has(self.p) || !has(oldSelf.p) || has(self.p.f) == has(oldSelf.p.f)")
		}
		if f := h.child("f"); f != nil && f.name != x {
			// A condition the evaluator does not model (a call).
			shapes = append(shapes, "!has(oldSelf.f) || oldSelf.f.startsWith('a') || has(self.X) == has(oldSelf.X)")
		}
		h.rules = append(h.rules, strings.ReplaceAll(shapes[r.IntN(len(shapes))], "X", x))
	}
	for _, c := range spec.children {
		if c.typ == "string" && r.IntN(6) == 0 {
			c.rules = append(c.rules, "self == oldSelf || self == 'a'") // ratcheting
		}
	}
	if !spec.required {
		rootShapes := []string{"has(self.spec) == has(oldSelf.spec)", "!has(oldSelf.spec) || has(self.spec)"}
		for _, c := range spec.children {
			if c.optional() {
				rootShapes = append(rootShapes, strings.ReplaceAll("!has(self.spec) || !has(oldSelf.spec) || has(self.spec.X) == has(oldSelf.spec.X)", "X", c.name))
			}
		}
		if r.IntN(3) == 0 {
			root.rules = append(root.rules, rootShapes[r.IntN(len(rootShapes))])
		}
	}
	return genCRD{root: root}
}

func (g genCRD) manifest() []byte {
	root := g.root.schema()
	props := root["properties"].(map[string]any)
	props["apiVersion"] = map[string]any{"type": "string"}
	props["kind"] = map[string]any{"type": "string"}
	props["metadata"] = map[string]any{"type": "object"}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names":    map[string]any{"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": root}}}},
	}
	b, _ := json.MarshalIndent(crd, "", " ")
	return b
}

// target is a field whose value a rule refuses to change when it is
// present on both sides: immutable (its own `self == oldSelf`), or
// compared by a rule above it.
type target struct {
	path      []string // from the root
	immutable bool
}

func (g genCRD) targets() []target {
	var out []target
	var walk func(n *gnode, path []string)
	walk = func(n *gnode, path []string) {
		if slices.Contains(n.rules, "self == oldSelf") {
			out = append(out, target{path: path, immutable: true})
		}
		for _, c := range n.children {
			walk(c, append(slices.Clone(path), c.name))
		}
	}
	walk(g.root, nil)
	spec := g.root.child("spec")
	if slices.Contains(spec.rules, "self.f == oldSelf.f") && !slices.Contains(spec.child("f").rules, "self == oldSelf") {
		out = append(out, target{path: []string{"spec", "f"}})
	}
	for _, r := range g.root.rules {
		if strings.Contains(r, "self.spec.g == oldSelf.spec.g") && !slices.Contains(spec.child("g").rules, "self == oldSelf") {
			out = append(out, target{path: []string{"spec", "g"}})
		}
	}
	return out
}

func (g genCRD) node(path []string) *gnode {
	n := g.root
	for _, name := range path {
		n = n.child(name)
	}
	return n
}

// objects of the generated CRD: get, set and delete at a path.
func getAt(obj map[string]any, path []string) (any, bool) {
	var v any = obj
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

func withAt(obj map[string]any, path []string, v any) map[string]any {
	out := deepCopy(obj).(map[string]any)
	m := out
	for _, name := range path[:len(path)-1] {
		m = m[name].(map[string]any)
	}
	if _, ok := v.(absentValue); ok {
		delete(m, path[len(path)-1])
	} else {
		m[path[len(path)-1]] = deepCopy(v)
	}
	return out
}

func objectKey(o map[string]any) string {
	b, _ := json.Marshal(o)
	return string(b)
}

// oracle answers creates and updates with the API server's validator,
// each once.
type oracle struct {
	c       *preflight.Checker
	created map[string]bool
	updated map[string]bool
	calls   int
}

func wrap(spec any) map[string]any {
	o := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns"}}
	if _, ok := spec.(absentValue); !ok {
		o["spec"] = spec
	}
	return o
}

func (o *oracle) create(obj map[string]any) bool {
	k := objectKey(obj)
	if v, ok := o.created[k]; ok {
		return v
	}
	o.calls++
	res, err := o.c.Create(obj)
	ok := err == nil && res.Allowed()
	o.created[k] = ok
	return ok
}

func (o *oracle) update(old, new map[string]any) bool {
	k := objectKey(old) + " -> " + objectKey(new)
	if v, ok := o.updated[k]; ok {
		return v
	}
	o.calls++
	res, err := o.c.Update(new, old)
	ok := err == nil && res.Allowed()
	o.updated[k] = ok
	return ok
}

// presenceIDs are the findings that say a field's presence is not kept.
var presenceIDs = []diag.ID{IDPresence, IDOnceSet, IDOptionalAncestor, IDOptionalObject}

// counterexample checks one target of a CRD whose valid objects are
// given; it returns a description of updates the server accepts that
// lint does not report, or "".
func counterexample(g genCRD, o *oracle, valid []map[string]any, t target, reported func(path []string) bool) string {
	f := g.node(t.path)
	show := func(what string, objs ...map[string]any) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%s):", what, strings.Join(t.path, "."))
		for i, x := range objs {
			js, _ := json.Marshal(x["spec"])
			fmt.Fprintf(&b, "\n  object %d: spec %s", i+1, js)
		}
		return b.String()
	}
	for depth := len(t.path); depth >= 1; depth-- {
		a := t.path[:depth]
		an := g.node(a)
		if !an.optional() || reported(a) {
			continue
		}
		rel := t.path[depth:] // from a to the field
		for _, o1 := range valid {
			v1, ok := getAt(o1, t.path)
			if !ok {
				continue
			}
			o2 := withAt(o1, a, absentValue{})
			if !o.create(o2) || !o.update(o1, o2) {
				continue
			}
			if t.immutable {
				return show("unset in one update", o1, o2)
			}
			for _, sub := range an.states(false) {
				v2, ok := sub, true
				if len(rel) > 0 {
					v2, ok = getAt(sub.(map[string]any), rel)
				}
				if !ok || objectKey(map[string]any{"v": v2}) == objectKey(map[string]any{"v": v1}) {
					continue
				}
				o3 := withAt(o2, a, sub)
				if o.create(o3) && o.update(o2, o3) {
					return show("removed and added back with another value in two updates", o1, o2, o3)
				}
			}
		}
	}
	if t.immutable && f.optional() && !reported(t.path) {
		// Set later, its object present before and after.
		for _, o1 := range valid {
			if _, ok := getAt(o1, t.path); ok {
				continue
			}
			if _, ok := getAt(o1, t.path[:len(t.path)-1]); !ok {
				continue
			}
			for _, v := range f.states(false) {
				o2 := withAt(o1, t.path, v)
				if o.create(o2) && o.update(o1, o2) {
					return show("set later", o1, o2)
				}
			}
		}
	}
	return ""
}

// TestSoundByConstruction generates small CRDs with rules drawn from the
// shapes of the corpus around optional fields and checks with the API
// server's validator that lint reports every presence hole of their
// immutable and compared fields (see the top of this file).
//
//	go test ./lint -run TestSoundByConstruction -lint.soundcrds=20000 -lint.soundseed=7
func TestSoundByConstruction(t *testing.T) {
	start := time.Now()
	r := rand.New(rand.NewPCG(*soundSeed, 0x5eed))
	crds := proofsize.OrFlag(t, "generated CRDs", *soundCRDs, 1000, 150)
	checked, refused, targets, calls := 0, 0, 0, 0
	for i := 0; i < crds; i++ {
		g := generate(r)
		manifest := g.manifest()
		res, err := Manifest("generated.json", manifest)
		if err != nil {
			t.Fatal(err)
		}
		c, err := preflight.NewChecker([]preflight.CRD{{Source: "generated", Raw: manifest}})
		if err != nil {
			refused++ // the API server refuses the CRD; lint says so (IG02x)
			continue
		}
		checked++
		o := &oracle{c: c, created: map[string]bool{}, updated: map[string]bool{}}
		var valid []map[string]any
		for _, spec := range g.root.child("spec").states(true) {
			if obj := wrap(spec); o.create(obj) {
				valid = append(valid, obj)
			}
		}
		reported := func(path []string) bool {
			p := strings.Join(path, ".")
			for _, f := range res.Findings {
				if f.Path == p && slices.Contains(presenceIDs, f.ID) {
					return true
				}
			}
			return false
		}
		for _, tg := range g.targets() {
			targets++
			if ce := counterexample(g, o, valid, tg, reported); ce != "" {
				var fs []string
				for _, f := range res.Findings {
					fs = append(fs, Format(f))
				}
				t.Errorf("CRD %d: lint reports no presence hole, but the API server accepts: %s\nCRD:\n%s\nlint's findings:\n%s", i, ce, manifest, strings.Join(fs, "\n"))
			}
		}
		calls += o.calls
	}
	if targets < crds {
		t.Errorf("only %d fields checked in %d CRDs", targets, crds)
	}
	if refused*10 > crds {
		t.Errorf("the API server refused %d of %d generated CRDs", refused, crds)
	}
	t.Logf("%d CRDs generated, %d checked (%d refused by the API server), %d fields, %d creates and updates validated, in %v", crds, checked, refused, targets, calls, time.Since(start).Round(time.Millisecond))
}

// TestSoundOracle: the check of TestSoundByConstruction finds the holes
// of known shapes when lint is taken to report nothing, and none where the
// rules keep the presence: it is not vacuous.
func TestSoundOracle(t *testing.T) {
	grafana := func(specRules ...string) genCRD {
		spec := &gnode{name: "spec", typ: "object", required: true, rules: specRules, children: []*gnode{
			{name: "b", typ: "boolean", values: []any{false, true}, defaulted: true},
			{name: "f", typ: "string", values: []any{"a", "b"}, rules: []string{"self == oldSelf"}},
		}}
		return genCRD{root: &gnode{typ: "object", children: []*gnode{spec}}}
	}
	cases := []struct {
		name string
		g    genCRD
		want string // the counterexample's first words, "" for none
	}{
		{name: "boolean sibling rule (Grafana)", g: grafana("!oldSelf.b || (oldSelf.b && self.b)"), want: "unset in one update"},
		{name: "set once", g: grafana("!has(oldSelf.f) || has(self.f)"), want: "set later"},
		{name: "presence kept", g: grafana("has(self.f) == has(oldSelf.f)")},
		{name: "presence kept while not b", g: grafana("oldSelf.b || has(self.f) == has(oldSelf.f)"), want: "unset in one update"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			manifest := tc.g.manifest()
			c, err := preflight.NewChecker([]preflight.CRD{{Source: "generated", Raw: manifest}})
			if err != nil {
				t.Fatal(err)
			}
			o := &oracle{c: c, created: map[string]bool{}, updated: map[string]bool{}}
			var valid []map[string]any
			for _, spec := range tc.g.root.child("spec").states(true) {
				if obj := wrap(spec); o.create(obj) {
					valid = append(valid, obj)
				}
			}
			ts := tc.g.targets()
			if len(ts) != 1 {
				t.Fatalf("targets %v", ts)
			}
			got := counterexample(tc.g, o, valid, ts[0], func([]string) bool { return false })
			if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("got %q, want %q…", got, tc.want)
			}
		})
	}
}
