package validators

import (
	"flag"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The peer differential: on random typed objects and random mutations of
// them, validation-gen's Validate_<Kind> (update, with the old object)
// against immutable-gen's runtime on the JSON of the same two objects, and
// against the typed validators (ValidateImmutableUpdate), which must report
// exactly the runtime's errors.
// Every field one of them reports and the other does not is classified
// into a named difference between the KEP's semantics (the runtime's) and
// validation-gen's equality.Semantic.DeepEqual; an unclassified one fails
// the test. docs/semantics.md names each difference with an example
// (TestDifferenceExamples pins those examples).

// Named differences. Each is a field one validator reports and the other
// does not.
const (
	// diffSetOrder: validation-gen reports a listType=set whose items were
	// reordered; the KEP compares sets as multisets.
	diffSetOrder = "set order (validation-gen only)"
	// diffNilEmpty: immutable-gen (runtime and typed validators) reports a
	// field that went from null to an empty list or map (or back): different JSON, while validation-gen's
	// equality.Semantic.DeepEqual takes nil and empty as equal.
	diffNilEmpty = "nil vs empty (immutable-gen only)"
	// diffNewParent: validation-gen reports an immutable field of a
	// list-map item, map value or optional struct that the old object does
	// not have (an added item): with no old value to compare, its
	// validate.Immutable fails on every update. The KEP lets items and
	// optional parents come and go; only values present in both compare.
	diffNewParent = "immutable field of an added parent (validation-gen only)"
	// diffKeyPath: an item added to a list map whose keys are immutable
	// (+immutable=keys; validation-gen's +k8s:update=NoAddItem) is
	// refused by both, validation-gen at the item (spec.shards[1]),
	// immutable-gen at the list (spec.shards, the key in the message).
	diffKeyPath = "added key reported at the item (validation-gen) or the list (immutable-gen)"
)

var (
	pairsFlag = flag.Int("pairs", 10000, "random (old, new) pairs per API in TestPeerDifferential")
	seedFlag  = flag.Uint64("seed", 0, "seed of TestPeerDifferential (0: the fixed seed of CI)")
)

func TestPeerDifferential(t *testing.T) {
	for _, a := range []*api{&widgetAPI, &deploymentAPI} {
		t.Run(a.name, func(t *testing.T) {
			checker := a.checker(t)
			schema := a.schema(t)
			seed := uint64(len(a.name))
			if *seedFlag != 0 {
				seed = *seedFlag
			}
			t.Logf("seed %d (-seed replays it)", seed)
			g := newGen(seed, a.shapes)
			pairsPerAPI := *pairsFlag
			// Differences of validation-gen from the runtime, and from the
			// typed validators.
			counts := map[string]map[string]int{"runtime": {}, "typed": {}}
			var rejected, agreed int
			for i := range pairsPerAPI {
				old := a.random(g)
				obj := a.deepCopy(old)
				// 1 in 10 pairs unchanged, the others 1 to 3 mutations.
				var touched []string
				if i%10 != 0 {
					touched = g.mutate(obj, 1+g.r.IntN(3))
				}
				vg := a.validationGen(obj, old)
				nu, ou := unstructured(t, obj), unstructured(t, old)
				rt := checker.ValidateUpdate(nu, ou)
				ty := a.typed(obj, old)
				if len(rt) > 0 {
					rejected++
				}
				report := func(format string, args ...interface{}) {
					t.Errorf("pair %d (mutated %v): "+format+"\nold: %v\nnew: %v\nvalidation-gen: %v\nruntime: %v\ntyped: %v",
						append(append([]interface{}{i, touched}, args...), ou, nu, vg, rt, ty)...)
				}
				// The typed validators are the runtime's semantics in Go:
				// the same errors, not only the same fields.
				if got, want := errorKeys(ty), errorKeys(rt); !slices.Equal(got, want) {
					report("the typed validators report %q, the runtime %q", got, want)
				}
				for _, other := range []struct {
					name string
					errs field.ErrorList
				}{{"runtime", rt}, {"typed", ty}} {
					onlyVG, onlyOther := diffPaths(vg, other.errs)
					if len(onlyVG)+len(onlyOther) == 0 {
						if other.name == "runtime" {
							agreed++
						}
						continue
					}
					for _, p := range onlyVG {
						c := classify(schema, nu, ou, p, true, paths(other.errs))
						counts[other.name][c]++
						if c == "" {
							report("validation-gen reports %s, the %s does not: unclassified", p, other.name)
						}
					}
					for _, p := range onlyOther {
						c := classify(schema, nu, ou, p, false, paths(vg))
						counts[other.name][c]++
						if c == "" {
							report("the %s reports %s, validation-gen does not: unclassified", other.name, p)
						}
					}
				}
				if t.Failed() {
					t.FailNow()
				}
			}
			t.Logf("%d pairs: %d rejected by the runtime; %d with the same fields reported by validation-gen and the runtime; differences from the runtime: %v; from the typed validators: %v",
				pairsPerAPI, rejected, agreed, counts["runtime"], counts["typed"])
			// The pairs must exercise both verdicts, or agreement means nothing.
			if rejected < pairsPerAPI/10 || rejected > pairsPerAPI*9/10 {
				t.Errorf("%d of %d pairs rejected: the mutations do not exercise both verdicts", rejected, pairsPerAPI)
			}
			if a == &widgetAPI {
				for _, c := range []string{diffSetOrder, diffNilEmpty, diffNewParent, diffKeyPath} {
					if counts["runtime"][c] == 0 {
						t.Errorf("difference %q never seen: the generator no longer covers it", c)
					}
				}
			}
		})
	}
}

// errorKeys renders errors as sorted "field: type: detail" strings (the
// bad value is left out: Go values and JSON render it differently).
func errorKeys(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type)+": "+e.Detail)
	}
	slices.Sort(out)
	return out
}

// diffPaths returns the fields (rendered paths) that only a, resp. only b,
// report.
func diffPaths(a, b field.ErrorList) (onlyA, onlyB []string) {
	pa, pb := paths(a), paths(b)
	for _, p := range pa {
		if !slices.Contains(pb, p) {
			onlyA = append(onlyA, p)
		}
	}
	for _, p := range pb {
		if !slices.Contains(pa, p) {
			onlyB = append(onlyB, p)
		}
	}
	return onlyA, onlyB
}

func paths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		if !slices.Contains(out, e.Field) {
			out = append(out, e.Field)
		}
	}
	slices.Sort(out)
	return out
}

// classify names the difference behind a field only one validator
// reports: byValidationGen is true when validation-gen reports it, others
// are the fields the other validator reports. "" is an unclassified
// disagreement.
func classify(schema, obj, old map[string]interface{}, path string, byValidationGen bool, others []string) string {
	nv, nok := lookup(obj, path)
	ov, ook := lookup(old, path)
	if c := keyPath(schema, obj, old, path, byValidationGen, others); c != "" {
		return c
	}
	if byValidationGen {
		if nok && ook && listType(schema, path) == "set" && sameMultiset(nv, ov) {
			return diffSetOrder
		}
		if parentAbsent(schema, obj, old, path) {
			return diffNewParent
		}
		return ""
	}
	if reflect.DeepEqual(withoutEmpties(nv, nok), withoutEmpties(ov, ook)) {
		return diffNilEmpty
	}
	return ""
}

// keyPath classifies an added list-map key reported at different paths:
// validation-gen at the new item (list[i], an item whose key old lacks),
// immutable-gen at the list, which the other reports an item of.
func keyPath(schema, obj, old map[string]interface{}, path string, byValidationGen bool, others []string) string {
	if byValidationGen {
		list, ok := strings.CutSuffix(path, "]")
		if i := strings.LastIndex(list, "["); ok && i > 0 {
			list = list[:i]
			if listType(schema, list) == "map" && slices.Contains(others, list) && parentAbsent(schema, obj, old, path+".x") {
				return diffKeyPath
			}
		}
		return ""
	}
	if listType(schema, path) != "map" {
		return ""
	}
	for _, o := range others {
		if strings.HasPrefix(o, path+"[") {
			return diffKeyPath
		}
	}
	return ""
}

// withoutEmpties is v as equality.Semantic.DeepEqual sees it: null,
// absent, [] and {} are one value, at any depth.
func withoutEmpties(v interface{}, present bool) interface{} {
	if !present {
		return nil
	}
	switch x := v.(type) {
	case []interface{}:
		if len(x) == 0 {
			return nil
		}
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = withoutEmpties(e, true)
		}
		return out
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, e := range x {
			if c := withoutEmpties(e, true); c != nil {
				out[k] = c
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

// parentAbsent reports whether a parent of path (below the object's
// top-level fields) has no counterpart in old: absent or null, or a
// list-map item (path indexes obj's list) whose key old's list lacks.
func parentAbsent(schema, obj, old map[string]interface{}, path string) bool {
	segs := segments(path)
	var nv, ov interface{} = obj, old
	s := schema
	for i, seg := range segs[:len(segs)-1] {
		nn, on, ns := step(s, nv, ov, seg)
		if i > 0 && (on == nil || nn == nil) {
			return true
		}
		nv, ov, s = nn, on, ns
	}
	return false
}

// step descends one path segment in obj and old together (list-map items
// of old correlated by key with obj's item at the index) and in schema.
func step(schema map[string]interface{}, obj, old interface{}, seg string) (interface{}, interface{}, map[string]interface{}) {
	if !strings.HasPrefix(seg, "[") {
		props, _ := schema["properties"].(map[string]interface{})
		sub, _ := props[seg].(map[string]interface{})
		n, _ := obj.(map[string]interface{})
		o, _ := old.(map[string]interface{})
		return n[seg], o[seg], sub
	}
	key := strings.TrimPrefix(seg, "[")
	if items, ok := schema["items"].(map[string]interface{}); ok {
		nl, _ := obj.([]interface{})
		ol, _ := old.([]interface{})
		i, err := strconv.Atoi(key)
		if err != nil || i >= len(nl) {
			return nil, nil, items
		}
		item := nl[i]
		if schema["x-kubernetes-list-type"] != "map" {
			if i >= len(ol) {
				return item, nil, items
			}
			return item, ol[i], items
		}
		keys, _ := schema["x-kubernetes-list-map-keys"].([]interface{})
		for _, o := range ol {
			if sameKey(item, o, keys) {
				return item, o, items
			}
		}
		return item, nil, items
	}
	sub, _ := schema["additionalProperties"].(map[string]interface{})
	n, _ := obj.(map[string]interface{})
	o, _ := old.(map[string]interface{})
	return n[key], o[key], sub
}

func sameKey(a, b interface{}, keys []interface{}) bool {
	ma, _ := a.(map[string]interface{})
	mb, _ := b.(map[string]interface{})
	for _, k := range keys {
		if !reflect.DeepEqual(ma[k.(string)], mb[k.(string)]) {
			return false
		}
	}
	return ma != nil && mb != nil
}

func sameMultiset(a, b interface{}) bool {
	la, ok1 := a.([]interface{})
	lb, ok2 := b.([]interface{})
	if !ok1 || !ok2 || len(la) != len(lb) {
		return false
	}
	used := make([]bool, len(lb))
outer:
	for _, x := range la {
		for j, y := range lb {
			if !used[j] && reflect.DeepEqual(x, y) {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}

// segments splits a rendered field.Path (spec.ports[2].name,
// spec.labels[team]) into its names, indices and keys.
func segments(path string) []string {
	var out []string
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			out = append(out, name)
		}
		for rest != "" {
			sub, after, _ := strings.Cut(rest, "]")
			out = append(out, "["+sub)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return out
}

// lookup returns the value at path in obj and whether it is present.
func lookup(obj map[string]interface{}, path string) (interface{}, bool) {
	var v interface{} = obj
	for _, s := range segments(path) {
		switch x := v.(type) {
		case map[string]interface{}:
			var ok bool
			if v, ok = x[strings.TrimPrefix(s, "[")]; !ok {
				return nil, false
			}
		case []interface{}:
			i, err := strconv.Atoi(strings.TrimPrefix(s, "["))
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// listType returns x-kubernetes-list-type of the schema at path.
func listType(schema map[string]interface{}, path string) string {
	s := schema
	for _, seg := range segments(path) {
		var next interface{}
		switch {
		case strings.HasPrefix(seg, "["):
			if items, ok := s["items"]; ok {
				next = items
			} else {
				next = s["additionalProperties"]
			}
		default:
			props, _ := s["properties"].(map[string]interface{})
			next = props[seg]
		}
		var ok bool
		if s, ok = next.(map[string]interface{}); !ok {
			return ""
		}
	}
	t, _ := s["x-kubernetes-list-type"].(string)
	return t
}

func TestSegments(t *testing.T) {
	for path, want := range map[string][]string{
		"spec.name":                 {"spec", "name"},
		"spec.ports[2]":             {"spec", "ports", "[2"},
		"spec.labels[a].x":          {"spec", "labels", "[a", "x"},
		"spec.template.c[0].p[1].n": {"spec", "template", "c", "[0", "p", "[1", "n"},
	} {
		if got := segments(path); !slices.Equal(got, want) {
			t.Errorf("segments(%q) = %q, want %q", path, got, want)
		}
	}
	obj := map[string]interface{}{"spec": map[string]interface{}{"ports": []interface{}{"x", map[string]interface{}{"n": "y"}}}}
	if v, ok := lookup(obj, "spec.ports[1].n"); !ok || v != "y" {
		t.Errorf("lookup = %v, %v", v, ok)
	}
	if _, ok := lookup(obj, "spec.ports[2]"); ok {
		t.Error("lookup of a missing index succeeded")
	}
}
