package runtime_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// errorTypes renders errors as "path type" for robustness checks.
func errorTypes(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+" "+string(e.Type))
	}
	return out
}

func withSpec(spec map[string]interface{}) map[string]interface{} {
	return map[string]interface{}{"kind": "Widget", "spec": spec}
}

// TestNotJSON checks that Go values that are not JSON are reported, not
// panicked on, wherever the check meets them.
func TestNotJSON(t *testing.T) {
	c := widget(t)
	type S struct{ A int }
	bad := map[string]interface{}{
		"struct":     S{1},
		"chan":       make(chan int),
		"func":       func() {},
		"[]string":   []string{"a"},
		"map string": map[string]string{"a": "b"},
		"NaN":        math.NaN(),
		"+Inf":       math.Inf(1),
		"pointer":    new(int),
		"bad number": json.Number("1x"),
	}
	for name, v := range bad {
		t.Run(name, func(t *testing.T) {
			specs := []func(v interface{}) map[string]interface{}{
				func(v interface{}) map[string]interface{} { return map[string]interface{}{"name": v} },
				func(v interface{}) map[string]interface{} {
					return map[string]interface{}{"config": map[string]interface{}{"a": []interface{}{1, v}}}
				},
				func(v interface{}) map[string]interface{} {
					return map[string]interface{}{"tags": []interface{}{"a", v, "b"}}
				},
				func(v interface{}) map[string]interface{} {
					return map[string]interface{}{"ports": []interface{}{map[string]interface{}{"name": v, "protocol": "TCP"}}}
				},
				func(v interface{}) map[string]interface{} {
					return map[string]interface{}{"volumes": []interface{}{map[string]interface{}{"name": "a", "path": v}}}
				},
				func(v interface{}) map[string]interface{} {
					return map[string]interface{}{"labels": map[string]interface{}{"a": v}}
				},
			}
			for i, mk := range specs {
				newObj, oldObj := withSpec(mk(v)), withSpec(mk(v))
				errs := c.ValidateUpdate(newObj, oldObj) // must not panic
				for _, e := range errs {
					if e.Type != field.ErrorTypeInternal {
						t.Errorf("spec %d: unexpected %v", i, e)
					}
					_ = e.Error() // rendering must not panic either
				}
				// Against a valid old value, the error is an internal error
				// naming the Go type, or an ordinary violation.
				errs = c.ValidateUpdate(withSpec(mk(v)), withSpec(mk("ok")))
				for _, e := range errs {
					_ = e.Error()
				}
			}
		})
	}
	errs := c.ValidateUpdate(withSpec(map[string]interface{}{"name": make(chan int)}), withSpec(map[string]interface{}{"name": "a"}))
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeInternal || !strings.Contains(errs[0].Error(), "unsupported value of Go type chan int") {
		t.Errorf("got %v, want one internal error naming chan int", errs)
	}
	// Every Go number type is a number.
	for _, v := range []interface{}{int(1), int8(1), int16(1), int32(1), int64(1), uint(1), uint8(1), uint16(1), uint32(1), uint64(1), float32(1), float64(1), json.Number("1"), json.Number("1.0"), json.Number("1e0")} {
		if errs := c.ValidateUpdate(withSpec(map[string]interface{}{"replicas": v}), withSpec(map[string]interface{}{"replicas": int64(1)})); len(errs) != 0 {
			t.Errorf("%T(%v) vs int64(1): %v", v, v, errs)
		}
	}
	// Large numbers compare exactly.
	for _, tc := range []struct {
		a, b interface{}
		eq   bool
	}{
		{int64(1 << 53), float64(1 << 53), true},
		{int64(1<<53 + 1), float64(1 << 53), false},
		{uint64(math.MaxUint64), float64(math.MaxUint64), false}, // the float rounds up to 2^64
		{uint64(1 << 63), float64(1 << 63), true},
		{json.Number("18446744073709551615"), uint64(math.MaxUint64), true},
		{float64(0), math.Copysign(0, -1), true},
		{int64(-1), uint64(math.MaxUint64), false},
	} {
		errs := c.ValidateUpdate(withSpec(map[string]interface{}{"replicas": tc.a}), withSpec(map[string]interface{}{"replicas": tc.b}))
		if (len(errs) == 0) != tc.eq {
			t.Errorf("%T(%v) vs %T(%v): got %v, want equal=%v", tc.a, tc.a, tc.b, tc.b, errs, tc.eq)
		}
	}
}

// TestNullsAndWrongTypes puts nulls and wrongly typed values at every
// property of the widget schema, on either side.
func TestNullsAndWrongTypes(t *testing.T) {
	c := widget(t)
	values := []interface{}{nil, "s", int64(1), 1.5, true, map[string]interface{}{}, []interface{}{},
		[]interface{}{nil, "a", map[string]interface{}{"name": nil}}, map[string]interface{}{"a": nil, "name": []interface{}{}},
		map[string]interface{}(nil), []interface{}(nil)}
	valid := object(t, `
spec:
  name: a
  opt: {x: a}
  tags: [a]
  groups: [{name: g, members: [a]}]
  ports: [{name: a, protocol: TCP}]
  fixedPorts: [{name: a}]
  volumes: [{name: a, path: /a}]
  labels: {a: b}
  selectors: {a: b}
  mounts: {a: {source: s}}
  args: [a]
  steps: [{image: i}]
  config: {a: b}
  template: {kind: Pod}
  extra: {id: a}
  nested: {inner: a, set: [1]}`)["spec"].(map[string]interface{})
	for prop := range valid {
		for _, v := range values {
			for _, flip := range []bool{false, true} {
				changed := map[string]interface{}{}
				for k, x := range valid {
					changed[k] = x
				}
				changed[prop] = v
				a, b := withSpec(changed), withSpec(valid)
				if flip {
					a, b = b, a
				}
				errs := c.ValidateUpdate(a, b)
				for _, e := range errs {
					if e.Type == field.ErrorTypeInternal {
						t.Errorf("%s=%#v: %v", prop, v, e)
					}
					_ = e.Error()
				}
				if errs := c.ValidateUpdate(a, a); len(errs) != 0 {
					t.Errorf("%s=%#v: reflexive: %v", prop, v, errs)
				}
			}
		}
	}
	// Null objects at the root levels.
	for _, pair := range [][2]map[string]interface{}{
		{nil, nil}, {{}, nil}, {nil, {}}, {{"spec": nil}, {"spec": nil}}, {{"spec": nil}, {"spec": map[string]interface{}{"name": "a"}}},
	} {
		if errs := c.ValidateUpdate(pair[0], pair[1]); len(errs) != 0 {
			t.Errorf("%v vs %v: %v", pair[0], pair[1], errs)
		}
	}
}

// nest returns a value nested depth levels deep: alternately lists and maps.
func nest(depth int, leaf interface{}) interface{} {
	v := leaf
	for i := 0; i < depth; i++ {
		if i%2 == 0 {
			v = []interface{}{v}
		} else {
			v = map[string]interface{}{"a": v}
		}
	}
	return v
}

// TestDeepNesting checks depth bounds: a value as deep as the API server's
// decoder allows is checked; deeper ones are reported, not overflowed.
func TestDeepNesting(t *testing.T) {
	c := widget(t)
	// config is at depth 2 (root, spec): its value may nest MaxDepth-2 levels.
	ok := runtime.MaxDepth - 3
	if errs := c.ValidateUpdate(withSpec(map[string]interface{}{"config": nest(ok, "x")}), withSpec(map[string]interface{}{"config": nest(ok, "x")})); len(errs) != 0 {
		t.Errorf("depth %d: %v", ok, errs)
	}
	errs := c.ValidateUpdate(withSpec(map[string]interface{}{"config": nest(ok, "x")}), withSpec(map[string]interface{}{"config": nest(ok, "y")}))
	if got := errorTypes(errs); len(got) != 1 || got[0] != "spec.config FieldValueInvalid" {
		t.Errorf("depth %d changed: %v", ok, got)
	}
	for _, depth := range []int{runtime.MaxDepth, 100000} {
		errs := c.ValidateUpdate(withSpec(map[string]interface{}{"config": nest(depth, "x")}), withSpec(map[string]interface{}{"config": nest(depth, "x")}))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "nested more than 10000 levels deep") {
			t.Errorf("depth %d: got %v, want one too-deep error", depth, errs)
		}
	}
	// The walk itself follows a recursive schema as deep as the object goes.
	tree := compileYAML(t, `
definitions:
  Node:
    type: object
    properties:
      id: {type: string, x-kubernetes-immutable: true}
      child: {$ref: "#/definitions/Node"}
properties:
  root: {$ref: "#/definitions/Node"}`)
	chain := func(depth int) map[string]interface{} {
		var v map[string]interface{}
		for i := 0; i < depth; i++ {
			v = map[string]interface{}{"id": "x", "child": v}
			if i == 0 {
				delete(v, "child")
			}
		}
		return map[string]interface{}{"root": v}
	}
	if errs := tree.ValidateUpdate(chain(1000), chain(1000)); len(errs) != 0 {
		t.Errorf("tree 1000: %v", errs)
	}
	errs = tree.ValidateUpdate(chain(50000), chain(50000))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "levels deep") {
		t.Errorf("tree 50000: got %v, want one too-deep error", errs)
	}
	// A cyclic Go value ends at the depth bound.
	cyc := map[string]interface{}{}
	cyc["a"] = cyc
	errs = c.ValidateUpdate(withSpec(map[string]interface{}{"config": cyc}), withSpec(map[string]interface{}{"config": cyc}))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "levels deep") {
		t.Errorf("cycle: got %v, want one too-deep error", errs)
	}
}

// TestLargeSet checks a 100,000-item set, permuted, changed and with
// duplicates.
func TestLargeSet(t *testing.T) {
	c := widget(t)
	const n = 100000
	old := make([]interface{}, n)
	for i := range old {
		old[i] = fmt.Sprintf("item-%d", i)
	}
	perm := make([]interface{}, n)
	copy(perm, old)
	rand.New(rand.NewSource(1)).Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	if errs := c.ValidateUpdate(withSpec(map[string]interface{}{"tags": perm}), withSpec(map[string]interface{}{"tags": old})); len(errs) != 0 {
		t.Errorf("permuted: %v", errorTypes(errs))
	}
	changed := make([]interface{}, n)
	copy(changed, perm)
	changed[n/2] = "other"
	if errs := c.ValidateUpdate(withSpec(map[string]interface{}{"tags": changed}), withSpec(map[string]interface{}{"tags": old})); len(errs) != 1 {
		t.Errorf("changed: %v", errorTypes(errs))
	}
	dup := make([]interface{}, n)
	copy(dup, perm)
	dup[0] = dup[1] // one item twice, one missing
	if errs := c.ValidateUpdate(withSpec(map[string]interface{}{"tags": dup}), withSpec(map[string]interface{}{"tags": old})); len(errs) != 1 {
		t.Errorf("duplicate: %v", errorTypes(errs))
	}
	// All items equal: the hash chains are long, matching stays linear
	// because every new item takes the head of its chain.
	same := make([]interface{}, n)
	for i := range same {
		same[i] = "x"
	}
	same2 := append([]interface{}{"y"}, same[1:]...)
	if errs := c.ValidateUpdate(withSpec(map[string]interface{}{"tags": same}), withSpec(map[string]interface{}{"tags": same2})); len(errs) != 1 {
		t.Errorf("all equal but one: %v", errorTypes(errs))
	}
}

// TestListMapOddItems covers list-map items without keys, with null or
// non-scalar keys, non-object items and duplicate keys.
func TestListMapOddItems(t *testing.T) {
	c := widget(t)
	cases := []struct {
		name, old, new string
		want           []string
	}{
		{"items missing keys are ignored", `ports: [{port: 1}, {name: a, protocol: TCP, port: 1}]`,
			`ports: [{name: a, protocol: TCP, port: 1}, {port: 2}]`, nil},
		{"null and object keys are no keys", `ports: [{name: null, protocol: TCP, port: 1}, {name: {a: b}, protocol: TCP}]`,
			`ports: [{name: null, protocol: TCP, port: 2}, {name: {a: b}, protocol: TCP, port: 3}]`, nil},
		{"non-object items are ignored", `ports: [1, "a", null, [1]]`, `ports: [[2], null, "b"]`, nil},
		{"duplicate keys pair in order", `ports: [{name: a, protocol: TCP, port: 1}, {name: a, protocol: TCP, port: 2}]`,
			`ports: [{name: b, protocol: TCP}, {name: a, protocol: TCP, port: 1}, {name: a, protocol: TCP, port: 3}]`,
			[]string{`spec.ports[2]: Invalid value: {"name":"a","port":3,"protocol":"TCP"}: field is immutable`}},
		{"number keys by value", `ports: [{name: 1, protocol: TCP, port: 1}]`, `ports: [{name: 1.0, protocol: TCP, port: 2}]`,
			[]string{`spec.ports[0]: Invalid value: {"name":1,"port":2,"protocol":"TCP"}: field is immutable`}},
		{"keys of duplicate items form a set", `volumes: [{name: a, path: /a}, {name: a, path: /a}]`, `volumes: [{name: a, path: /a}]`, nil},
		{"keyless items do not count as keys", `volumes: [{path: /x}, {name: a, path: /a}]`, `volumes: [{name: a, path: /a}, {size: "1"}]`, nil},
		{"mistyped keys", `volumes: [{name: true, path: /a}]`, `volumes: [{name: "true", path: /a}]`,
			[]string{
				`spec.volumes: Forbidden: key {"name":true} may not be removed: keys are immutable`,
				`spec.volumes: Forbidden: key {"name":"true"} may not be added: keys are immutable`,
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkMessages(t, c.ValidateUpdate(object(t, "spec:\n  "+tc.new), object(t, "spec:\n  "+tc.old)), tc.want)
		})
	}
}

// TestConcurrent runs one Checker from many goroutines (go test -race).
func TestConcurrent(t *testing.T) {
	c := database(t)
	oldObj, newObj := realisticPair(t)
	changed := deepCopy(newObj)
	changed["spec"].(map[string]interface{})["serviceName"] = "other"
	done := make(chan field.ErrorList)
	for i := 0; i < 8; i++ {
		go func() {
			var last field.ErrorList
			for j := 0; j < 200; j++ {
				if errs := c.ValidateUpdate(newObj, oldObj); len(errs) != 0 {
					last = errs
				}
				if errs := c.ValidateUpdate(changed, oldObj); len(errs) != 1 {
					last = errs
				}
			}
			done <- last
		}()
	}
	for i := 0; i < 8; i++ {
		if errs := <-done; errs != nil {
			t.Errorf("unexpected result: %v", errs)
		}
	}
}
