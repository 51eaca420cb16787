package runtime_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// shapes compiles testdata/shapes/schema.yaml: one property per shape the
// runtime enforces (issue 34).
func shapes(t testing.TB) *runtime.Checker {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "shapes", "schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return compileYAML(t, string(b))
}

// shapesObject returns an object of the shapes schema with n items in each
// list and map.
func shapesObject(n int) map[string]interface{} {
	var containers, ports, volumes, deps, tags, workers, matrix []interface{}
	selectors, mounts := map[string]interface{}{}, map[string]interface{}{}
	for i := 0; i < n; i++ {
		containers = append(containers, map[string]interface{}{
			"name": fmt.Sprintf("c%d", i), "image": fmt.Sprintf("registry.example.com/team/app-%d:v1.2.3", i),
			"args": []interface{}{"--port=8080", "--log-level=info"}, "port": int64(8080 + i),
		})
		ports = append(ports, map[string]interface{}{"name": fmt.Sprintf("p%d", i), "protocol": "TCP", "port": int64(80 + i)})
		volumes = append(volumes, map[string]interface{}{"name": fmt.Sprintf("v%d", i), "path": fmt.Sprintf("/var/lib/v%d", i), "size": "1Gi"})
		deps = append(deps, map[string]interface{}{"name": fmt.Sprintf("d%d", i), "version": fmt.Sprintf("1.%d.0", i)})
		tags = append(tags, fmt.Sprintf("tag-%02d.example.com", i))
		workers = append(workers, map[string]interface{}{"name": fmt.Sprintf("w%d", i), "image": fmt.Sprintf("worker:%d", i), "replicas": int64(1)})
		selectors[fmt.Sprintf("s%d", i)] = map[string]interface{}{"key": fmt.Sprintf("app.kubernetes.io/s%d", i), "values": []interface{}{"a", "b"}}
		mounts[fmt.Sprintf("m%d", i)] = map[string]interface{}{"source": fmt.Sprintf("/src/%d", i), "readOnly": true}
		if i%4 == 0 {
			matrix = append(matrix, []interface{}{fmt.Sprintf("r%d-a", i), fmt.Sprintf("r%d-b", i), fmt.Sprintf("r%d-c", i)})
		}
	}
	return map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Shapes",
		"metadata": map[string]interface{}{"name": "x", "namespace": "y"},
		"spec": map[string]interface{}{
			"id": "abc", "zone": "eu-1", "replicas": int64(3),
			"containers": containers, "ports": ports, "volumes": volumes, "deps": deps, "tags": tags,
			"selectors": selectors, "mounts": mounts, "workers": workers, "matrix": matrix,
		},
	}
}

// shapesUpdate is an update of a shapes object: what it changes, and the
// errors it gets.
type shapesUpdate struct {
	name   string
	change func(spec map[string]interface{})
	errors int
}

// shapesUpdates are the allowed updates of every shape, and a violation of
// each.
var shapesUpdates = []shapesUpdate{
	{"unchanged", func(map[string]interface{}) {}, 0},
	{"mutable field", func(s map[string]interface{}) { s["replicas"] = int64(5) }, 0},
	{"reordered set", func(s map[string]interface{}) { s["tags"] = reversed(s["tags"].([]interface{})) }, 0},
	{"reordered keys list map", func(s map[string]interface{}) { s["volumes"] = reversed(s["volumes"].([]interface{})) }, 0},
	{"reordered ignoreOrder list map", func(s map[string]interface{}) { s["deps"] = reversed(s["deps"].([]interface{})) }, 0},
	{"reordered immutable items", func(s map[string]interface{}) { s["ports"] = reversed(s["ports"].([]interface{})) }, 0},
	{"reordered items with a mutable field", func(s map[string]interface{}) { s["workers"] = reversed(s["workers"].([]interface{})) }, 0},
	{"reordered sets in a list", func(s map[string]interface{}) {
		for _, row := range s["matrix"].([]interface{}) {
			row := row.([]interface{})
			row[0], row[2] = row[2], row[0]
		}
	}, 0},
	{"mutable field in a list-map item", func(s map[string]interface{}) {
		s["workers"].([]interface{})[1].(map[string]interface{})["replicas"] = int64(7)
		s["volumes"].([]interface{})[1].(map[string]interface{})["size"] = "2Gi"
	}, 0},
	{"mutable field in a map value", func(s map[string]interface{}) {
		s["mounts"].(map[string]interface{})["m1"].(map[string]interface{})["readOnly"] = false
	}, 0},
	{"scalar changed", func(s map[string]interface{}) { s["id"] = "abd" }, 1},
	{"reordered immutable list map", func(s map[string]interface{}) {
		s["containers"] = reversed(s["containers"].([]interface{}))
	}, 1},
	{"set item changed", func(s map[string]interface{}) { s["tags"].([]interface{})[0] = "other" }, 1},
	{"ignoreOrder item changed", func(s map[string]interface{}) {
		s["deps"].([]interface{})[0].(map[string]interface{})["version"] = "9"
	}, 1},
	{"a set in a list changed", func(s map[string]interface{}) {
		s["matrix"].([]interface{})[1].([]interface{})[0] = "x"
	}, 1},
	{"immutable item changed", func(s map[string]interface{}) {
		s["ports"].([]interface{})[0].(map[string]interface{})["port"] = int64(1)
	}, 1},
	{"map value changed", func(s map[string]interface{}) {
		s["selectors"].(map[string]interface{})["s0"].(map[string]interface{})["key"] = "k"
	}, 1},
	{"key added", func(s map[string]interface{}) {
		s["volumes"] = append(s["volumes"].([]interface{}), map[string]interface{}{"name": "new", "path": "/new"})
	}, 1},
	{"immutable field in a list-map item", func(s map[string]interface{}) {
		s["workers"].([]interface{})[1].(map[string]interface{})["image"] = "worker:x"
	}, 1},
}

// shapesPair returns a shapes object of n items and its update by u, as
// the API server decodes them and as JSON.
func shapesPair(t testing.TB, n int, u shapesUpdate) (obj, old map[string]interface{}, objJSON, oldJSON []byte) {
	t.Helper()
	old = shapesObject(n)
	obj = deepCopy(old)
	u.change(obj["spec"].(map[string]interface{}))
	var err error
	if oldJSON, err = json.Marshal(old); err != nil {
		t.Fatal(err)
	}
	if objJSON, err = json.Marshal(obj); err != nil {
		t.Fatal(err)
	}
	if obj, err = fullDecode(objJSON); err != nil {
		t.Fatal(err)
	}
	if old, err = fullDecode(oldJSON); err != nil {
		t.Fatal(err)
	}
	return obj, old, objJSON, oldJSON
}

// shapesSchema returns the shapes schema, for generating objects.
func shapesSchema(t testing.TB) *spec.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "shapes", "schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return schemaFromYAML(t, string(b))
}

// TestShapesDifferential: every update of shapesUpdates, and random
// objects of the shapes schema with one spot changed, get the same
// verdict from DecodeObject's results (validating and trusted modes) as
// from the full decode, in encoding/json's bytes and respelled (keys in
// another order, 1.0 for 1, escapes, white space, sets and ignoreOrder
// list maps reordered), where sets and list maps compare by their items'
// canonical bytes.
func TestShapesDifferential(t *testing.T) {
	c := shapes(t)
	s := shapesSchema(t)
	r := rand.New(rand.NewSource(34))
	for _, u := range shapesUpdates {
		t.Run(u.name, func(t *testing.T) {
			obj, old, objJSON, oldJSON := shapesPair(t, 8, u)
			sameVerdict(t, c, objJSON, oldJSON)
			sameVerdict(t, c, oldJSON, objJSON)
			for i := 0; i < 4; i++ {
				ro, rold := respelled(obj, s, r), respelled(old, s, r)
				sameVerdict(t, c, ro, oldJSON)
				sameVerdict(t, c, objJSON, rold)
				sameVerdict(t, c, ro, rold)
				allowedDecoded(t, c, respelled(old, s, r), oldJSON)
				allowedDecoded(t, c, respelled(obj, s, r), objJSON)
			}
		})
	}
	denied := 0
	for i := 0; i < 150; i++ {
		b := make([]byte, 64+r.Intn(256))
		r.Read(b)
		g := &gen{b: b}
		a, bb := g.object(s), g.object(s)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(bb)
		sameVerdict(t, c, ja, jb)
		changedObj := changeInside(deepCopy(a), r.Intn(16))
		changed, _ := json.Marshal(changedObj)
		sameVerdict(t, c, changed, ja)
		if m, ok := changedObj.(map[string]interface{}); ok {
			sameVerdict(t, c, respelled(m, s, r), respelled(a, s, r))
			if len(c.ValidateUpdate(m, a)) > 0 {
				denied++
			}
		}
		ra := respelled(a, s, r)
		sameVerdict(t, c, ra, ja)
		allowedDecoded(t, c, ra, ja)
	}
	if denied < 15 {
		t.Errorf("only %d of 150 changed objects are violations: the test says little", denied)
	}
}

// FuzzShapes: objects of the shapes schema from the fuzzer's bytes, as
// TestShapesDifferential checks them.
func FuzzShapes(f *testing.F) {
	f.Add([]byte("spec"), int64(1))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}, int64(7))
	f.Add([]byte(`{"spec":{"tags":["a","b","a"],"deps":[{"name":"a","version":"1"},{"name":"a"}],"selectors":{"a":{"key":"k","values":["x"]}}}}`), int64(3))
	// Objects that share values with the fuzzer's objects byte for byte
	// beside changed ones (DecodeUpdate), as in TestDecodeUpdateShares.
	for _, u := range shapesUpdates {
		_, _, obj, _ := shapesPair(f, 8, u)
		f.Add(obj, int64(len(u.name)))
	}
	s := shapesSchema(f)
	c := shapes(f)
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		r := rand.New(rand.NewSource(seed))
		g := &gen{b: data}
		x, y := g.object(s), g.object(s)
		jx, _ := json.Marshal(x)
		jy, _ := json.Marshal(y)
		sameVerdict(t, c, jx, jy)
		rx := respelled(x, s, r)
		sameVerdict(t, c, rx, jx)
		allowedDecoded(t, c, rx, jx)
		sameVerdict(t, c, respelled(y, s, r), rx)
		changedObj := changeInside(deepCopy(x), int(seed&0xff))
		if m, ok := changedObj.(map[string]interface{}); ok {
			cj, _ := json.Marshal(m)
			sameVerdict(t, c, cj, jx)
			sameVerdict(t, c, respelled(m, s, r), rx)
		}
		sameVerdict(t, c, data, jx)
		// x with its mutable replicas changed: the rest of the old object
		// is byte-identical, shared by DecodeUpdate.
		if sp, ok := x["spec"].(map[string]interface{}); ok {
			mx := deepCopy(x)
			mx["spec"] = deepCopy(sp)
			mx["spec"].(map[string]interface{})["replicas"] = seed
			mj, _ := json.Marshal(mx)
			sameVerdict(t, c, mj, jx)
			sameVerdict(t, c, jx, mj)
		}
	})
}
