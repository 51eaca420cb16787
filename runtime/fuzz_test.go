package runtime_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The fuzz targets generate objects from the fuzzer's bytes, following the
// widget schema (testdata/widget-schema.yaml) most of the time and straying
// from it (wrong types, nulls, free-form values) some of the time, so that
// the bytes reach deep into the schema. Seeds live in testdata/fuzz/.

// fuzzSchema returns the widget schema, for generating objects.
func fuzzSchema(t testing.TB) *spec.Schema {
	b, err := os.ReadFile(filepath.Join("testdata", "widget-schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return schemaFromYAML(t, string(b))
}

// gen turns bytes into values.
type gen struct{ b []byte }

func (g *gen) next() int {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return int(c)
}

var (
	genStrings = []string{"a", "b", "c", "", "TCP", "UDP", "x"}
	genKeys    = []string{"a", "b", "c", "name", "protocol", "port", "id", "set"}
)

// scalar returns a scalar for a schema type (or any type).
func (g *gen) scalar(typ string) interface{} {
	switch typ {
	case "string":
		return genStrings[g.next()%len(genStrings)]
	case "integer":
		return int64(g.next() % 4)
	case "number":
		switch g.next() % 4 {
		case 0:
			return 0.5
		case 1:
			return float64(g.next() % 4) // integral float: equal to an int64
		default:
			return int64(g.next() % 4)
		}
	case "boolean":
		return g.next()%2 == 0
	}
	switch g.next() % 5 {
	case 0:
		return nil
	case 1:
		return g.scalar("string")
	case 2:
		return g.scalar("number")
	case 3:
		return g.scalar("boolean")
	}
	return g.scalar("integer")
}

// any returns a free-form JSON value.
func (g *gen) any(depth int) interface{} {
	if depth > 5 {
		return g.scalar("")
	}
	switch g.next() % 4 {
	case 0:
		n := g.next() % 4
		l := make([]interface{}, n)
		for i := range l {
			l[i] = g.any(depth + 1)
		}
		return l
	case 1:
		n := g.next() % 4
		m := map[string]interface{}{}
		for i := 0; i < n; i++ {
			m[genKeys[g.next()%len(genKeys)]] = g.any(depth + 1)
		}
		return m
	}
	return g.scalar("")
}

// value returns a value for schema s: of its shape mostly, anything else
// once in 16.
func (g *gen) value(s *spec.Schema, depth int) interface{} {
	if depth > 8 || g.next()%16 == 15 {
		return g.any(depth)
	}
	switch {
	case len(s.Properties) > 0:
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		m := map[string]interface{}{}
		for _, name := range names {
			if g.next()%3 != 0 {
				p := s.Properties[name]
				m[name] = g.value(&p, depth+1)
			}
		}
		return m
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		m := map[string]interface{}{}
		for i := g.next() % 4; i > 0; i-- {
			m[genKeys[g.next()%4]] = g.value(s.AdditionalProperties.Schema, depth+1)
		}
		return m
	case s.Items != nil && s.Items.Schema != nil:
		l := make([]interface{}, g.next()%5)
		for i := range l {
			l[i] = g.value(s.Items.Schema, depth+1)
		}
		return l
	case len(s.Type) == 1 && s.Type[0] != "object":
		return g.scalar(s.Type[0])
	}
	return g.any(depth)
}

// object returns an object of the widget schema.
func (g *gen) object(s *spec.Schema) map[string]interface{} {
	if m, ok := g.value(s, 0).(map[string]interface{}); ok {
		return m
	}
	return map[string]interface{}{"spec": g.any(1)}
}

// FuzzReflexive: an update that changes nothing is always allowed.
func FuzzReflexive(f *testing.F) {
	f.Add([]byte("spec"))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte(`{"spec":{"tags":["a","a"],"replicas":1.0,"ports":[{"name":"a"},{"name":"a"}]}}`))
	s := fuzzSchema(f)
	c := widget(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		objs := []map[string]interface{}{(&gen{b: data}).object(s)}
		var decoded map[string]interface{}
		if utiljson.Unmarshal(data, &decoded) == nil && decoded != nil {
			objs = append(objs, decoded)
		}
		for _, x := range objs {
			if errs := c.ValidateUpdate(x, deepCopy(x)); len(errs) != 0 {
				t.Fatalf("ValidateUpdate(x, copy of x) = %v\nx = %s", errs, dump(x))
			}
			if errs := c.ValidateUpdate(x, x); len(errs) != 0 {
				t.Fatalf("ValidateUpdate(x, x) = %v\nx = %s", errs, dump(x))
			}
		}
	})
}

// FuzzSetPermutation: permuting sets, reordering mutable list maps whose
// keys are distinct, and writing integral numbers as floats or json.Number
// is no change.
func FuzzSetPermutation(f *testing.F) {
	f.Add([]byte("spec"), int64(1))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}, int64(7))
	s := fuzzSchema(f)
	c := widget(f)
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		x := (&gen{b: data}).object(s)
		y := deepCopy(x)
		r := rand.New(rand.NewSource(seed))
		permuteSets(y, s, r)
		renumber(y, r)
		if errs := c.ValidateUpdate(y, x); len(errs) != 0 {
			t.Fatalf("ValidateUpdate(permuted, x) = %v\nx = %s\npermuted = %s", errs, dump(x), dump(y))
		}
	})
}

// permuteSets shuffles every list at a listType=set position of s, in place.
func permuteSets(v interface{}, s *spec.Schema, r *rand.Rand) {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			if p, ok := s.Properties[k]; ok {
				permuteSets(e, &p, r)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				permuteSets(e, s.AdditionalProperties.Schema, r)
			}
		}
	case []interface{}:
		if s.Items == nil || s.Items.Schema == nil {
			return
		}
		for _, e := range x {
			permuteSets(e, s.Items.Schema, r)
		}
		lt, _ := s.Extensions.GetString("x-kubernetes-list-type")
		immutable, _ := s.Extensions.GetBool("x-kubernetes-immutable")
		unordered, _ := s.Extensions.GetBool("x-immutable-gen-ignore-order")
		if lt == "set" || (lt == "map" && unordered) || (lt == "map" && !immutable && distinctKeys(x, s)) {
			r.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
		}
	}
}

// distinctKeys reports whether the items of a list map that have a key
// (an object with every key property a non-null scalar) have distinct keys:
// then reordering the list changes no correlation.
func distinctKeys(items []interface{}, s *spec.Schema) bool {
	var keys []string
	if v, ok := s.Extensions["x-kubernetes-list-map-keys"].([]interface{}); ok {
		for _, k := range v {
			keys = append(keys, k.(string))
		}
	}
	seen := map[string]bool{}
	for _, item := range items {
		m, ok := item.(map[string]interface{})
		if !ok {
			continue
		}
		tuple, keyed := "", true
		for _, k := range keys {
			switch v := m[k].(type) {
			case string, bool, int64, float64, json.Number:
				tuple += canonical(v, nil) + "\x00"
			default:
				keyed = false
			}
		}
		if !keyed {
			continue
		}
		if seen[tuple] {
			return false
		}
		seen[tuple] = true
	}
	return true
}

// renumber rewrites some integral numbers in another Go number type.
func renumber(v interface{}, r *rand.Rand) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			x[k] = renumber(e, r)
		}
	case []interface{}:
		for i, e := range x {
			x[i] = renumber(e, r)
		}
	case int64:
		switch r.Intn(3) {
		case 0:
			return float64(x)
		case 1:
			return json.Number(fmt.Sprint(x))
		}
	case float64:
		if x == math.Trunc(x) && r.Intn(2) == 0 {
			return int64(x)
		}
	}
	return v
}

// immutablePositions lists where the widget schema has an immutable value
// reached through objects, map keys or atomic list indices only: positions
// whose change ValidateUpdate must always report, at that path.
var immutablePositions = [][]string{
	{"spec", "name"}, {"spec", "replicas"}, {"spec", "ratio"}, {"spec", "nullable"},
	{"spec", "opt", "x"}, {"spec", "tags"}, {"spec", "groups"}, {"spec", "fixedPorts"},
	{"spec", "config"}, {"spec", "template"}, {"spec", "extra", "id"}, {"spec", "nested"},
	{"spec", "selectors", "*"}, {"spec", "mounts", "*", "source"}, {"spec", "args", "#"}, {"spec", "steps", "#", "image"},
}

// FuzzImmutableChange: any change anywhere inside an immutable value is
// reported, once, at the immutable value's path.
func FuzzImmutableChange(f *testing.F) {
	f.Add([]byte("spec"), uint16(0), uint16(0))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, uint16(5), uint16(3))
	s := fuzzSchema(f)
	c := widget(f)
	f.Fuzz(func(t *testing.T, data []byte, pick, inner uint16) {
		x := (&gen{b: data}).object(s)
		type target struct {
			path  string
			index int // in a list
		}
		var targets []target
		for _, pos := range immutablePositions {
			var walk func(v interface{}, rest []string, path string)
			walk = func(v interface{}, rest []string, path string) {
				switch x := v.(type) {
				case map[string]interface{}:
					if rest[0] == "*" {
						keys := slices.Sorted(maps.Keys(x))
						for _, k := range keys {
							if len(rest) == 1 {
								targets = append(targets, target{path: path + "[" + k + "]"})
							} else {
								walk(x[k], rest[1:], path+"["+k+"]")
							}
						}
						return
					}
					e, ok := x[rest[0]]
					if !ok || rest[0] == "#" {
						return
					}
					p := strings.TrimPrefix(path+"."+rest[0], ".")
					if len(rest) == 1 {
						targets = append(targets, target{path: p})
					} else {
						walk(e, rest[1:], p)
					}
				case []interface{}:
					if rest[0] != "#" {
						return
					}
					for i := range x {
						p := fmt.Sprintf("%s[%d]", path, i)
						if len(rest) == 1 {
							targets = append(targets, target{path: p, index: i})
						} else {
							walk(x[i], rest[1:], p)
						}
					}
				}
			}
			walk(x, pos, "")
		}
		if len(targets) == 0 {
			return
		}
		tg := targets[int(pick)%len(targets)]
		y := deepCopy(x)
		// Change one spot inside the same target in the copy.
		switch p := stepParent(y, tg.path).(type) {
		case map[string]interface{}:
			p[lastStep(tg.path)] = changeInside(p[lastStep(tg.path)], int(inner))
		case []interface{}:
			p[tg.index] = changeInside(p[tg.index], int(inner))
		}
		errs := c.ValidateUpdate(y, x)
		if len(errs) != 1 || errs[0].Field != tg.path {
			t.Fatalf("changing inside %s: got %v, want one error at %s\nold = %s\nnew = %s", tg.path, errs, tg.path, dump(x), dump(y))
		}
	})
}

// changeInside replaces the n-th spot (in a depth-first walk) of v with a
// value no generated object holds, and returns the changed v.
func changeInside(v interface{}, n int) interface{} {
	const fresh = "\x00fresh"
	var spots []func()
	var root = v
	var walk func(v interface{}, set func(interface{}))
	walk = func(v interface{}, set func(interface{})) {
		spots = append(spots, func() { set(fresh) })
		switch x := v.(type) {
		case map[string]interface{}:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				k := k
				walk(x[k], func(nv interface{}) { x[k] = nv })
			}
		case []interface{}:
			for i := range x {
				i := i
				walk(x[i], func(nv interface{}) { x[i] = nv })
			}
		}
	}
	walk(v, func(nv interface{}) { root = nv })
	spots[n%len(spots)]()
	return root
}

// splitPath, stepInto, stepParent and lastStep navigate "a.b[k][0]" paths.
func splitPath(p string) []string {
	var steps []string
	for _, part := range strings.Split(p, ".") {
		for part != "" {
			if i := strings.IndexByte(part, '['); i > 0 {
				steps = append(steps, part[:i])
				part = part[i:]
				continue
			}
			if part[0] == '[' {
				j := strings.IndexByte(part, ']')
				steps = append(steps, part[:j+1])
				part = part[j+1:]
				continue
			}
			steps = append(steps, part)
			part = ""
		}
	}
	return steps
}

func stepInto(v interface{}, step string) interface{} {
	if strings.HasPrefix(step, "[") {
		k := step[1 : len(step)-1]
		if l, ok := v.([]interface{}); ok {
			var i int
			fmt.Sscan(k, &i)
			return l[i]
		}
		return v.(map[string]interface{})[k]
	}
	return v.(map[string]interface{})[step]
}

func stepParent(v interface{}, p string) interface{} {
	steps := splitPath(p)
	for _, s := range steps[:len(steps)-1] {
		v = stepInto(v, s)
	}
	return v
}

func lastStep(p string) string {
	steps := splitPath(p)
	s := steps[len(steps)-1]
	return strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
}

// FuzzEqualityOracle compares the verdict on every immutable property of
// the widget with a naive oracle: canonical JSON with sets sorted and
// numbers normalized. The new object is the old one with sets permuted,
// numbers retyped and a few random changes.
func FuzzEqualityOracle(f *testing.F) {
	f.Add([]byte("spec"), []byte{1, 2, 3}, int64(1))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, []byte{9, 9, 9, 9}, int64(3))
	s := fuzzSchema(f)
	c := widget(f)
	specSchema := s.Properties["spec"]
	f.Fuzz(func(t *testing.T, data, changes []byte, seed int64) {
		x := (&gen{b: data}).object(s)
		y := deepCopy(x)
		r := rand.New(rand.NewSource(seed))
		permuteSets(y, s, r)
		renumber(y, r)
		g := &gen{b: changes}
		for len(g.b) > 0 {
			changeInside(y, g.next()) // in place for containers
			if ys, ok := y["spec"].(map[string]interface{}); ok && g.next()%2 == 0 {
				keys := slices.Sorted(maps.Keys(ys))
				if len(keys) > 0 {
					k := keys[g.next()%len(keys)]
					p := specSchema.Properties[k]
					ys[k] = g.value(&p, 2)
				}
			}
		}
		errs := c.ValidateUpdate(y, x)
		reported := map[string]bool{}
		for _, e := range errs {
			reported[e.Field] = true
		}
		xs, xok := x["spec"].(map[string]interface{})
		ys, yok := y["spec"].(map[string]interface{})
		if !xok || !yok {
			return
		}
		for _, name := range []string{"name", "replicas", "ratio", "nullable", "tags", "groups", "fixedPorts", "config", "template", "nested"} {
			xv, inX := xs[name]
			yv, inY := ys[name]
			p := specSchema.Properties[name]
			want := inX != inY || (inX && canonical(xv, &p) != canonical(yv, &p))
			if got := reported["spec."+name]; got != want {
				t.Fatalf("spec.%s: reported %v, oracle says changed=%v\nold = %s\nnew = %s\ncanonical old = %s\ncanonical new = %s",
					name, got, want, dump(xv), dump(yv), canonical(xv, &p), canonical(yv, &p))
			}
		}
	})
}

// canonical renders v as JSON with listType=set lists sorted and numbers in
// one form: the naive definition of equality.
func canonical(v interface{}, s *spec.Schema) string {
	switch x := v.(type) {
	case map[string]interface{}:
		if x == nil {
			return "null"
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(x)) {
			var cs *spec.Schema
			if s != nil {
				if p, ok := s.Properties[k]; ok {
					cs = &p
				} else if s.AdditionalProperties != nil {
					cs = s.AdditionalProperties.Schema
				}
			}
			parts = append(parts, fmt.Sprintf("%q:%s", k, canonical(x[k], cs)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []interface{}:
		if x == nil {
			return "null"
		}
		var items *spec.Schema
		set := false
		if s != nil && s.Items != nil {
			items = s.Items.Schema
			lt, _ := s.Extensions.GetString("x-kubernetes-list-type")
			set = lt == "set"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = canonical(e, items)
		}
		if set {
			sort.Strings(parts)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case int64:
		return fmt.Sprintf("%d", x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return fmt.Sprintf("%d", int64(x))
		}
		return fmt.Sprintf("%v", x)
	case json.Number:
		f, _ := x.Float64()
		return canonical(f, nil)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func dump(v interface{}) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}
