package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// A place is a schema node of a generated CRD: where a rule landed, or
// where a marker will.
type place struct {
	crd, version string
	// path runs from the version's openAPIV3Schema: property names, "[]"
	// for list items, "{}" for map values.
	path []string
	node map[string]any
	// required reports whether the node is a required property of its
	// parent (false for items and map values).
	required bool
}

func (p place) String() string { return p.crd + " " + p.version + " " + pathString(p.path) }

// pathString renders a schema path as field paths read: spec.ports[].name.
func pathString(path []string) string {
	var b strings.Builder
	for _, s := range path {
		switch s {
		case "[]", "{}":
			b.WriteString(s)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
	}
	return b.String()
}

// child returns the place of the property name below p, if the schema has
// one.
func (p place) child(name string) (place, bool) {
	props, _ := p.node["properties"].(map[string]any)
	n, ok := props[name].(map[string]any)
	if !ok {
		return place{}, false
	}
	req, _ := p.node["required"].([]any)
	return place{crd: p.crd, version: p.version, path: append(slices.Clip(p.path), name), node: n, required: slices.Contains(req, any(name))}, true
}

// probeMessage is the message of the rule that marks where site i lands.
func probeMessage(i int) string { return fmt.Sprintf("immutable-gen-migrate-probe-%d", i) }

// probeLine is the marker line of a probe rule with the message msg
// (probeMessage, useProbeMessage) in a probe run.
func probeLine(msg string) string {
	return fmt.Sprintf("+%s:rule=%q,message=%q", xvalidation, "true", msg)
}

// findProbes returns, for each probe message in the CRDs, the places that
// carry it, in CRD, version and path order.
func findProbes(crds map[string][]byte) (map[string][]place, error) {
	out := map[string][]place{}
	err := versionSchemas(crds, func(crd, version string, root map[string]any) {
		walkSchema(place{crd: crd, version: version, node: root}, func(p place) {
			rules, _ := p.node[extension.Validations].([]any)
			for _, r := range rules {
				rm, _ := r.(map[string]any)
				if msg, _ := rm["message"].(string); strings.HasPrefix(msg, "immutable-gen-migrate-probe-") {
					out[msg] = append(out[msg], p)
				}
			}
		})
	})
	return out, err
}

// versionSchemas calls fn with the openAPIV3Schema of every version of
// every CRD file in crds, in file and version order.
func versionSchemas(crds map[string][]byte, fn func(crd, version string, root map[string]any)) error {
	for _, name := range slices.Sorted(maps.Keys(crds)) {
		var obj map[string]any
		if err := yaml.Unmarshal(crds[name], &obj); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		meta, _ := obj["metadata"].(map[string]any)
		crdName, _ := meta["name"].(string)
		spec, _ := obj["spec"].(map[string]any)
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			vname, _ := vm["name"].(string)
			s, _ := vm["schema"].(map[string]any)
			if root, _ := s["openAPIV3Schema"].(map[string]any); root != nil {
				fn(crdName, vname, root)
			}
		}
	}
	return nil
}

// walkSchema calls fn on p and every node below it.
func walkSchema(p place, fn func(place)) {
	fn(p)
	props, _ := p.node["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if c, ok := p.child(name); ok {
			walkSchema(c, fn)
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if n, ok := p.node[k].(map[string]any); ok {
			seg := "[]"
			if k == "additionalProperties" {
				seg = "{}"
			}
			walkSchema(place{crd: p.crd, version: p.version, path: append(slices.Clip(p.path), seg), node: n}, fn)
		}
	}
}

// isMap reports whether the node is a map whose keys can change (not
// +mapType=atomic).
func isMap(n map[string]any) bool {
	_, ok := n["additionalProperties"].(map[string]any)
	return ok && n[extension.MapType] != "atomic"
}

// listMapKeys returns the keys of a +listType=map list, or nil.
func listMapKeys(n map[string]any) []string {
	if n["type"] != "array" || n[extension.ListType] != "map" {
		return nil
	}
	var out []string
	keys, _ := n[extension.ListMapKeys].([]any)
	for _, k := range keys {
		s, _ := k.(string)
		out = append(out, s)
	}
	return out
}
