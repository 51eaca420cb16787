package proof

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// targetSeed seeds the values of the targeted updates. It is fixed, not
// Options.Seed: the targeted updates, which decide the verdict, are the
// same on every run.
const targetSeed = 0x7a46e7ed

// Limits that keep the targeted updates of one field affordable on large
// schemas (a pod template): the changes inside its value, the nodes of the
// value they are made at, the new properties set on one object, the values
// tried for a scalar, and the properties changed beside the field on each
// level.
const (
	maxChanges     = 160
	maxSites       = 48
	maxNewProps    = 6
	maxScalarPicks = 4
	maxBeside      = 12
	maxDepth       = 7
)

// A targeted update is one update of a field derived from the schema: the
// old and the new object below metadata, and what it does.
type targeted struct {
	old, new map[string]any
	what     string
}

// targeter derives the targeted updates of one CRD version's fields.
type targeter struct {
	c       *crd
	version string
	body    map[string]any
	conds   *conditions
	words   []string
	gen     *preflighttest.Generator
	seq     uint64
}

func newTargeter(c *crd, version string, conds *conditions, words []string) *targeter {
	return &targeter{c: c, version: version, body: bodySchema(c.schemas[version]), conds: conds, words: words}
}

// updates returns the targeted updates of field f, each also reversed
// (new to old) where the new object is one the original CRD accepts on
// creation:
//   - the field removed, set later, replaced by other values;
//   - inside its value: each list and list map reordered, appended to,
//     truncated, its first item removed; each set reordered and added to;
//     each map given a key and losing one; each optional property set and
//     removed; each scalar set to its bounds (zero, minimum, maximum,
//     lengths, the enum, the rules' literals);
//   - each optional ancestor (and the item or map value holding the
//     field) removed, added back with the field at other values, replaced;
//   - the properties beside it and beside its ancestors replaced and
//     removed (those its condition reads first, and those also with the
//     field replaced or removed in the same update);
//   - for a conditional field, all of this from an old object on which the
//     condition holds and from one on which it does not.
func (t *targeter) updates(fi int, f Field) ([]targeted, error) {
	t.gen = preflighttest.New(wrap(t.body), targetSeed+uint64(fi))
	t.gen.Invalid = 0
	t.gen.Words = t.words
	t.seq = uint64(fi) << 32
	bases, err := t.bases(f)
	if err != nil {
		return nil, err
	}
	var out []targeted
	seen := map[string]bool{}
	add := func(old, new map[string]any, what string) {
		if old == nil || new == nil {
			return
		}
		j, _ := json.Marshal([]any{old, new})
		if seen[string(j)] {
			return
		}
		seen[string(j)] = true
		out = append(out, targeted{old: old, new: new, what: what})
	}
	for _, b := range bases {
		concrete := b.at
		fs := schemaAt(t.body, f.Path)
		v, _ := getAt(b.obj, concrete)
		p := pathString(f.Path)
		// The field itself: removed, set later, replaced.
		without := deepCopy(b.obj).(map[string]any)
		if removable(t.body, f.Path) && deleteConcrete(without, concrete) {
			add(b.obj, without, "remove "+p)
			add(without, b.obj, "set "+p+" later")
			add(without, t.with(b.obj, concrete, t.another(fs, v)), "set "+p+" later, to other values")
		}
		add(b.obj, t.with(b.obj, concrete, t.another(fs, v)), "replace "+p)
		// Changes inside its value.
		n := 0
		for _, ch := range t.changes(fs, v) {
			if n++; n > maxChanges {
				break
			}
			add(b.obj, t.with(b.obj, concrete, ch.val), ch.what+" in "+p)
		}
		// Its ancestors.
		for k := len(f.Path) - 1; k >= 1; k-- {
			q, cq := f.Path[:k], concreteOf(f.Path[:k], concrete)
			if !removable(t.body, q) {
				continue
			}
			qs := pathString(q)
			gone := deepCopy(b.obj).(map[string]any)
			if !deleteConcrete(gone, cq) {
				continue
			}
			add(b.obj, gone, "remove the ancestor "+qs)
			add(gone, b.obj, "add the ancestor "+qs)
			add(gone, t.with(b.obj, concrete, t.another(fs, v)), "add the ancestor "+qs+" back, the field at other values")
			add(b.obj, t.with(b.obj, cq, t.full(schemaAt(t.body, q), 0)), "replace the ancestor "+qs)
		}
		// The properties beside it and beside its ancestors, the field
		// unchanged: a rule of the migrated CRD must not reach them.
		for k := len(f.Path) - 1; k >= 0; k-- {
			if f.Path[k] == "[]" || f.Path[k] == "{}" {
				continue
			}
			ps := schemaAt(t.body, f.Path[:k])
			parent, ok := getAt(b.obj, concrete[:k])
			pm, isMap := parent.(map[string]any)
			if !ok || !isMap {
				continue
			}
			props, _ := ps["properties"].(map[string]any)
			req, _ := ps["required"].([]any)
			// Those the field's condition reads first.
			names := slices.Sorted(maps.Keys(props))
			slices.SortStableFunc(names, func(a, b string) int {
				return cmp.Compare(mentions(f.When, b), mentions(f.When, a))
			})
			n := 0
			for _, name := range names {
				if name == f.Path[k] || n >= maxBeside {
					continue
				}
				n++
				cs, _ := props[name].(map[string]any)
				at := append(slices.Clone(concrete[:k]), name)
				where := pathString(append(slices.Clone(f.Path[:k]), name))
				beside := []targeted{{new: t.with(b.obj, at, t.another(cs, pm[name])), what: "replace " + where}}
				if _, there := pm[name]; there && !slices.Contains(req, any(name)) {
					gone := deepCopy(b.obj).(map[string]any)
					deleteConcrete(gone, at)
					beside = append(beside, targeted{new: gone, what: "remove " + where})
				}
				for _, u := range beside {
					add(b.obj, u.new, u.what+", beside "+p)
					if mentions(f.When, name) == 0 || u.new == nil {
						continue
					}
					// What the condition reads changes with the field.
					add(b.obj, t.with(u.new, concrete, t.another(fs, v)), u.what+" and replace "+p)
					if removable(t.body, f.Path) {
						both := deepCopy(u.new).(map[string]any)
						if deleteConcrete(both, concrete) {
							add(b.obj, both, u.what+" and remove "+p)
						}
					}
				}
			}
		}
	}
	// Reversed, where the new object could have been stored.
	for _, u := range slices.Clone(out) {
		ok, err := t.creatable(u.new)
		if err != nil {
			return nil, err
		}
		if ok {
			add(u.new, u.old, "reversed: "+u.what)
		}
	}
	return out, nil
}

// mentions reports whether the CEL text when reads a property name
// (`.name`), as 1 or 0.
func mentions(when, name string) int {
	if strings.Contains(when, "."+name) {
		return 1
	}
	return 0
}

// A base is an old object of the targeted updates, with the field present
// at the concrete path at (property names, list indexes, map keys).
type base struct {
	obj map[string]any
	at  []any
}

// bases returns the old objects of f's updates, with the field planted at
// full values (every property set, two items in lists, two keys in maps):
// an object with every property set and the first random draw (up to 20)
// that the original CRD accepts on creation; for a conditional field, the
// first of these on which the condition holds and the first on which it
// does not (up to 60 draws). With none accepted, the last draw.
func (t *targeter) bases(f Field) ([]base, error) {
	var cands []*base
	var last *base
	try := func(obj map[string]any) error {
		if obj == nil {
			obj = map[string]any{}
		}
		b := &base{obj: obj, at: t.plant(obj, f.Path)}
		last = b
		ok, err := t.creatable(obj)
		if ok {
			cands = append(cands, b)
		}
		return err
	}
	full, _ := t.full(t.body, 0).(map[string]any)
	if err := try(full); err != nil {
		return nil, err
	}
	var held, notHeld *base
	seen := 0
	pick := func() bool {
		if f.When == "" {
			return len(cands) >= 2
		}
		for ; seen < len(cands); seen++ {
			b := cands[seen]
			if t.conds.held(b.obj, b.obj)[f.When] {
				held = cmp.Or(held, b)
			} else {
				notHeld = cmp.Or(notHeld, b)
			}
		}
		return held != nil && notHeld != nil
	}
	for i := 0; !pick() && i < 60 && (f.When != "" || i < 20); i++ {
		obj, _ := t.gen.Spec().(map[string]any)
		if err := try(obj); err != nil {
			return nil, err
		}
	}
	var out []base
	switch {
	case f.When == "" && len(cands) > 0:
		for _, b := range cands[:min(2, len(cands))] {
			out = append(out, *b)
		}
	case held != nil || notHeld != nil:
		for _, b := range []*base{held, notHeld} {
			if b != nil {
				out = append(out, *b)
			}
		}
	case last != nil:
		out = append(out, *last)
	}
	return out, nil
}

func (t *targeter) creatable(body map[string]any) (bool, error) {
	res, err := t.c.checker.Create(t.c.object(t.version, body))
	if err != nil {
		return false, err
	}
	return res.Allowed(), nil
}

// plant puts full values at path in obj where nothing is (the first item
// of lists, the first key of maps) and returns the concrete path.
func (t *targeter) plant(obj map[string]any, path []string) []any {
	var at []any
	var cur any = obj
	s := t.body
	for i, seg := range path {
		last := i == len(path)-1
		switch seg {
		case "[]":
			items, _ := s["items"].(map[string]any)
			l, _ := cur.([]any)
			if len(l) == 0 || last {
				// The set keeps the first item, planted at full values.
				l = []any{t.full(items, 0)}
				if err := setConcrete(obj, at, l); err != nil {
					return at
				}
			}
			at, cur, s = append(at, 0), l[0], items
		case "{}":
			values, _ := s["additionalProperties"].(map[string]any)
			m, _ := cur.(map[string]any)
			if m == nil {
				return at
			}
			if len(m) == 0 || last {
				m["k"] = t.full(values, 0)
			}
			k := slices.Sorted(maps.Keys(m))[0]
			if last {
				k = "k"
			}
			at, cur, s = append(at, k), m[k], values
		default:
			m, _ := cur.(map[string]any)
			if m == nil {
				return at
			}
			ps := prop(s, seg)
			x, ok := m[seg]
			if !ok || last || !isContainer(x, ps) {
				x = t.full(ps, 0)
				m[seg] = x
			}
			at, cur, s = append(at, seg), x, ps
		}
	}
	return at
}

// isContainer reports whether v has the JSON type of schema s's container
// (an object, a list), so that planting can descend into it.
func isContainer(v any, s map[string]any) bool {
	switch s["type"] {
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

// value draws a valid value of schema s with the targeted seed.
func (t *targeter) value(s map[string]any) any {
	t.seq++
	g := preflighttest.New(wrap(s), targetSeed^t.seq)
	g.Invalid = 0
	g.Words = t.words
	return g.Spec()
}

// full returns a value of s with every property set, two items in lists
// (distinct, as sets and list maps need) and two keys in maps, within the
// schema's bounds.
func (t *targeter) full(s map[string]any, depth int) any {
	if s == nil || depth > maxDepth {
		return t.value(s)
	}
	switch s["type"] {
	case "object":
		ps, _ := s["properties"].(map[string]any)
		as, _ := s["additionalProperties"].(map[string]any)
		if len(ps) == 0 && as == nil {
			return t.value(s)
		}
		out := map[string]any{}
		if s[extension.EmbeddedResource] == true {
			out["apiVersion"], out["kind"] = "v1", "Thing"
			out["metadata"] = map[string]any{"name": "full"}
		}
		for _, k := range slices.Sorted(maps.Keys(ps)) {
			cs, _ := ps[k].(map[string]any)
			out[k] = t.full(cs, depth+1)
		}
		if as != nil {
			for _, k := range []string{"k", "k2"}[:bound(s, "maxProperties", 2)] {
				out[k] = t.full(as, depth+1)
			}
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		var out []any
		for range bound(s, "maxItems", 2) {
			out = t.appendDistinct(s, out, t.full(items, depth+1))
		}
		if out == nil {
			out = []any{}
		}
		return out
	}
	return t.value(s)
}

func bound(s map[string]any, name string, n int) int {
	if m, ok := s[name].(float64); ok && int(m) < n {
		return int(m)
	}
	return n
}

// appendDistinct appends item to the list l of schema s, made distinct from
// the items there for a set or a list map (its key or value changed).
func (t *targeter) appendDistinct(s map[string]any, l []any, item any) []any {
	if t := s[extension.ListType]; t != "set" && t != "map" {
		return append(l, item)
	}
	items, _ := s["items"].(map[string]any)
	keys := listMapKeys(s)
	id := func(x any) string {
		if keys != nil {
			return keyOf(x, keys)
		}
		return canonical(items, x)
	}
	taken := map[string]bool{}
	for _, x := range l {
		taken[id(x)] = true
	}
	for i := 0; i < 8 && taken[id(item)]; i++ {
		if keys != nil {
			m, ok := item.(map[string]any)
			if !ok {
				break
			}
			k := keys[i%len(keys)]
			m[k] = other(prop(items, k), m[k], i)
		} else {
			item = other(items, item, i)
		}
	}
	if taken[id(item)] {
		return l
	}
	return append(l, item)
}

// other returns a scalar of s different from v (the i-th try).
func other(s map[string]any, v any, i int) any {
	switch x := v.(type) {
	case string:
		if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
			return enum[(slices.Index(enum, any(x))+1+i)%len(enum)]
		}
		if m, ok := s["maxLength"].(float64); ok && len(x) >= int(m) && len(x) > 0 {
			return string(rune('a'+i%26)) + x[1:]
		}
		return x + string(rune('a'+i%26))
	case int64:
		return x + 1 + int64(i)
	case float64:
		return x + 1 + float64(i)
	case bool:
		return !x
	}
	return v
}

// another returns a value of s other than cur (when s has one): full
// values, else the first change inside cur.
func (t *targeter) another(s map[string]any, cur any) any {
	if v := t.full(s, 0); cur == nil || canonical(s, v) != canonical(s, cur) {
		return v
	}
	if ch := t.changes(s, cur); len(ch) > 0 {
		return ch[0].val
	}
	return cur
}

// A change is a value of a field with one thing changed inside.
type change struct {
	what string
	val  any
}

// A site is a node of a value, with its schema and where it is.
type site struct {
	s        map[string]any
	at       []any
	optional bool
}

// changes returns the values of schema s that differ from v in one place
// each (see updates).
func (t *targeter) changes(s map[string]any, v any) []change {
	var sites []site
	var walk func(s map[string]any, v any, at []any, optional bool, depth int)
	walk = func(s map[string]any, v any, at []any, optional bool, depth int) {
		if s == nil || depth > maxDepth || len(sites) >= maxSites {
			return
		}
		sites = append(sites, site{s: s, at: at, optional: optional})
		switch x := v.(type) {
		case map[string]any:
			req, _ := s["required"].([]any)
			for _, k := range slices.Sorted(maps.Keys(x)) {
				cs := prop(s, k)
				opt := !slices.Contains(req, any(k))
				if cs == nil {
					if cs, _ = s["additionalProperties"].(map[string]any); cs == nil {
						continue
					}
					opt = false // map values come and go with their key
				}
				walk(cs, x[k], append(slices.Clip(at), k), opt, depth+1)
			}
		case []any:
			items, _ := s["items"].(map[string]any)
			if len(x) > 0 {
				walk(items, x[0], append(slices.Clip(at), 0), false, depth+1)
			}
		}
	}
	walk(s, v, nil, false, 0)
	var out []change
	for _, st := range sites {
		cur, _ := getAt(v, st.at)
		where := atString(st.at)
		edit := func(what string, nv any, remove bool) {
			w := deepCopy(v)
			if len(st.at) == 0 {
				if !remove {
					out = append(out, change{what, nv})
				}
				return
			}
			if remove {
				deleteAnyAt(&w, st.at)
			} else {
				setAnyAt(&w, st.at, nv)
			}
			out = append(out, change{what + " at " + where, w})
		}
		if st.optional {
			edit("remove", nil, true)
		}
		switch x := cur.(type) {
		case map[string]any:
			ps, _ := st.s["properties"].(map[string]any)
			n := 0
			for _, k := range slices.Sorted(maps.Keys(ps)) {
				if _, ok := x[k]; ok || n >= maxNewProps {
					continue
				}
				n++
				y := deepCopy(x).(map[string]any)
				cs, _ := ps[k].(map[string]any)
				y[k] = t.full(cs, 1)
				edit("set ."+k, y, false)
			}
			if as, ok := st.s["additionalProperties"].(map[string]any); ok {
				y := deepCopy(x).(map[string]any)
				y["added"] = t.full(as, 1)
				edit("add a key", y, false)
				if keys := slices.Sorted(maps.Keys(x)); len(keys) > 0 {
					y := deepCopy(x).(map[string]any)
					delete(y, keys[0])
					edit("remove the key "+keys[0], y, false)
				}
			}
		case []any:
			items, _ := st.s["items"].(map[string]any)
			if len(x) >= 2 {
				edit("reorder", slices.Concat(x[1:], x[:1]), false)
			}
			if grown := t.appendDistinct(st.s, deepCopy(x).([]any), t.full(items, 1)); len(grown) > len(x) {
				edit("append", grown, false)
			}
			if len(x) >= 1 {
				edit("truncate", slices.Clone(x[:len(x)-1]), false)
			}
			if len(x) >= 2 {
				edit("remove the first item", slices.Clone(x[1:]), false)
			}
		default:
			for _, nv := range t.scalars(st.s, cur) {
				j, _ := json.Marshal(nv)
				edit("set to "+string(j), nv, false)
			}
		}
	}
	return out
}

// scalars returns up to maxScalarPicks values of scalar schema s other than
// cur: the zero value, the bounds (minimum, maximum, lengths), the enum,
// the literals of the rules.
func (t *targeter) scalars(s map[string]any, cur any) []any {
	var cands []any
	switch s["type"] {
	case "string":
		if enum, ok := s["enum"].([]any); ok {
			cands = append(cands, enum...)
			break
		}
		if f, _ := s["format"].(string); f == "date-time" {
			cands = append(cands, "2026-01-01T00:00:00Z", "2026-12-31T23:59:59Z")
			break
		}
		minLen, _ := s["minLength"].(float64)
		if minLen == 0 {
			cands = append(cands, "")
		} else {
			cands = append(cands, strings.Repeat("a", int(minLen)))
		}
		if m, ok := s["maxLength"].(float64); ok && m > 0 {
			cands = append(cands, strings.Repeat("z", int(m)))
		}
		for _, w := range t.words {
			if float64(len(w)) >= minLen {
				cands = append(cands, w)
			}
		}
		cands = append(cands, other(s, fmt.Sprint(cur), 0))
	case "integer", "number":
		cands = append(cands, int64(0))
		if m, ok := s["minimum"].(float64); ok {
			cands = append(cands, int64(m))
		}
		if m, ok := s["maximum"].(float64); ok {
			cands = append(cands, int64(m))
		}
		if c, ok := number(cur); ok {
			cands = append(cands, int64(c)+1)
		} else {
			cands = append(cands, int64(1))
		}
	case "boolean":
		b, _ := cur.(bool)
		cands = append(cands, !b)
	default:
		cands = append(cands, t.value(s))
	}
	var out []any
	cj, _ := json.Marshal(cur)
	for _, c := range cands {
		j, _ := json.Marshal(c)
		if string(j) == string(cj) || slices.ContainsFunc(out, func(o any) bool { oj, _ := json.Marshal(o); return string(oj) == string(j) }) {
			continue
		}
		if out = append(out, c); len(out) == maxScalarPicks {
			break
		}
	}
	return out
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

// with returns a copy of obj with the value at the concrete path at set
// to v (what is missing on the way created).
func (t *targeter) with(obj map[string]any, at []any, v any) map[string]any {
	out := deepCopy(obj).(map[string]any)
	if err := setConcrete(out, at, deepCopy(v)); err != nil {
		return nil
	}
	return out
}

// removable reports whether the node at path can be absent while its
// parent is there: an optional property, a list item, a map value.
func removable(body map[string]any, path []string) bool {
	last := path[len(path)-1]
	if last == "[]" || last == "{}" {
		return true
	}
	parent := schemaAt(body, path[:len(path)-1])
	req, _ := parent["required"].([]any)
	return !slices.Contains(req, any(last))
}

// schemaAt returns the schema node at a schema path below s.
func schemaAt(s map[string]any, path []string) map[string]any {
	for _, seg := range path {
		switch seg {
		case "[]":
			s, _ = s["items"].(map[string]any)
		case "{}":
			s, _ = s["additionalProperties"].(map[string]any)
		default:
			s = prop(s, seg)
		}
	}
	return s
}

// concreteOf returns the concrete path of the schema path prefix q, taken
// from the concrete path at of a longer schema path.
func concreteOf(q []string, at []any) []any { return slices.Clone(at[:len(q)]) }

func atString(at []any) string {
	var b strings.Builder
	for _, s := range at {
		switch x := s.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", x)
		default:
			fmt.Fprintf(&b, ".%v", x)
		}
	}
	if b.Len() == 0 {
		return "the value"
	}
	return strings.TrimPrefix(b.String(), ".")
}

// getAt returns the value at the concrete path at below v.
func getAt(v any, at []any) (any, bool) {
	for _, step := range at {
		switch x := v.(type) {
		case map[string]any:
			k, _ := step.(string)
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, ok := step.(int)
			if !ok || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// setAnyAt sets the value at the concrete path at below *v, which exists
// but for its last step.
func setAnyAt(v *any, at []any, nv any) {
	if len(at) == 0 {
		*v = nv
		return
	}
	switch x := (*v).(type) {
	case map[string]any:
		k, _ := at[0].(string)
		c := x[k]
		setAnyAt(&c, at[1:], nv)
		x[k] = c
	case []any:
		if i, ok := at[0].(int); ok && i < len(x) {
			setAnyAt(&x[i], at[1:], nv)
		}
	}
}

// deleteAnyAt removes the property, map entry or list item at the
// concrete path at below *v; it reports whether something was there.
func deleteAnyAt(v *any, at []any) bool {
	if len(at) == 0 {
		return false
	}
	switch x := (*v).(type) {
	case map[string]any:
		k, _ := at[0].(string)
		if len(at) == 1 {
			_, ok := x[k]
			delete(x, k)
			return ok
		}
		c, ok := x[k]
		if !ok {
			return false
		}
		done := deleteAnyAt(&c, at[1:])
		x[k] = c
		return done
	case []any:
		i, ok := at[0].(int)
		if !ok || i >= len(x) {
			return false
		}
		if len(at) == 1 {
			*v = append(x[:i:i], x[i+1:]...)
			return true
		}
		return deleteAnyAt(&x[i], at[1:])
	}
	return false
}

func deleteConcrete(obj map[string]any, at []any) bool {
	var v any = obj
	return deleteAnyAt(&v, at)
}

// setConcrete sets the value at at in obj; the containers on the way must
// exist.
func setConcrete(obj map[string]any, at []any, nv any) error {
	if len(at) == 0 {
		return fmt.Errorf("no path")
	}
	if _, ok := getAt(obj, at[:len(at)-1]); !ok {
		return fmt.Errorf("no parent at %s", atString(at))
	}
	var v any = obj
	setAnyAt(&v, at, nv)
	return nil
}
