package engine

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestShareLinear: the old object's decoding compares at most
// maxShareDepth times its size with the new object's bytes, on a nest of
// walked objects as deep as the decoder allows (a recursive schema), where
// sharing at every level would compare the rest of the nest again and
// again, and on a list map of many items; it shares what is the same and
// gives the verdicts of the objects decoded on their own.
func TestShareLinear(t *testing.T) {
	immutable := spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-immutable": true}}
	str := spec.SchemaProps{Type: []string{"string"}}
	node := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
		"id":    {SchemaProps: str, VendorExtensible: immutable},
		"child": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/definitions/Node")}},
	}}}
	item := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
		"name": {SchemaProps: str},
		"id":   {SchemaProps: str, VendorExtensible: immutable},
	}}}
	list := spec.Schema{
		SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &item}},
		VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
			"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []interface{}{"name"},
		}},
	}
	root := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
		"root":  {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/definitions/Node")}},
		"items": list,
	}}}
	c, err := CompileWithDefinitions(root, spec.Definitions{"Node": node})
	if err != nil {
		t.Fatal(err)
	}
	// chain is a nest of n nodes whose innermost id is id.
	chain := func(n int, id string) string {
		return `{"root":` + strings.Repeat(`{"id":"x","child":`, n-1) + `{"id":"` + id + `"}` + strings.Repeat(`}`, n-1) + `}`
	}
	// items is a list map of n items, the last one's id id.
	items := func(n int, id string) string {
		var b strings.Builder
		b.WriteString(`{"items":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			v := "x"
			if i == n-1 {
				v = id
			}
			fmt.Fprintf(&b, `{"name":"i%d","id":"%s"}`, i, v)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	for _, tc := range []struct {
		name       string
		obj, old   string
		errors     int
		rootShared bool
	}{
		{"deep nest, the same", chain(9990, "x"), chain(9990, "x"), 0, true},
		{"deep nest, differing at the bottom", chain(9990, "y"), chain(9990, "x"), 1, false},
		{"50,000 items, the same", items(50000, "x"), items(50000, "x"), 0, true},
		{"50,000 items, the last differing", items(50000, "y"), items(50000, "x"), 1, false},
	} {
		for _, trusted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/trusted=%v", tc.name, trusted), func(t *testing.T) {
				tab := &spanTable{data: []byte(tc.obj)}
				obj, err := c.decodeWith([]byte(tc.obj), nil, trusted, false, tab, nil)
				if err != nil {
					t.Fatal(err)
				}
				tab.sort()
				old, err := c.decodeWith([]byte(tc.old), obj, trusted, true, nil, tab)
				if err != nil {
					t.Fatal(err)
				}
				if limit := maxShareDepth * len(tc.old); tab.compared > limit {
					t.Errorf("compared %d bytes, more than %d times the old object's %d", tab.compared, maxShareDepth, len(tc.old))
				}
				if shared := identity(obj) == identity(old); shared != tc.rootShared {
					t.Errorf("root shared: %v, want %v", shared, tc.rootShared)
				}
				alone, err := c.DecodeObject([]byte(tc.old))
				if err != nil {
					t.Fatal(err)
				}
				want, got := c.ValidateUpdate(obj, alone), c.ValidateUpdate(obj, old)
				if len(want) != tc.errors || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("verdict %v, decoded on its own %v (want %d errors)", got, want, tc.errors)
				}
			})
		}
	}
}

// TestSpanTableFind: a value is found by its address at the depth it was
// built at, and not at all where its address was recorded twice (the
// memory of a value the decoder dropped, given to a later one).
func TestSpanTableFind(t *testing.T) {
	data := []byte(`{"a":{"b":1},"c":[1,2]}`)
	a, c, d := map[string]interface{}{"b": int64(1)}, []interface{}{int64(1), int64(2)}, map[string]interface{}{}
	for _, tc := range []struct {
		name   string
		spans  []builtSpan
		v      interface{}
		depth  int
		want   string
		wantOK bool
	}{
		{"found", []builtSpan{{identity(a), 5, 12, 2}, {identity(c), 17, 22, 2}}, a, 2, `{"b":1}`, true},
		{"a list", []builtSpan{{identity(a), 5, 12, 2}, {identity(c), 17, 22, 2}}, c, 2, `[1,2]`, true},
		{"another depth", []builtSpan{{identity(a), 5, 12, 2}}, a, 3, "", false},
		{"not recorded", []builtSpan{{identity(a), 5, 12, 2}}, d, 2, "", false},
		{"recorded twice", []builtSpan{{identity(a), 5, 12, 2}, {identity(a), 17, 22, 2}}, a, 2, "", false},
		{"an empty list", []builtSpan{{identity(a), 5, 12, 2}}, []interface{}{}, 2, "", false},
		{"a scalar", []builtSpan{{identity(a), 5, 12, 2}}, "x", 2, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := &spanTable{data: data, spans: tc.spans}
			tab.sort()
			b, ok := tab.find(tc.v, tc.depth)
			if ok != tc.wantOK || string(b) != tc.want {
				t.Errorf("find = %q, %v; want %q, %v", b, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestOldCanonicalScan: the old object's value kept as bytes that differ
// from the new one's is scanned once for its canonical form, which
// checks its syntax too (decoder.raw): canonical bytes are marked so
// (rawValue.canon), anything else is checked as before, and the verdicts
// and errors are those of the objects decoded on their own, in both
// modes.
func TestOldCanonicalScan(t *testing.T) {
	whole := spec.Schema{
		SchemaProps:      spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true}},
		VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-immutable": true}},
	}
	root := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{"spec": whole}}}
	c, err := Compile(root)
	if err != nil {
		t.Fatal(err)
	}
	const obj = `{"spec":{"a":1,"b":["x","y"]}}`
	for _, tc := range []struct {
		name, old string
		canon     bool // the old value is marked canonical
		changed   bool // the verdict: spec changed
		err       bool // the old object is refused
	}{
		{name: "canonical, another value", old: `{"spec":{"a":2,"b":["x","y"]}}`, canon: true, changed: true},
		{name: "canonical, keys missing", old: `{"spec":{"a":1}}`, canon: true, changed: true},
		{name: "spaces, the same value", old: `{"spec":{"b":["x","y"], "a":1}}`, changed: false},
		{name: "keys out of order, the same value", old: `{"spec":{"b":["x","y"],"a":1}}`, changed: false},
		{name: "1.0 for 1", old: `{"spec":{"a":1.0,"b":["x","y"]}}`, changed: false},
		{name: "escaped, the same value", old: `{"spec":{"a":1,"b":["\u0078","y"]}}`, changed: false},
		{name: "HTML character", old: `{"spec":{"a":"<","b":["x","y"]}}`, changed: true},
		{name: "duplicate keys", old: `{"spec":{"a":2,"a":1,"b":["x","y"]}}`, changed: false},
		{name: "invalid after a canonical prefix", old: `{"spec":{"a":1,"b":["x","y"}}`, err: true},
		{name: "invalid string", old: `{"spec":{"a":1,"b":["x","\q"]}}`, err: true},
		{name: "number beyond float64", old: `{"spec":{"a":1e999,"b":["x","y"]}}`, err: true},
	} {
		for _, trusted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/trusted=%v", tc.name, trusted), func(t *testing.T) {
				n, o, errNew, errOld := c.DecodeUpdate([]byte(obj), []byte(tc.old), trusted)
				if errNew != nil {
					t.Fatal(errNew)
				}
				if (errOld != nil) != tc.err {
					t.Fatalf("old object's error %v, want an error: %v", errOld, tc.err)
				}
				if tc.err {
					return
				}
				r, ok := o["spec"].(*rawValue)
				if !ok {
					t.Fatalf("old spec is %T, want a *rawValue", o["spec"])
				}
				if r.canon != tc.canon {
					t.Errorf("canon = %v, want %v", r.canon, tc.canon)
				}
				if r.canon && !canonical(&rawValue{data: r.data, depth: r.depth}) {
					t.Errorf("marked canonical, but canonical scans %s as not", r.data)
				}
				if errs := c.ValidateUpdate(n, o); (len(errs) > 0) != tc.changed {
					t.Errorf("errors %v, want a change reported: %v", errs, tc.changed)
				}
			})
		}
	}
}

// TestLazyValue: in DecodeUpdate's trusted mode, a list map of whole
// items and an object whose walked members are compared whole are kept as
// their bytes in the new object (lazyValue), shared by the old object
// where its bytes are the same and read where they are not or where the
// walk meets them beside anything else; the errors of each update are
// those of the objects decoded on their own, in both modes.
func TestLazyValue(t *testing.T) {
	immutable := spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-immutable": true}}
	item := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
		"name": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
		"port": {SchemaProps: spec.SchemaProps{Type: []string{"integer"}}},
	}}, VendorExtensible: immutable}
	ports := spec.Schema{
		SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &item}},
		VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
			"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []interface{}{"name"},
		}},
	}
	// labels: a map of immutable values; pinned: an object with an
	// immutable property and a mutable one.
	labels := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: &spec.Schema{
		SchemaProps: spec.SchemaProps{Type: []string{"string"}}, VendorExtensible: immutable,
	}}}}
	pinned := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
		"id":   {SchemaProps: spec.SchemaProps{Type: []string{"string"}}, VendorExtensible: immutable},
		"note": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
	}}}
	specSchema := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
		"ports":    ports,
		"labels":   labels,
		"pinned":   pinned,
		"replicas": {SchemaProps: spec.SchemaProps{Type: []string{"integer"}}},
	}}}
	root := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{"spec": specSchema}}}
	c, err := Compile(root)
	if err != nil {
		t.Fatal(err)
	}
	const ports2 = `[{"name":"a","port":1},{"name":"b","port":2}]`
	obj := func(ports string) string { return `{"spec":{"ports":` + ports + `,"replicas":3}}` }
	for _, tc := range []struct {
		name, obj, old string
		at             string // the property of spec kept as bytes: ports if ""
		shared         bool   // the old object holds the new one's lazyValue
		errs           int    // the errors of the objects decoded on their own
		// firstShared: the old list, read, holds the new list's first
		// item, read from the lazyValue (the bytes of the rest differ).
		firstShared bool
	}{
		{name: "unchanged list, replicas changed", obj: obj(ports2), old: `{"spec":{"ports":` + ports2 + `,"replicas":4}}`, shared: true},
		{name: "reordered", obj: obj(ports2), old: obj(`[{"name":"b","port":2},{"name":"a","port":1}]`)},
		{name: "an item changed", obj: obj(ports2), old: obj(`[{"name":"a","port":1},{"name":"b","port":3}]`), errs: 1, firstShared: true},
		{name: "an item respelt", obj: obj(ports2), old: obj(`[{"name":"a","port":1.0},{"port":2,"name":"b"}]`)},
		{name: "an item added", obj: obj(ports2), old: obj(`[{"name":"a","port":1}]`)},
		{name: "an item removed", obj: obj(`[{"name":"a","port":1}]`), old: obj(ports2)},
		{name: "absent in the old object", obj: obj(ports2), old: `{"spec":{"replicas":3}}`},
		{name: "null in the old object", obj: obj(ports2), old: obj(`null`)},
		{name: "an object in the old object", obj: obj(ports2), old: obj(`{"name":"a"}`)},
		{name: "duplicate keys", obj: obj(`[{"name":"a","port":1},{"name":"a","port":2}]`), old: obj(`[{"name":"a","port":2},{"name":"a","port":1}]`), errs: 2},
		{name: "duplicate members, the last differs", obj: obj(ports2), old: `{"spec":{"ports":` + ports2 + `,"ports":[],"replicas":3}}`},
		{name: "items that are not objects", obj: obj(`["a",1,null]`), old: obj(`["a",2,null]`)},
		{name: "empty", obj: obj(`[]`), old: obj(ports2)},
		{name: "a number beyond float64", obj: obj(`[{"name":"a","port":1e999}]`), old: obj(ports2)},
		{name: "in the old object, a number beyond float64", obj: obj(ports2), old: obj(`[{"name":"a","port":1e999}]`)},
		{name: "map: unchanged", obj: `{"spec":{"labels":{"a":"1","b":"2"},"replicas":3}}`, old: `{"spec":{"labels":{"a":"1","b":"2"},"replicas":4}}`, at: "labels", shared: true},
		{name: "map: a value changed", obj: `{"spec":{"labels":{"a":"1","b":"2"}}}`, old: `{"spec":{"labels":{"a":"1","b":"3"}}}`, at: "labels", errs: 1},
		{name: "map: keys reordered, a key added", obj: `{"spec":{"labels":{"a":"1","b":"2","c":"3"}}}`, old: `{"spec":{"labels":{"b":"2","a":"1"}}}`, at: "labels"},
		{name: "map: duplicate keys", obj: `{"spec":{"labels":{"a":"1","a":"2"}}}`, old: `{"spec":{"labels":{"a":"2","a":"1"}}}`, at: "labels", errs: 1},
		{name: "map: a list in the old object", obj: `{"spec":{"labels":{"a":"1"}}}`, old: `{"spec":{"labels":["a"]}}`, at: "labels"},
		{name: "object: unchanged", obj: `{"spec":{"pinned":{"id":"x","note":"n"},"replicas":3}}`, old: `{"spec":{"pinned":{"id":"x","note":"n"},"replicas":4}}`, at: "pinned", shared: true},
		{name: "object: the mutable property changed", obj: `{"spec":{"pinned":{"id":"x","note":"n"}}}`, old: `{"spec":{"pinned":{"id":"x","note":"m"}}}`, at: "pinned"},
		{name: "object: the immutable property changed", obj: `{"spec":{"pinned":{"id":"x","note":"n"}}}`, old: `{"spec":{"pinned":{"id":"y","note":"n"}}}`, at: "pinned", errs: 1},
		{name: "object: the immutable property removed", obj: `{"spec":{"pinned":{"note":"n"}}}`, old: `{"spec":{"pinned":{"id":"y","note":"n"}}}`, at: "pinned", errs: 1},
		{name: "object: null in the old object", obj: `{"spec":{"pinned":{"id":"x"}}}`, old: `{"spec":{"pinned":null}}`, at: "pinned"},
	} {
		for _, trusted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/trusted=%v", tc.name, trusted), func(t *testing.T) {
				wn, errN := c.decodeObject([]byte(tc.obj), nil, false, false)
				var wo map[string]interface{}
				var errO error
				if errN == nil {
					wo, errO = c.decodeObject([]byte(tc.old), nil, false, true)
				}
				n, o, errNew, errOld := c.DecodeUpdate([]byte(tc.obj), []byte(tc.old), trusted)
				if (errN == nil) != (errNew == nil) || (errO == nil) != (errOld == nil) {
					t.Fatalf("errors %v, %v; decoded on their own: %v, %v", errNew, errOld, errN, errO)
				}
				if errN != nil || errO != nil {
					return
				}
				at := tc.at
				if at == "" {
					at = "ports"
				}
				_, lazy := n["spec"].(map[string]interface{})[at].(*lazyValue)
				if lazy != trusted {
					t.Errorf("new %s kept as bytes: %v, want %v", at, lazy, trusted)
				}
				if trusted {
					os, _ := o["spec"].(map[string]interface{})
					if shared := os != nil && os[at] == n["spec"].(map[string]interface{})[at]; shared != tc.shared {
						t.Errorf("shared: %v, want %v", shared, tc.shared)
					}
				}
				if tc.firstShared && trusted {
					nl, _ := n["spec"].(map[string]interface{})[at].(*lazyValue).value().([]interface{})
					ol, _ := o["spec"].(map[string]interface{})[at].([]interface{})
					if len(nl) == 0 || len(ol) == 0 || nl[0] != ol[0] {
						t.Errorf("the first item is not shared: new %v, old %v", nl, ol)
					}
				}
				want, got := c.ValidateUpdate(wn, wo), c.ValidateUpdate(n, o)
				if len(want) != tc.errs {
					t.Errorf("decoded on their own: %d errors, want %d: %v", len(want), tc.errs, want)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("errors\n  %v\nwant (decoded on their own)\n  %v", got, want)
				}
			})
		}
	}
}
