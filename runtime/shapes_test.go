package runtime_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
	var containers, ports, volumes, deps, tags, workers []interface{}
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
	}
	return map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Shapes",
		"metadata": map[string]interface{}{"name": "x", "namespace": "y"},
		"spec": map[string]interface{}{
			"id": "abc", "zone": "eu-1", "replicas": int64(3),
			"containers": containers, "ports": ports, "volumes": volumes, "deps": deps, "tags": tags,
			"selectors": selectors, "mounts": mounts, "workers": workers,
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
