package migrate

import (
	"fmt"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/celform"
	"github.com/immutable-gen/immutable-gen/migrate/celshape"
	"github.com/immutable-gen/immutable-gen/runtime/form"
)

// A claim is one recognised conjunct of a rule, about one decl.
type claim struct {
	site   *site
	atom   celshape.Atom
	target *decl
	// places are the target's schema nodes the rule reaches.
	places []place
	// reaches are the places of the other uses of a shared type that the
	// marker reaches too, each fixed already (shared.go): proved with
	// the rest, and not deciding the form.
	reaches []place
	// when is the condition of a conditional rule, over the whole
	// objects (+immutable:when), or "".
	when string
}

// A decision is the marker one decl gets.
type decision struct {
	target *decl
	// form is "" (+immutable), "once", "keys", or a set of +k8s:update
	// constraints ("NoModify", "NoSet,NoModify").
	form string
	// when is the +immutable:when to add, if any.
	when string
	// message is the +immutable:message to add, if any.
	message string
	// ignoreOrder is set when the form compares the value with CEL's ==
	// and a list map is at or under one of its places: CEL compares list
	// maps by key, order ignored, and +immutable:ignoreOrder says the
	// same (docs/semantics.md, "immutable-gen migrate").
	ignoreOrder bool
	// add is false when the decl already has the form: the rules go, no
	// marker is added.
	add bool
	// keyFields are the key fields of a list map that =keys needs
	// immutable (semantics 2.2 rule 4).
	keyFields []*decl
	claims    []claim
	places    []place
	// reaches are the places of other uses of a shared type the marker
	// reaches, fixed already: proved, and not deciding the form.
	reaches []place
}

// markerForm is how a decision spells the table's row k: its marker's
// value ("" for +immutable, "once", "keys"), or validation-gen's
// +k8s:update constraints ("NoModify", "NoSet,NoModify").
func markerForm(k form.Kind) string {
	if k.Marker != "" {
		_, v, _ := strings.Cut(k.Marker, "=")
		return v
	}
	return strings.TrimPrefix(k.Tags[0], "+k8s:update=")
}

// markers are the marker lines of d's form.
func (d *decision) markers() []string {
	switch d.form {
	case "":
		return []string{"+immutable"}
	case "once", "keys":
		return []string{"+immutable=" + d.form}
	}
	var out []string
	for _, c := range strings.Split(d.form, ",") {
		out = append(out, "+k8s:update="+c)
	}
	return out
}

// marker is d's form as one line of text.
func (d *decision) marker() string { return strings.Join(d.markers(), " ") }

// validatorsFile is the file the typed validators generator writes in
// each package (validators.FileName).
const validatorsFile = "zz_generated.immutable.go"

// planner decides, for the sites of a scan and where they land, which
// rules become which markers.
type planner struct {
	sc     *scanner
	probes map[*site][]place
	// k8sImmutable: "once" to turn +k8s:immutable into +immutable=once.
	k8sImmutable string

	shapes map[*site]celshape.Shape
	left   map[*site]string
	// other are the rules that are no immutability rules.
	other map[*site]bool
	// when is the condition of each conditional rule, rebased on the
	// objects' root.
	when map[*site]string
	// uses counts, per named type, the struct fields of the scanned
	// packages whose type is (a pointer, list or map of) it.
	uses map[*types.TypeName]int
	// usePlaces are the places of every field of a shared type, and
	// fixed says whether the CRDs as they are fix a place whole
	// (shared.go).
	usePlaces map[*types.Var][]place
	fixed     func(place) bool
}

// plan returns the decisions, and the reason each rule it does not
// migrate stays as written.
func (p *planner) plan() []*decision {
	for _, s := range p.sc.sites {
		if _, done := p.shapes[s]; done || s.k8sImmutable || p.other[s] || p.left[s] != "" {
			continue
		}
		if reason := p.shape(s); reason != "" {
			p.left[s] = reason
		}
	}
	for {
		claims := map[*decl][]claim{}
		var order []*decl
		failed := false
		for _, s := range p.sc.sites {
			if s.k8sImmutable || p.left[s] != "" || p.other[s] {
				continue
			}
			for _, a := range p.shapes[s].Atoms {
				c, reason := p.resolve(s, a)
				if reason != "" {
					p.left[s] = reason
					failed = true
					break
				}
				if claims[c.target] == nil {
					order = append(order, c.target)
				}
				claims[c.target] = append(claims[c.target], c)
			}
		}
		if failed {
			continue
		}
		var out []*decision
		for _, t := range order {
			d, reason := p.decide(t, claims[t])
			if reason != "" {
				for _, c := range claims[t] {
					if p.left[c.site] == "" {
						p.left[c.site] = reason
						failed = true
					}
				}
				continue
			}
			out = append(out, d)
		}
		if failed {
			continue
		}
		return append(out, p.k8sDecisions(claims)...)
	}
}

// init prepares the planner's state; plan may then be called again after
// more rules were left.
func (p *planner) init() {
	p.shapes = map[*site]celshape.Shape{}
	p.left = map[*site]string{}
	p.other = map[*site]bool{}
	p.when = map[*site]string{}
	p.countUses()
}

// shape parses a site's rule; it returns why the rule stays, or "".
func (p *planner) shape(s *site) string {
	r := s.rule
	sh, err := celshape.Parse(r.Rule)
	switch {
	case err != nil:
		// Not CEL: the API server refuses it, and it is no shape of
		// immutability.
		p.other[s] = true
		return ""
	case sh.Needs != "":
		return sh.Needs
	case len(sh.Atoms) == 0:
		p.other[s] = true
		return ""
	case r.MessageExpression != "":
		return "has a messageExpression, which +immutable:message cannot carry"
	case r.OptionalOldSelf != nil && *r.OptionalOldSelf:
		return "optionalOldSelf: the rule runs on creation too"
	case len(sh.Rest) > 0 && !sh.RestUsesOldSelf:
		return "mixes immutability with a check that does not use oldSelf: alone, that check would also run on creation, so splitting it off is not exact"
	case len(p.probes[s]) == 0:
		return "reaches no CRD of paths= (the type is not used by a kind)"
	}
	if sh.When != "" {
		if reason := p.rebase(s, sh); reason != "" {
			return reason
		}
	}
	p.shapes[s] = sh
	s.rest = sh.Rest
	return ""
}

// rebase records the condition of a conditional rule over the whole
// objects, as +immutable:when reads it, or says why it cannot.
func (p *planner) rebase(s *site, sh celshape.Shape) string {
	when := sh.When
	// A rule on an optional node runs only where the node is in both
	// objects; its condition reads the node, and the marker's form (its
	// presence) would be checked where the condition cannot be evaluated.
	for _, a := range sh.Atoms {
		if len(a.Path) > 0 {
			continue
		}
		for _, at := range p.probes[s] {
			if len(at.path) > 0 && !at.required {
				return fmt.Sprintf("conditional, on %s itself, which is optional: the rule runs only where both objects have it, and its condition reads it; where one has none, the marker would check its presence with the condition failing: not exact", pathString(at.path))
			}
		}
	}
	var path []string
	for i, at := range p.probes[s] {
		if i > 0 && !slices.Equal(at.path, path) {
			return fmt.Sprintf("conditional, and its type is reached at %s and at %s: +immutable:when's condition sees the whole objects, and cannot be one condition for both", pathString(path), pathString(at.path))
		}
		path = at.path
	}
	if slices.Contains(path, "[]") || slices.Contains(path, "{}") {
		return fmt.Sprintf("conditional, on %s, inside a list or map: +immutable:when's condition sees the whole objects and cannot say which item or value it is about (IG026)", pathString(path))
	}
	w, err := celshape.Rebase(when, path)
	if err != nil {
		return fmt.Sprintf("conditional, and its condition cannot be rewritten over the whole objects: %v", err)
	}
	p.when[s] = w
	return ""
}

// resolve finds the decl an atom of site s is about, and the places of it
// the rule reaches.
func (p *planner) resolve(s *site, a celshape.Atom) (claim, string) {
	c := claim{site: s, atom: a, when: p.when[s]}
	if len(a.Path) == 0 {
		c.target, c.places = s.decl, p.probes[s]
		return c, ""
	}
	var t types.Type
	if s.decl.field != nil {
		t = s.decl.field.Type()
		if n := namedOf(t); n != nil && p.uses[n.Obj()] > 1 {
			at, found, reach := p.unfixedUse(n.Obj(), s.decl.field)
			if found {
				return c, fmt.Sprintf("names %s of %s, whose type %s is used by %d fields: a marker on its field would reach all of them, and at %s nothing fixes it already", strings.Join(a.Path, "."), s.decl, n.Obj().Name(), p.uses[n.Obj()], at)
			}
			// The marker goes on the field a.Path names, below each use.
			for _, pl := range reach {
				at, ok := pl, true
				for _, name := range a.Path {
					if at, ok = at.child(name); !ok {
						break
					}
				}
				if ok {
					c.reaches = append(c.reaches, at)
				}
			}
		}
	} else {
		t = s.decl.typ.Type()
	}
	var v *types.Var
	for _, name := range a.Path {
		v = fieldByJSON(t, name)
		if v == nil {
			return c, fmt.Sprintf("names %s, which is not a field of the Go type", strings.Join(a.Path, "."))
		}
		t = v.Type()
	}
	c.target = p.sc.fields[v]
	if c.target == nil {
		return c, fmt.Sprintf("names %s, declared outside paths= (%s)", strings.Join(a.Path, "."), v.Pkg().Path())
	}
	// Unguarded steps (self.a.b) fail when a value is absent: exact only
	// where every step is required. has() guards the last step of the
	// presence shapes.
	guardedLast := a.Kind == celshape.SamePresence || a.Kind == celshape.NoRemoval || a.Kind == celshape.NoAddition || a.Kind == celshape.NoModify
	for _, at := range p.probes[s] {
		cur := at
		for i, name := range a.Path {
			next, ok := cur.child(name)
			if !ok {
				return c, fmt.Sprintf("names %s, which the schema at %s does not have", name, cur)
			}
			if !next.required && !(guardedLast && i == len(a.Path)-1) && !slices.Contains(a.Guarded, i+1) {
				such := "every such update"
				if c.when != "" {
					such += " on which its condition holds"
				}
				return c, fmt.Sprintf("reads %s without has(), and %s is optional: the rule fails (\"no such key\") where it is absent and refuses %s; a marker would allow them, so it is not exact", pathString(next.path), name, such)
			}
			cur = next
		}
		c.places = append(c.places, cur)
	}
	return c, ""
}

// decide picks the marker for decl t from its claims, or says why none
// means the same.
func (p *planner) decide(t *decl, claims []claim) (*decision, string) {
	has := map[celshape.Kind]bool{}
	var keys [][]string
	for _, c := range claims {
		has[c.atom.Kind] = true
		switch c.atom.Kind {
		case celshape.SameKeys, celshape.KeysInOrder, celshape.NoKeyRemoved, celshape.NoKeyAdded:
			keys = append(keys, c.atom.Keys)
		}
	}
	d := &decision{target: t, claims: claims, add: true, when: claims[0].when}
	for _, c := range claims {
		d.places = appendPlaces(d.places, c.places...)
		d.reaches = appendPlaces(d.reaches, c.reaches...)
		if c.when != d.when {
			return nil, "the rules about it hold under different conditions (or one under a condition and one always): a marker takes one +immutable:when"
		}
	}
	if d.when != "" {
		for _, at := range d.places {
			if slices.Contains(at.path, "[]") || slices.Contains(at.path, "{}") {
				return nil, fmt.Sprintf("conditional, about %s inside a list or map: +immutable:when stands only on nodes reached from the root through properties (IG026)", pathString(at.path))
			}
		}
	}
	// What the rules state together, as CEL evaluates them: the one CEL
	// form's reading (celform.FormOf), which Recognize and lint share. An
	// unguarded child comparison (self.x == oldSelf.x) fails where x is
	// absent on either side: it keeps x present too.
	kinds := maps.Clone(has)
	for _, c := range claims {
		if c.atom.Kind == celshape.Equal && len(c.atom.Path) > 0 && len(c.atom.Guarded) == 0 {
			kinds[celshape.SamePresence] = true
		}
	}
	f, reason := celform.FormOf(kinds, has[celshape.KeysInOrder], slices.ContainsFunc(d.places, holdsListMap))
	switch {
	case reason != "" && has[celshape.KeysInOrder]:
		return nil, "compares the keys in order (a CEL list made by map() is ordered); +immutable=keys compares them as a set, so a reorder would become allowed: not exact"
	case reason != "" && has[celshape.NoKeyRemoved] && !has[celshape.NoKeyAdded]:
		return nil, "keys may be added, not removed: no marker form means that (validation-gen's +k8s:update=NoRemoveItem alone has none: docs/semantics.md); +immutable=keys would refuse added keys too, a new refusal. The hand-written rule is the way to say it"
	case reason != "" && has[celshape.NoKeyAdded] && !has[celshape.NoKeyRemoved]:
		return nil, "keys may be removed, not added: no marker form means that (validation-gen's +k8s:update=NoAddItem alone has none: docs/semantics.md); +immutable=keys would refuse removed keys too, a new refusal. The hand-written rule is the way to say it"
	case reason != "" && has[celshape.SameSize]:
		return nil, "compares sizes only: no marker means that"
	case reason != "":
		return nil, reason
	case f.Presence != 0 && t.typ != nil:
		// A marker on a type stands for its fields' markers; a presence
		// rule is its parent's, about one field.
		return nil, "presence rules about a type"
	case f.Change == form.NoChange && f.Presence == 0 && has[celshape.Equal]:
		// `self == oldSelf` alone on an optional field fixes it only
		// while present (noModify); +immutable closes the hole of its
		// removal and re-addition, which migrate's proof shows.
		f.Presence = form.NoSet | form.NoUnset
	case f.Change == form.NoKeyChange && f.Presence == form.NoUnset:
		return nil, "keys fixed, and the field may be set later: no marker means that"
	case f.Change == form.NoKeyChange:
		if reason := p.keys(d, keys); reason != "" {
			return nil, reason
		}
		// The keys form on a field keeps its presence too.
		f.Presence = form.NoSet | form.NoUnset
	case f.Change == form.AnyChange && f.Presence == 0:
		return nil, "a presence rule alone, of no shape a form has"
	}
	k, ok := f.Kind()
	if !ok {
		return nil, fmt.Sprintf("presence %s and change %s: no marker means that", f.Presence, f.Change)
	}
	d.form = markerForm(k)
	if strings.Contains(d.form, "NoModify") && t.field != nil && compound(t.field.Type()) {
		return nil, "fixed while present (+k8s:update=" + d.form + ") on a list or map: validation-gen refuses NoModify there, and no +immutable form means fixed while present but free to be cleared (+immutable would refuse clearing, a new refusal)"
	}
	if len(t.forms) > 0 {
		if slices.Contains(t.forms, d.form) {
			d.add = false
		} else {
			return nil, fmt.Sprintf("%s already has +immutable%s", t, formSuffix(t.forms[0]))
		}
	}
	if d.add && !t.message {
		d.message = message(claims)
	}
	// CEL's == ignores the order of list maps (docs/semantics.md, "One
	// meaning per form"), unless the rule compares the keys in order too
	// (self == oldSelf && self.map(x, x.k) == oldSelf.map(x, x.k), the
	// generator's own ordered form), which +immutable is.
	d.ignoreOrder = f.IgnoreOrder && d.add
	return d, ""
}

// holdsListMap reports whether a +listType=map list is at or under p's
// node (through properties, list items and map values).
func holdsListMap(p place) bool {
	found := false
	walkSchema(p, func(q place) {
		if listMapKeys(q.node) != nil {
			found = true
		}
	})
	return found
}

func formSuffix(form string) string {
	if form == "" {
		return ""
	}
	return "=" + form
}

// message is the message of the comparison rule among claims, else the
// first message.
func message(claims []claim) string {
	for _, c := range claims {
		if (c.atom.Kind == celshape.Equal || c.atom.Kind == celshape.NoModify || c.atom.Kind == celshape.SameKeys) && c.site.rule.Message != "" {
			return c.site.rule.Message
		}
	}
	for _, c := range claims {
		if c.site.rule.Message != "" {
			return c.site.rule.Message
		}
	}
	return ""
}

// keys checks that every place of d has the keys the rules compare: a map
// (rules that compare map keys) or a list map with exactly those keys. On
// a list map, =keys needs the key fields immutable: they are added when
// the item type serves this list alone.
func (p *planner) keys(d *decision, keys [][]string) string {
	var want []string
	for i, k := range keys {
		if i > 0 && !slices.Equal(k, want) {
			return "the rules compare different keys"
		}
		want = k
	}
	for _, at := range d.places {
		lm := listMapKeys(at.node)
		switch {
		case want == nil && isMap(at.node):
		case want == nil:
			return fmt.Sprintf("compares whole items of %s, not keys", at)
		case lm == nil:
			return fmt.Sprintf("%s is not a +listType=map list", at)
		case !slices.Equal(lm, want):
			return fmt.Sprintf("compares %s, but the list map %s is keyed by %s", strings.Join(want, ","), at, strings.Join(lm, ","))
		}
	}
	if want == nil {
		return ""
	}
	var item types.Type
	if d.target.field != nil {
		item = d.target.field.Type()
	} else {
		item = d.target.typ.Type()
	}
	sl, ok := deref(item).Underlying().(*types.Slice)
	if !ok {
		return "the Go type is not a slice"
	}
	n := namedOf(sl.Elem())
	if n == nil || p.uses[n.Obj()] != 1 {
		return "+immutable=keys needs the list map's key fields immutable, and the item type is used elsewhere (add +immutable on its key fields by hand)"
	}
	for _, k := range want {
		v := fieldByJSON(n, k)
		kd := p.sc.fields[v]
		if v == nil || kd == nil {
			return fmt.Sprintf("the key field %s is not declared in paths=", k)
		}
		if len(kd.forms) > 0 {
			continue
		}
		d.keyFields = append(d.keyFields, kd)
	}
	return ""
}

// k8sDecisions turns +k8s:immutable into +immutable when asked, on
// fields with no other immutability.
func (p *planner) k8sDecisions(claims map[*decl][]claim) []*decision {
	var out []*decision
	for _, s := range p.sc.sites {
		if !s.k8sImmutable {
			continue
		}
		switch {
		case p.left[s] != "" && !strings.HasPrefix(p.left[s], keptK8s):
			// Left by the differential.
		case p.k8sImmutable != K8sImmutableMarker:
			p.left[s] = keptK8s
		case len(claims[s.decl]) > 0:
			p.left[s] = "the field also has hand-written rules"
		case len(s.decl.forms) > 0:
			p.left[s] = fmt.Sprintf("%s already has +immutable%s", s.decl, formSuffix(s.decl.forms[0]))
		default:
			out = append(out, &decision{target: s.decl, form: "", add: true, claims: []claim{{site: s, target: s.decl, places: p.probes[s]}}, places: p.probes[s]})
		}
	}
	return out
}

// keptK8s is the reason +k8s:immutable stays by default.
const keptK8s = "kept: +k8s:immutable stays unless --k8s-immutable=immutable"

// countUses counts the struct fields of the scanned packages by the named
// type they hold.
func (p *planner) countUses() {
	p.uses = map[*types.TypeName]int{}
	for v := range p.sc.fields {
		if n := namedOf(v.Type()); n != nil {
			p.uses[n.Obj()]++
		}
	}
}

// namedOf strips pointers, slices, arrays and maps off t and returns the
// named type below, or nil.
func namedOf(t types.Type) *types.Named {
	for {
		switch x := t.(type) {
		case *types.Pointer:
			t = x.Elem()
		case *types.Slice:
			t = x.Elem()
		case *types.Array:
			t = x.Elem()
		case *types.Map:
			t = x.Elem()
		case *types.Alias:
			t = types.Unalias(x)
		case *types.Named:
			return x
		default:
			return nil
		}
	}
}

// compound reports whether t is a list or a map as the markers see a
// field's type (through pointers; []byte is a string).
func compound(t types.Type) bool {
	switch u := deref(t).Underlying().(type) {
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return !ok || b.Kind() != types.Byte
	case *types.Map:
		return true
	}
	return false
}

func deref(t types.Type) types.Type {
	for {
		p, ok := types.Unalias(t).(*types.Pointer)
		if !ok {
			return types.Unalias(t)
		}
		t = p.Elem()
	}
}

// fieldByJSON finds the struct field of t (through pointers and inline
// embedded structs) with the JSON name name.
func fieldByJSON(t types.Type, name string) *types.Var {
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		n, inline := jsonName(st.Tag(i), f)
		if inline {
			if v := fieldByJSON(f.Type(), name); v != nil {
				return v
			}
			continue
		}
		if n == name {
			return f
		}
	}
	return nil
}

func appendPlaces(list []place, more ...place) []place {
	for _, m := range more {
		if !slices.ContainsFunc(list, func(p place) bool {
			return p.crd == m.crd && p.version == m.version && slices.Equal(p.path, m.path)
		}) {
			list = append(list, m)
		}
	}
	return list
}
