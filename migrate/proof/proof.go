// Package proof compares two generations of the same CRDs — before and
// after a migration of their immutability rules — on the API server's own
// verdicts, each update judged by the server's validator with ratcheting
// (preflight) under both CRDs. The updates of each migrated field are
// targeted ones first, derived from the schema with a fixed seed (the
// field removed, set later, reordered, its keys added and removed, its
// optional ancestors removed and added back, its condition true and false,
// values at their bounds: targeted.go), then random ones drawn with the
// run's seed (preflight/preflighttest). Each verdict that differs is
// classified, attributed to the migrated fields it is about, and reduced to
// a small old/new pair; a difference no targeted update found is a
// targeted case missing.
package proof

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"

	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// A Field is a migrated schema node.
type Field struct {
	CRD, Version string
	// Path runs from the openAPIV3Schema: property names, "[]" for list
	// items, "{}" for map values.
	Path []string
	// When is the condition (CEL over the whole objects, as
	// +immutable:when reads it) under which the field is immutable, ""
	// for always: a refusal of a change of the field closes a hole only
	// on updates where it holds.
	When string
}

// Class is the kind of a difference.
type Class string

const (
	// ClosesHole: the original allowed an update that changes a field its
	// own rules call immutable (its presence, or its value as CEL compares
	// it; for a conditional rule, on an update where its condition holds);
	// the migrated CRD refuses it.
	ClosesHole Class = "closes a hole"
	// NewRefusal: the migrated CRD refuses an update the original allowed
	// that is no change of a migrated field.
	NewRefusal Class = "new refusal"
	// NewAcceptance: the migrated CRD allows an update the original
	// refused: something got weaker.
	NewAcceptance Class = "new acceptance"
)

// A Difference is a group of updates with one class at one field, with
// the smallest example found.
type Difference struct {
	Class Class
	// Field is the migrated field the updates change, or the field the
	// refusing side names.
	Field string
	Count int
	// Old and New are the example's objects below metadata (spec, …).
	Old, New map[string]any
	// Errors are the refusing side's errors on the example.
	Errors []string
	// Fields are the indexes, in the fields given to Run, of the migrated
	// fields the difference is about: for a closed hole, the fields whose
	// change is refused; for a new refusal, the fields at or above the
	// paths the migrated CRD names, else the field the update was about;
	// for a new acceptance, the field the update was about.
	Fields []int
	// Targeted counts the updates of the group that were targeted ones;
	// Update says what the example's does ("" for a random one).
	Targeted int
	Update   string
}

// Missing reports whether only random updates found the difference: a
// targeted case is missing (a bug of the targeted updates).
func (d Difference) Missing() bool { return d.Targeted == 0 }

// A CRDReport is the differential of one CRD version.
type CRDReport struct {
	CRD, Version string
	Fields       []string
	// Updates counts the updates run: Targeted of them targeted, the
	// others random.
	Updates, Targeted int
	// RefusedBefore and RefusedAfter count the updates each side refused.
	RefusedBefore, RefusedAfter int
	// Conditional counts the updates of fields with a condition, Held
	// those on which it held.
	Conditional, Held int
	Differences       []Difference
	// Reworded are, per migrated field, the updates both sides refuse
	// with errors of other paths or types: the verdict is kept, but a
	// client that reads the error's field or type sees another one
	// (Karpenter: `spec: Invalid` becomes `spec.replicas: Forbidden`).
	Reworded []Reworded
}

// Reworded is a group of targeted updates of one migrated field that both
// CRDs refuse, with other errors: the field and type of each error
// (`spec.replicas: Forbidden`) before and after, on the first of them.
type Reworded struct {
	Field         string
	Count         int
	Before, After []string
	Update        string
}

// A Report is the differential of every migrated CRD.
type Report struct {
	CRDs []CRDReport
}

// Count returns the number of updates of class c.
func (r Report) Count(c Class) int {
	n := 0
	for _, x := range r.CRDs {
		for _, d := range x.Differences {
			if d.Class == c {
				n += d.Count
			}
		}
	}
	return n
}

// Missing returns the differences that only random updates found.
func (r Report) Missing() []Difference {
	var out []Difference
	for _, x := range r.CRDs {
		for _, d := range x.Differences {
			if d.Missing() {
				out = append(out, d)
			}
		}
	}
	return out
}

// Options tune a run.
type Options struct {
	// Updates is the number of random updates per CRD version (default
	// 1000), after the targeted ones.
	Updates int
	// Seed of the random updates (default 1). The targeted updates do not
	// depend on it.
	Seed uint64
	// TargetedOnly skips the random updates.
	TargetedOnly bool
}

// Run compares before and after (CRD files as the crd generator writes
// them, by name) on random updates of fields. An error means the CRDs
// cannot be compared (one the API server refuses, a CRD missing after).
func Run(before, after map[string][]byte, fields []Field, o Options) (Report, error) {
	if o.Updates == 0 {
		o.Updates = 1000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	byCRD := map[string][]Field{}
	index := map[string][]int{}
	for i, f := range fields {
		byCRD[f.CRD] = append(byCRD[f.CRD], f)
		index[f.CRD] = append(index[f.CRD], i)
	}
	b, err := loadCRDs(before, byCRD)
	if err != nil {
		return Report{}, fmt.Errorf("the original CRDs: %w", err)
	}
	a, err := loadCRDs(after, byCRD)
	if err != nil {
		return Report{}, fmt.Errorf("the migrated CRDs: %w", err)
	}
	var rep Report
	for _, name := range slices.Sorted(maps.Keys(byCRD)) {
		bc, ac := b[name], a[name]
		if bc == nil || ac == nil {
			return Report{}, fmt.Errorf("CRD %s: not generated both before and after the migration", name)
		}
		versions := map[string][]Field{}
		vindex := map[string][]int{}
		for i, f := range byCRD[name] {
			versions[f.Version] = append(versions[f.Version], f)
			vindex[f.Version] = append(vindex[f.Version], index[name][i])
		}
		for _, v := range slices.Sorted(maps.Keys(versions)) {
			r, err := compare(bc, ac, v, versions[v], vindex[v], o)
			if err != nil {
				return Report{}, fmt.Errorf("CRD %s %s: %w", name, v, err)
			}
			rep.CRDs = append(rep.CRDs, r)
		}
	}
	return rep, nil
}

// crd is one CRD, with the checker that serves it.
type crd struct {
	name       string
	group      string
	kind       string
	namespaced bool
	schemas    map[string]map[string]any
	checker    *preflight.Checker
	// raw is the CRD as JSON.
	raw []byte
}

func loadCRDs(files map[string][]byte, want map[string][]Field) (map[string]*crd, error) {
	out := map[string]*crd{}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		j, err := yaml.YAMLToJSON(files[file])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		var obj struct {
			Metadata struct{ Name string }
			Spec     struct {
				Group    string
				Scope    string
				Names    struct{ Kind string }
				Versions []struct {
					Name   string
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					}
				}
			}
		}
		if err := json.Unmarshal(j, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if want != nil && want[obj.Metadata.Name] == nil {
			continue
		}
		c, err := preflight.NewChecker([]preflight.CRD{{Source: file, Raw: j}})
		if err != nil {
			return nil, err
		}
		x := &crd{name: obj.Metadata.Name, group: obj.Spec.Group, kind: obj.Spec.Names.Kind, namespaced: obj.Spec.Scope != "Cluster", schemas: map[string]map[string]any{}, checker: c, raw: j}
		for _, v := range obj.Spec.Versions {
			x.schemas[v.Name] = v.Schema.OpenAPIV3Schema
		}
		out[x.name] = x
	}
	return out, nil
}

// compare runs the updates of one CRD version; index are the fields'
// indexes in Run's.
func compare(before, after *crd, version string, fields []Field, index []int, o Options) (CRDReport, error) {
	root := before.schemas[version]
	if root == nil {
		return CRDReport{}, fmt.Errorf("no schema")
	}
	rep := CRDReport{CRD: before.name, Version: version}
	for _, f := range fields {
		rep.Fields = append(rep.Fields, pathString(f.Path))
	}
	body := bodySchema(root)
	conds, err := newConditions(after, version, fields)
	if err != nil {
		return rep, err
	}
	// The strings the rules compare with (`c.type == 'Ready'`), so that
	// their conditions are met, on both sides of the comparison.
	words := literals(root, after.schemas[version])
	groups := map[string]*Difference{}
	var order []string
	reworded := map[string]*Reworded{}
	var rewordedOrder []string
	run := func(fi int, oldBody, newBody map[string]any, what string, targeted bool) error {
		f := fields[fi]
		v, err := judge(before, after, version, oldBody, newBody)
		if err != nil {
			return err
		}
		rep.Updates++
		if targeted {
			rep.Targeted++
		}
		if f.When != "" {
			rep.Conditional++
			if conds.held(oldBody, newBody)[f.When] {
				rep.Held++
			}
		}
		if !v.before.Allowed() {
			rep.RefusedBefore++
		}
		if !v.after.Allowed() {
			rep.RefusedAfter++
		}
		// Only the targeted updates: one field at a time, and the same
		// whatever the seed.
		if targeted && !v.before.Allowed() && !v.after.Allowed() {
			if b, a := errorShapes(v.before.Errors), errorShapes(v.after.Errors); !slices.Equal(b, a) {
				// At the migrated field the new errors name, else the
				// field the update is about.
				fld := pathString(f.Path)
			named:
				for _, e := range v.after.Errors {
					for _, g := range fields {
						if p := pathString(g.Path); StripIndexes(e.Field) == StripIndexes(p) {
							fld = p
							break named
						}
					}
				}
				g := reworded[fld]
				if g == nil {
					reworded[fld] = &Reworded{Field: fld, Before: b, After: a, Update: what}
					rewordedOrder = append(rewordedOrder, fld)
					g = reworded[fld]
				}
				g.Count++
			}
		}
		cls, raw, blame := classify(v, body, oldBody, newBody, fields, conds)
		if cls == "" {
			return nil
		}
		fld := raw
		if len(blame) == 0 {
			blame = []int{fi}
		}
		if cls == NewAcceptance {
			// The original's rule refused a change of a migrated field at
			// or below the node it names (the root names none): the
			// fields the update changes there, the one it is about first.
			order := []int{fi}
			for i := range fields {
				if i != fi {
					order = append(order, i)
				}
			}
			var changedHere []int
			for _, i := range order {
				fs := StripIndexes(pathString(fields[i].Path))
				if (fld == "" || fld == "<nil>" || fs == fld || strings.HasPrefix(fs, fld+".")) && changed(body, oldBody, newBody, fields[i].Path) {
					changedHere = append(changedHere, i)
				}
			}
			if len(changedHere) > 0 {
				blame, fld = changedHere, pathString(fields[changedHere[0]].Path)
			} else if fp := pathString(f.Path); fld == "" || fld == "<nil>" || strings.HasPrefix(StripIndexes(fp), fld+".") {
				fld = fp
			}
		}
		// A closed hole counts at each field it closes; the other
		// differences at the fields they are attributed to together.
		sets := [][]int{blame}
		if cls == ClosesHole {
			sets = nil
			for _, b := range blame {
				sets = append(sets, []int{b})
			}
		}
		for _, set := range sets {
			fld := fld
			if cls == ClosesHole {
				fld = pathString(fields[set[0]].Path)
			}
			key := fmt.Sprint(cls, " ", fld, " ", set)
			g := groups[key]
			if g == nil {
				order = append(order, key)
				g = &Difference{Class: cls, Field: fld}
				for _, b := range set {
					g.Fields = append(g.Fields, index[b])
				}
				groups[key] = g
			}
			g.Count++
			if targeted {
				g.Targeted++
			}
			// The example: the first update, or the first targeted one.
			if g.Count == 1 || (targeted && g.Targeted == 1) {
				g.Update = what
				var w verdicts
				g.Old, g.New, w = minimize(before, after, version, body, oldBody, newBody, fields, conds, cls, raw)
				g.Errors = errorLines(w.after.Errors)
				if cls == NewAcceptance {
					g.Errors = errorLines(w.before.Errors)
				}
			}
		}
		return nil
	}
	tg := newTargeter(before, version, conds, words)
	for fi, f := range fields {
		us, err := tg.updates(fi, f)
		if err != nil {
			return rep, err
		}
		for _, u := range us {
			if err := run(fi, u.old, u.new, u.what, true); err != nil {
				return rep, err
			}
		}
	}
	if !o.TargetedOnly {
		d := newDrawer(before, version, fields, conds, o.Seed, words)
		// o.Updates judged ones, drawing up to three times as many.
		for i, judged := 0, 0; judged < o.Updates && i < 3*o.Updates; i++ {
			_, oldBody, newBody, ok, err := d.next(i)
			if err != nil {
				return rep, err
			}
			if !ok {
				// No stored object looks like it: its verdicts say
				// nothing about a real update.
				continue
			}
			judged++
			if err := run(i%len(fields), oldBody, newBody, "", false); err != nil {
				return rep, err
			}
		}
	}
	for _, k := range rewordedOrder {
		rep.Reworded = append(rep.Reworded, *reworded[k])
	}
	sort.Strings(order)
	for _, k := range order {
		rep.Differences = append(rep.Differences, *groups[k])
	}
	return rep, nil
}

// drawer draws the updates of one CRD version: round robin over the
// fields, an old object the CRD accepts on creation (the field planted in
// it 7 times in 10; for a conditional field, half of the time one on
// which the condition holds), and a change of the field: removed,
// replaced, changed inside, or one to three random changes anywhere.
type drawer struct {
	c       *crd
	version string
	fields  []Field
	conds   *conditions
	body    map[string]any
	r       *rand.Rand
	gen     *preflighttest.Generator
	u       updater
}

func newDrawer(c *crd, version string, fields []Field, conds *conditions, seed uint64, words []string) *drawer {
	body := bodySchema(c.schemas[version])
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	gen := preflighttest.New(wrap(body), seed)
	gen.Invalid = 5
	gen.Words = words
	return &drawer{c: c, version: version, fields: fields, conds: conds, body: body, r: r, gen: gen, u: updater{r: r, seed: seed, words: words}}
}

// next draws update i: the field it is about, the old and the new object
// below metadata, and whether the old one is an object the original CRD
// accepts on creation (one that could be stored).
func (d *drawer) next(i int) (Field, map[string]any, map[string]any, bool, error) {
	f := d.fields[i%len(d.fields)]
	plant := d.r.IntN(10) < 7
	oldBody, ok, err := stored(d.c, d.version, d.gen, &d.u, d.body, f.Path, plant)
	if err != nil {
		return f, nil, nil, false, err
	}
	// A conditional field: half of its updates start from an object on
	// which the condition holds (up to 40 draws), so that both sides of
	// it are compared.
	if f.When != "" && d.r.IntN(2) == 0 {
		for range 40 {
			if d.conds.held(oldBody, oldBody)[f.When] {
				break
			}
			if oldBody, ok, err = stored(d.c, d.version, d.gen, &d.u, d.body, f.Path, plant); err != nil {
				return f, nil, nil, false, err
			}
		}
	}
	newBody := deepCopy(oldBody).(map[string]any)
	switch d.r.IntN(4) {
	case 0:
		d.u.remove(d.body, newBody, f.Path)
	case 1:
		d.u.replace(d.body, newBody, f.Path)
	case 2:
		d.u.mutateWithin(d.body, newBody, f.Path)
	default:
		m, _ := d.gen.Mutate(newBody)
		newBody, _ = m.(map[string]any)
	}
	return f, oldBody, newBody, ok, nil
}

// Updates draws n random updates of fields of one version of a CRD (a
// file as the crd generator writes it) as Run draws them, and calls fn
// with the old and the new object below metadata (spec, status, …) of
// each. For tests that hold another validator to the same updates.
func Updates(crdFile []byte, version string, fields []Field, n int, seed uint64, fn func(oldBody, newBody map[string]any) error) error {
	if seed == 0 {
		seed = 1
	}
	cs, err := loadCRDs(map[string][]byte{"crd.yaml": crdFile}, nil)
	if err != nil {
		return err
	}
	if len(cs) != 1 {
		return fmt.Errorf("not one CRD")
	}
	var c *crd
	for _, x := range cs {
		c = x
	}
	if c.schemas[version] == nil {
		return fmt.Errorf("no version %s", version)
	}
	if len(fields) == 0 {
		return fmt.Errorf("no fields")
	}
	conds, err := newConditions(c, version, fields)
	if err != nil {
		return err
	}
	d := newDrawer(c, version, fields, conds, seed, literals(c.schemas[version]))
	for i := range n {
		_, o, nw, _, err := d.next(i)
		if err != nil {
			return err
		}
		if err := fn(o, nw); err != nil {
			return err
		}
	}
	return nil
}

// stored draws an old object: one the original CRD accepts on creation,
// as every stored object once was (up to 20 draws), with the field planted
// when plant is set; ok is false when none of the draws is accepted.
func stored(before *crd, version string, gen *preflighttest.Generator, u *updater, body map[string]any, path []string, plant bool) (out map[string]any, ok bool, err error) {
	for range 20 {
		out, _ = gen.Spec().(map[string]any)
		if out == nil {
			out = map[string]any{}
		}
		if plant {
			u.plant(body, out, path)
		}
		res, err := before.checker.Create(before.object(version, out))
		if err != nil {
			return nil, false, err
		}
		if res.Allowed() {
			return out, true, nil
		}
	}
	return out, false, nil
}

// verdicts are both sides' results on one update.
type verdicts struct {
	before, after preflight.Result
}

func judge(before, after *crd, version string, oldBody, newBody map[string]any) (verdicts, error) {
	var v verdicts
	var err error
	obj, old := before.object(version, newBody), before.object(version, oldBody)
	if v.before, err = before.checker.Update(obj, old); err != nil {
		return v, err
	}
	if v.after, err = after.checker.Update(obj, old); err != nil {
		return v, err
	}
	return v, nil
}

func (c *crd) object(version string, body map[string]any) map[string]any {
	meta := map[string]any{"name": "x"}
	if c.namespaced {
		meta["namespace"] = "default"
	}
	obj := map[string]any{"apiVersion": c.group + "/" + version, "kind": c.kind, "metadata": meta}
	for k, v := range deepCopy(body).(map[string]any) {
		obj[k] = v
	}
	return obj
}

// classify names the class of a differing verdict, the field it is about,
// and the indexes of the fields it is attributed to (see
// Difference.Fields; none: the field the update was about); "" when the
// verdicts agree.
func classify(v verdicts, body, oldBody, newBody map[string]any, fields []Field, conds *conditions) (Class, string, []int) {
	switch {
	case v.before.Allowed() == v.after.Allowed():
		return "", "", nil
	case !v.before.Allowed():
		return NewAcceptance, errorField(v.before.Errors), nil
	}
	// The migrated side refuses: a closed hole when every error names a
	// migrated field (or a place inside it) that the update changes.
	var closed string
	var holes []int
	held := conds.held(oldBody, newBody)
	for _, e := range v.after.Errors {
		p := StripIndexes(e.Field)
		ok := false
		for i, f := range fields {
			fp := pathString(f.Path)
			fs := StripIndexes(fp)
			if (p == fs || strings.HasPrefix(p, fs+".")) && changed(body, oldBody, newBody, f.Path) && (f.When == "" || held[f.When]) {
				ok, closed = true, fp
				if !slices.Contains(holes, i) {
					holes = append(holes, i)
				}
				break
			}
		}
		if !ok {
			return NewRefusal, errorField(v.after.Errors), refusing(v.after.Errors, fields)
		}
	}
	slices.Sort(holes)
	return ClosesHole, closed, holes
}

// refusing returns the indexes of the fields at or above the paths errs
// name.
func refusing(errs field.ErrorList, fields []Field) []int {
	var out []int
	for i, f := range fields {
		fs := StripIndexes(pathString(f.Path))
		for _, e := range errs {
			if p := StripIndexes(e.Field); p == fs || strings.HasPrefix(p, fs+".") {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

func errorField(errs field.ErrorList) string {
	if len(errs) == 0 {
		return ""
	}
	return StripIndexes(errs[0].Field)
}

// errorShapes are the distinct field paths and types of errs (`spec:
// Invalid value`), sorted: what a client reading the errors acts on, the
// messages aside.
func errorShapes(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		f := e.Field
		if f == "" || f == "<nil>" {
			f = "<root>"
		}
		s := f + ": " + e.Type.String()
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func errorLines(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// StripIndexes turns the field paths of errors, spec.l[2].x and
// spec.m[k], into spec.l.x and spec.m.
func StripIndexes(p string) string {
	var b strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pathString renders a schema path with [] and {} dropped, as field paths
// read once their indexes are stripped.
func pathString(path []string) string {
	var parts []string
	for _, s := range path {
		if s != "[]" && s != "{}" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ".")
}

// conditions tells which conditions of the fields hold on an update: the
// API server's validator runs them as rules `!(<when>)` on the root of the
// migrated CRD (with no other rule), each refused where its condition
// holds (or fails).
type conditions struct {
	crd     *crd
	version string
	// message of each condition's rule.
	message map[string]string
}

func newConditions(after *crd, version string, fields []Field) (*conditions, error) {
	c := &conditions{crd: after, version: version, message: map[string]string{}}
	var rules []any
	for _, f := range fields {
		if f.When == "" || c.message[f.When] != "" {
			continue
		}
		msg := fmt.Sprintf("immutable-gen-proof-condition-%d", len(c.message))
		c.message[f.When] = msg
		rules = append(rules, map[string]any{"rule": "!(" + f.When + ")", "message": msg})
	}
	if len(rules) == 0 {
		return nil, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(after.raw, &obj); err != nil {
		return nil, err
	}
	spec, _ := obj["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if vm["name"] != version {
			continue
		}
		s, _ := vm["schema"].(map[string]any)
		root, _ := s["openAPIV3Schema"].(map[string]any)
		if root == nil {
			return nil, fmt.Errorf("no schema")
		}
		// The conditions alone: no other rule may refuse the update.
		stripRules(root)
		root[extension.Validations] = rules
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	ch, err := preflight.NewChecker([]preflight.CRD{{Source: after.name + " (conditions)", Raw: raw}})
	if err != nil {
		return nil, fmt.Errorf("the conditions: %w", err)
	}
	x := *after
	x.checker = ch
	c.crd = &x
	return c, nil
}

// held returns the conditions that hold on the update (nil c: none).
func (c *conditions) held(oldBody, newBody map[string]any) map[string]bool {
	if c == nil {
		return nil
	}
	res, err := c.crd.checker.Update(c.crd.object(c.version, newBody), c.crd.object(c.version, oldBody))
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, e := range res.Errors {
		for when, msg := range c.message {
			if strings.Contains(e.Error(), msg) {
				out[when] = true
			}
		}
	}
	return out
}

// stripRules removes every x-kubernetes-validations below s.
func stripRules(s any) {
	switch x := s.(type) {
	case map[string]any:
		delete(x, extension.Validations)
		for _, v := range x {
			stripRules(v)
		}
	case []any:
		for _, v := range x {
			stripRules(v)
		}
	}
}

// bodySchema is the schema of the object without apiVersion, kind and
// metadata.
func bodySchema(root map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range root {
		out[k] = v
	}
	props := map[string]any{}
	rp, _ := root["properties"].(map[string]any)
	for k, v := range rp {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			props[k] = v
		}
	}
	out["properties"] = props
	return out
}

// wrap makes s the spec of a schema, for preflighttest, which draws specs.
func wrap(s map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"spec": s}}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// literals returns the string literals of the CEL rules of the schemas,
// sorted, each once.
func literals(schemas ...map[string]any) []string {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if rules, ok := x[extension.Validations].([]any); ok {
				for _, r := range rules {
					rm, _ := r.(map[string]any)
					rule, _ := rm["rule"].(string)
					tree, errs := p.Parse(common.NewTextSource(rule))
					if errs != nil && len(errs.GetErrors()) > 0 {
						continue
					}
					ast.PostOrderVisit(tree.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
						if e.Kind() == ast.LiteralKind {
							if str, ok := e.AsLiteral().(types.String); ok {
								seen[string(str)] = true
							}
						}
					}))
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	for _, s := range schemas {
		walk(s)
	}
	return slices.Sorted(maps.Keys(seen))
}
