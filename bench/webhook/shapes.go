package main

import (
	"fmt"
	"sort"
)

// shapeObject returns a Shape (testdata/shapes-crd.yaml) of about 9 KB as
// a cluster stores it: a list map immutable whole of 4.2 KB (containers), a
// list map of 1.9 KB whose items are immutable (ports), a map of 1.1 KB
// whose values are immutable (selectors), a set of 1.1 KB immutable whole
// (hosts), immutable scalars, and beside them mutable fields, metadata and
// status. class and replicas are what the request mixes change.
func shapeObject(class string, replicas int64) map[string]interface{} {
	containers := make([]interface{}, 0, 7)
	for c := 0; c < 7; c++ {
		env := make([]interface{}, 0, 8)
		for e := 0; e < 8; e++ {
			env = append(env, map[string]interface{}{"name": fmt.Sprintf("SETTING_%d_%02d", c, e), "value": fmt.Sprintf("value-%d-%02d-abc", c, e)})
		}
		containers = append(containers, map[string]interface{}{
			"name":  fmt.Sprintf("container-%d", c),
			"image": fmt.Sprintf("registry.example.com/team/app-%d:v1.2.3", c),
			"args":  []interface{}{"--port=8080", "--log-level=info", "--metrics-bind-address=:9090"},
			"env":   env,
			"ports": []interface{}{map[string]interface{}{"containerPort": int64(8080 + c), "protocol": "TCP"}},
		})
	}
	ports := make([]interface{}, 0, 28)
	for p := 0; p < 28; p++ {
		ports = append(ports, map[string]interface{}{"name": fmt.Sprintf("port-%02d", p), "protocol": "TCP", "port": int64(8000 + p), "targetPort": int64(9000 + p)})
	}
	selectors := map[string]interface{}{}
	for s := 0; s < 14; s++ {
		selectors[fmt.Sprintf("selector-%02d", s)] = map[string]interface{}{"key": fmt.Sprintf("app.kubernetes.io/s%02d", s), "operator": "In", "values": []interface{}{"a", "b"}}
	}
	hosts := make([]interface{}, 0, 41)
	for h := 0; h < 41; h++ {
		hosts = append(hosts, fmt.Sprintf("node-%04d.zone-a.example", h))
	}
	backends := make([]interface{}, 0, 4)
	for b := 0; b < 4; b++ {
		backends = append(backends, map[string]interface{}{"name": fmt.Sprintf("backend-%d", b), "weight": int64(25)})
	}
	return map[string]interface{}{
		"apiVersion": "bench.immutable-gen.io/v1",
		"kind":       "Shape",
		"metadata": map[string]interface{}{
			"name": "checkout", "namespace": "shop", "uid": "6b0f3e5e-8d7e-4f3c-9a55-0c6f1f0b2a11",
			"resourceVersion": "123456", "generation": int64(7), "creationTimestamp": "2026-01-02T03:04:05Z",
			"labels": map[string]interface{}{"app.kubernetes.io/name": "checkout", "app.kubernetes.io/part-of": "shop"},
		},
		"spec": map[string]interface{}{
			"class": class, "zone": "eu-west-1a", "shards": int64(4), "replicas": replicas, "paused": false,
			"containers": containers, "ports": ports, "selectors": selectors, "hosts": hosts, "backends": backends,
		},
		"status": map[string]interface{}{
			"observedGeneration": int64(7), "ready": replicas,
			"conditions": []interface{}{map[string]interface{}{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "lastTransitionTime": "2026-01-02T03:04:05Z"}},
		},
	}
}

// The Shape request mixes: kind says which updates a mix holds.
const (
	shapesMixed     = "shapes"           // unchanged, mutable change, reordered set and list maps, denied
	shapesUnchanged = "shapes-unchanged" // the object unchanged
	shapesMutable   = "shapes-mutable"   // replicas and a backend's weight changed
	shapesDenied    = "shapes-denied"    // a container's image changed
)

// shapeRequests builds a Shape mix. The mixed one is, of every four
// updates, three allowed (nothing changed; replicas and a list-map item's
// mutable field changed; the set, the list map of immutable items and the
// map's keys reordered in the JSON, which is no change) and one denied (an
// image in the list map immutable whole); the others hold one kind of
// update each, for the goals of issue 34.
func shapeRequests(kind string) mix {
	old := shapeObject("gold", 3)
	var m mix
	m.objectSize = len(mustJSON(old))
	m.immutableSize = shapeImmutableBytes(old)
	add := func(deny bool, obj map[string]interface{}) {
		m.add(deny, reviewBody(fmt.Sprintf("uid-%d", len(m.bodies)), "Shape", obj, old, "shapes"))
	}
	unchanged := func() map[string]interface{} { return shapeObject("gold", 3) }
	mutable := func() map[string]interface{} {
		obj := shapeObject("gold", 5)
		spec := obj["spec"].(map[string]interface{})
		spec["backends"].([]interface{})[1].(map[string]interface{})["weight"] = int64(40)
		return obj
	}
	reordered := func() map[string]interface{} {
		obj := shapeObject("gold", 3)
		spec := obj["spec"].(map[string]interface{})
		hosts := spec["hosts"].([]interface{})
		sort.Slice(hosts, func(i, j int) bool { return hosts[i].(string) > hosts[j].(string) })
		ports := spec["ports"].([]interface{})
		for i, j := 0, len(ports)-1; i < j; i, j = i+1, j-1 {
			ports[i], ports[j] = ports[j], ports[i]
		}
		return obj
	}
	denied := func() map[string]interface{} {
		obj := shapeObject("gold", 3)
		obj["spec"].(map[string]interface{})["containers"].([]interface{})[2].(map[string]interface{})["image"] = "registry.example.com/team/app-2:v1.2.4"
		return obj
	}
	switch kind {
	case shapesUnchanged:
		add(false, unchanged())
	case shapesMutable:
		add(false, mutable())
	case shapesDenied:
		add(true, denied())
	default:
		add(false, unchanged())
		add(false, mutable())
		add(false, reordered())
		add(true, denied())
	}
	return m
}

// shapeImmutableBytes is the size of the JSON of the Shape's immutable
// parts.
func shapeImmutableBytes(obj map[string]interface{}) int {
	spec := obj["spec"].(map[string]interface{})
	n := 0
	for _, k := range []string{"class", "zone", "shards", "containers", "ports", "selectors", "hosts"} {
		n += len(mustJSON(spec[k]))
	}
	return n
}
