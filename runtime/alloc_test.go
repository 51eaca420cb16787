package runtime_test

import (
	"encoding/json"
	"testing"
)

// TestNoAllocationWhenUnchanged proves that an update that changes nothing
// costs no allocation, on the realistic object and on the rule schema.
func TestNoAllocationWhenUnchanged(t *testing.T) {
	c := database(t)
	oldObj, newObj := realisticPair(t)
	if errs := c.ValidateUpdate(newObj, oldObj); len(errs) != 0 {
		t.Fatalf("unchanged object: %v", errs)
	}
	if n := testing.AllocsPerRun(100, func() { c.ValidateUpdate(newObj, oldObj) }); n != 0 {
		t.Errorf("ValidateUpdate allocates %v times per unchanged update, want 0", n)
	}

	// Mutable fields changed: still nothing to report, still no allocation
	// (list maps and sets keep their order).
	spec := newObj["spec"].(map[string]interface{})
	spec["replicas"] = int64(5)
	spec["template"].(map[string]interface{})["spec"].(map[string]interface{})["containers"].([]interface{})[0].(map[string]interface{})["image"] = "postgres:17"
	if errs := c.ValidateUpdate(newObj, oldObj); len(errs) != 0 {
		t.Fatalf("mutable change: %v", errs)
	}
	if n := testing.AllocsPerRun(100, func() { c.ValidateUpdate(newObj, oldObj) }); n != 0 {
		t.Errorf("ValidateUpdate allocates %v times per allowed update, want 0", n)
	}

	// Objects decoded with DecodeObject: the values compared whole are
	// compared as bytes, without decoding them.
	raw, err := json.Marshal(oldObj)
	if err != nil {
		t.Fatal(err)
	}
	dold, err1 := c.DecodeObject(raw)
	dnew, err2 := c.DecodeObject(raw)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if n := testing.AllocsPerRun(100, func() { c.ValidateUpdate(dnew, dold) }); n != 0 {
		t.Errorf("ValidateUpdate allocates %v times per unchanged update of decoded objects, want 0", n)
	}

	w := widget(t)
	wold := object(t, `
spec:
  name: a
  replicas: 1
  opt: {x: a}
  tags: [a, b, c]
  groups: [{name: g, members: [a, b]}]
  ports: [{name: a, protocol: TCP, port: 1}, {name: b, protocol: UDP, port: 2}]
  fixedPorts: [{name: a, port: 1}]
  volumes: [{name: a, path: /a}, {name: b, path: /b}]
  labels: {a: b, c: d}
  selectors: {a: b}
  mounts: {m: {source: s}}
  args: [a, b]
  steps: [{image: i, retries: 1}]
  config: {a: [1, {b: c}]}
  template: {apiVersion: v1, kind: Pod}
  extra: {id: a, more: 1}
  nested: {inner: a, set: [1, 2]}`)
	wnew := deepCopy(wold)
	if n := testing.AllocsPerRun(100, func() { w.ValidateUpdate(wnew, wold) }); n != 0 {
		t.Errorf("ValidateUpdate allocates %v times on the rule schema, want 0", n)
	}
}

// TestAllocationsByShape: on every shape, an allowed update allocates
// nothing and one violation allocates at most what its error holds (10
// allocations), on objects decoded in full and on objects decoded with
// DecodeObject and DecodeOldObject, as the webhook decodes them.
func TestAllocationsByShape(t *testing.T) {
	c := shapes(t)
	for _, u := range shapesUpdates {
		obj, old, objJSON, oldJSON := shapesPair(t, 8, u)
		dobj, err1 := c.DecodeObject(objJSON)
		dold, err2 := c.DecodeOldObject(oldJSON, dobj)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for _, in := range []struct {
			name     string
			obj, old map[string]interface{}
		}{{"decoded in full", obj, old}, {"DecodeObject", dobj, dold}} {
			t.Run(u.name+"/"+in.name, func(t *testing.T) {
				if errs := c.ValidateUpdate(in.obj, in.old); len(errs) != u.errors {
					t.Fatalf("%d errors, want %d: %v", len(errs), u.errors, errs)
				}
				limit := 0.0
				if u.errors > 0 {
					limit = 10
				}
				check := c.ValidateUpdate
				if in.name == "DecodeObject" && u.errors > 0 {
					// The webhook's check: a changed value kept as bytes is
					// reported by its bytes, where ValidateUpdate decodes it
					// for the error to hold.
					check = c.ValidateUpdateMarshaled
				}
				n := testing.AllocsPerRun(50, func() { check(in.obj, in.old) })
				t.Logf("%v allocations", n)
				if n > limit {
					t.Errorf("ValidateUpdate allocates %v times, want at most %v", n, limit)
				}
			})
		}
	}
}
