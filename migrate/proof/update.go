package proof

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// updater makes the updates of one field: plants the field in an object,
// removes it, replaces it, changes something inside it.
type updater struct {
	r    *rand.Rand
	seed uint64
	// words are the generators' Words.
	words []string
}

// value draws a value of schema s.
func (u *updater) value(s map[string]any) any {
	g := preflighttest.New(wrap(s), u.r.Uint64())
	g.Invalid = 5
	g.Words = u.words
	return g.Spec()
}

// plant makes the value at path exist in body (creating what is missing
// on the way), choosing list items and map values at random.
func (u *updater) plant(s map[string]any, body map[string]any, path []string) {
	u.plantAt(s, body, path)
}

func (u *updater) plantAt(s map[string]any, v any, path []string) any {
	if len(path) == 0 {
		if v == nil {
			return u.value(s)
		}
		return v
	}
	switch seg := path[0]; seg {
	case "[]":
		items, _ := s["items"].(map[string]any)
		l, _ := v.([]any)
		if len(l) == 0 {
			l = []any{u.value(items)}
		}
		i := u.r.IntN(len(l))
		l[i] = u.plantAt(items, l[i], path[1:])
		return l
	case "{}":
		values, _ := s["additionalProperties"].(map[string]any)
		m, _ := v.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		if len(m) == 0 {
			m["k"] = u.value(values)
		}
		keys := slices.Sorted(maps.Keys(m))
		k := keys[u.r.IntN(len(keys))]
		m[k] = u.plantAt(values, m[k], path[1:])
		return m
	default:
		m, _ := v.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m[seg] = u.plantAt(prop(s, seg), m[seg], path[1:])
		return m
	}
}

// remove removes the value at path (an item, a map entry or a property).
func (u *updater) remove(s map[string]any, body map[string]any, path []string) {
	u.at(s, body, path, func(map[string]any, any, bool) (any, bool) { return nil, false })
}

// replace sets the value at path to a new random one.
func (u *updater) replace(s map[string]any, body map[string]any, path []string) {
	u.at(s, body, path, func(cs map[string]any, _ any, _ bool) (any, bool) { return u.value(cs), true })
}

// mutateWithin changes one to three things inside the value at path.
func (u *updater) mutateWithin(s map[string]any, body map[string]any, path []string) {
	u.at(s, body, path, func(cs map[string]any, x any, ok bool) (any, bool) {
		if !ok {
			return u.value(cs), true
		}
		g := preflighttest.New(wrap(cs), u.r.Uint64())
		g.Invalid = 5
		g.Words = u.words
		m, _ := g.Mutate(x)
		return m, true
	})
}

// at calls fn on the value at path (existing values only; random items and
// keys), which returns its replacement, or false to remove it.
func (u *updater) at(s map[string]any, v any, path []string, fn func(s map[string]any, x any, ok bool) (any, bool)) (any, bool) {
	seg := path[0]
	switch seg {
	case "[]":
		items, _ := s["items"].(map[string]any)
		l, ok := v.([]any)
		if !ok || len(l) == 0 {
			return v, true
		}
		i := u.r.IntN(len(l))
		var nv any
		var keep bool
		if len(path) == 1 {
			nv, keep = fn(items, l[i], true)
		} else {
			nv, keep = u.at(items, l[i], path[1:], fn)
		}
		if !keep {
			return append(l[:i:i], l[i+1:]...), true
		}
		l[i] = nv
		return l, true
	case "{}":
		values, _ := s["additionalProperties"].(map[string]any)
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			return v, true
		}
		keys := slices.Sorted(maps.Keys(m))
		k := keys[u.r.IntN(len(keys))]
		var nv any
		var keep bool
		if len(path) == 1 {
			nv, keep = fn(values, m[k], true)
		} else {
			nv, keep = u.at(values, m[k], path[1:], fn)
		}
		if keep {
			m[k] = nv
		} else {
			delete(m, k)
		}
		return m, true
	default:
		m, ok := v.(map[string]any)
		if !ok {
			return v, true
		}
		cs := prop(s, seg)
		x, present := m[seg]
		var nv any
		keep := true
		switch {
		case len(path) == 1:
			nv, keep = fn(cs, x, present)
		case !present:
			return m, true
		default:
			nv, keep = u.at(cs, x, path[1:], fn)
		}
		if keep {
			m[seg] = nv
		} else {
			delete(m, seg)
		}
		return m, true
	}
}

// changed reports whether the update old → new changes the value at path
// (present on one side only, or not equal as CEL compares: sets and list
// maps regardless of order) where both sides have everything above it.
func changed(s map[string]any, oldV, newV any, path []string) bool {
	return changedAt(s, oldV, newV, path)
}

func changedAt(s map[string]any, a, b any, path []string) bool {
	if len(path) == 0 {
		return canonical(s, a) != canonical(s, b)
	}
	switch seg := path[0]; seg {
	case "[]":
		items, _ := s["items"].(map[string]any)
		la, _ := a.([]any)
		lb, _ := b.([]any)
		if keys := listMapKeys(s); keys != nil {
			byKey := map[string]any{}
			for _, x := range lb {
				byKey[keyOf(x, keys)] = x
			}
			for _, x := range la {
				if y, ok := byKey[keyOf(x, keys)]; ok && changedAt(items, x, y, path[1:]) {
					return true
				}
			}
			return false
		}
		for i := 0; i < min(len(la), len(lb)); i++ {
			if changedAt(items, la[i], lb[i], path[1:]) {
				return true
			}
		}
		return false
	case "{}":
		values, _ := s["additionalProperties"].(map[string]any)
		ma, _ := a.(map[string]any)
		mb, _ := b.(map[string]any)
		for k, x := range ma {
			if y, ok := mb[k]; ok && changedAt(values, x, y, path[1:]) {
				return true
			}
		}
		return false
	default:
		ma, oka := a.(map[string]any)
		mb, okb := b.(map[string]any)
		if !oka || !okb {
			return false
		}
		x, inA := ma[seg]
		y, inB := mb[seg]
		if len(path) == 1 && inA != inB {
			return true
		}
		if !inA || !inB {
			return false
		}
		return changedAt(prop(s, seg), x, y, path[1:])
	}
}

// canonical renders v as JSON, with the items of sets and list maps
// sorted: equal strings for values CEL finds equal.
func canonical(s map[string]any, v any) string {
	switch x := v.(type) {
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(x)) {
			cs := prop(s, k)
			if cs == nil {
				cs, _ = s["additionalProperties"].(map[string]any)
			}
			kj, _ := json.Marshal(k)
			parts = append(parts, string(kj)+":"+canonical(cs, x[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		items, _ := s["items"].(map[string]any)
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = canonical(items, e)
		}
		if t := s[extension.ListType]; t == "set" || t == "map" {
			sort.Strings(parts)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	j, _ := json.Marshal(v)
	return string(j)
}

func listMapKeys(s map[string]any) []string {
	if s[extension.ListType] != "map" {
		return nil
	}
	var out []string
	keys, _ := s[extension.ListMapKeys].([]any)
	for _, k := range keys {
		ks, _ := k.(string)
		out = append(out, ks)
	}
	return out
}

func keyOf(item any, keys []string) string {
	m, _ := item.(map[string]any)
	var parts []string
	for _, k := range keys {
		j, _ := json.Marshal(m[k])
		parts = append(parts, string(j))
	}
	return strings.Join(parts, "/")
}

func prop(s map[string]any, name string) map[string]any {
	ps, _ := s["properties"].(map[string]any)
	p, _ := ps[name].(map[string]any)
	return p
}

// minimize makes the pair smaller while it keeps its class, its field,
// the fields it is attributed to and the refusing side's errors: it
// removes properties, map entries and list items from both sides at once,
// largest first.
func minimize(before, after *crd, version string, body, oldBody, newBody map[string]any, fields []Field, conds *conditions, cls Class, fld string) (map[string]any, map[string]any, verdicts) {
	v, _ := judge(before, after, version, oldBody, newBody)
	key := func(w verdicts, o, n map[string]any) string {
		_, _, blame := classify(w, body, o, n, fields, conds)
		errs := w.after.Errors
		if cls == NewAcceptance {
			errs = w.before.Errors
		}
		var lines []string
		for _, e := range errs {
			lines = append(lines, string(e.Type)+" "+StripIndexes(e.Field)+" "+e.Detail)
		}
		slices.Sort(lines)
		return fmt.Sprint(blame, lines)
	}
	want := key(v, oldBody, newBody)
	same := func(o, n map[string]any) (verdicts, bool) {
		w, err := judge(before, after, version, o, n)
		if err != nil {
			return w, false
		}
		c, f, _ := classify(w, body, o, n, fields, conds)
		return w, c == cls && f == fld && key(w, o, n) == want
	}
	budget := 400
	for progress := true; progress && budget > 0; {
		progress = false
		for _, p := range elementPaths(oldBody, newBody) {
			if budget--; budget < 0 {
				break
			}
			o, n := deepCopy(oldBody).(map[string]any), deepCopy(newBody).(map[string]any)
			deleteAt(o, p)
			deleteAt(n, p)
			if w, ok := same(o, n); ok {
				oldBody, newBody, v, progress = o, n, w, true
				break
			}
		}
	}
	return oldBody, newBody, v
}

// elementPaths lists the paths of the map entries and list items of a and
// b, parents first.
func elementPaths(a, b map[string]any) [][]any {
	seen := map[string]bool{}
	var out [][]any
	var walk func(v any, prefix []any)
	walk = func(v any, prefix []any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				p := append(slices.Clip(prefix), any(k))
				if j, _ := json.Marshal(p); !seen[string(j)] {
					seen[string(j)] = true
					out = append(out, p)
				}
				walk(x[k], p)
			}
		case []any:
			for i := range x {
				p := append(slices.Clip(prefix), any(i))
				if j, _ := json.Marshal(p); !seen[string(j)] {
					seen[string(j)] = true
					out = append(out, p)
				}
				walk(x[i], p)
			}
		}
	}
	walk(a, nil)
	walk(b, nil)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
}

// deleteAt removes the entry or item at p from root, if there.
func deleteAt(root map[string]any, p []any) {
	var parent, v any = nil, root
	var pkey any
	for i, step := range p {
		last := i == len(p)-1
		switch x := v.(type) {
		case map[string]any:
			k, ok := step.(string)
			if !ok {
				return
			}
			if last {
				delete(x, k)
				return
			}
			parent, pkey, v = x, k, x[k]
		case []any:
			idx, ok := step.(int)
			if !ok || idx >= len(x) {
				return
			}
			if last {
				shorter := append(x[:idx:idx], x[idx+1:]...)
				switch pp := parent.(type) {
				case map[string]any:
					pp[pkey.(string)] = shorter
				case []any:
					pp[pkey.(int)] = shorter
				}
				return
			}
			parent, pkey, v = x, idx, x[idx]
		default:
			return
		}
	}
}
