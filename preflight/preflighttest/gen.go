// Package preflighttest generates random objects and random updates of
// them from a CustomResourceDefinition's schema, for differential tests of
// the preflight package against an API server or its validators.
//
// The values aim at every kind of verdict: valid values, values out of the
// schema's bounds (lengths, ranges, item and property counts, enums), values
// of the wrong type, duplicate items of set and map lists, unknown fields,
// removed and added fields, reordered lists.
package preflighttest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// A Generator makes random values for one openAPIV3Schema. It is not safe
// for concurrent use.
type Generator struct {
	r      *rand.Rand
	schema map[string]interface{}
	// Invalid is the probability, in percent, that a generated or mutated
	// value breaks the schema (bounds, enum, type). Default 20.
	Invalid int
	// Words are strings that string values (with no enum) take half of
	// the time, such as the literals of a CRD's CEL rules, so that the
	// conditions they compare with are met. None by default.
	Words []string
}

// New returns a Generator for the openAPIV3Schema of a CRD version (as
// decoded from JSON), with a fixed seed.
func New(openAPIV3Schema map[string]interface{}, seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), schema: openAPIV3Schema, Invalid: 20}
}

// Spec returns a random value of the schema's spec property.
func (g *Generator) Spec() interface{} {
	return g.value(prop(g.schema, "spec"), 0)
}

// Mutate returns a copy of spec with one to three random changes, and a
// description of each.
func (g *Generator) Mutate(spec interface{}) (interface{}, []string) {
	out := deepCopy(spec)
	var what []string
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		var sites []site
		collect(prop(g.schema, "spec"), &out, "spec", &sites, 0)
		if len(sites) == 0 {
			break
		}
		s := sites[g.r.IntN(len(sites))]
		what = append(what, g.mutate(s))
	}
	return out, what
}

// site is a value in an object, with its schema and a way to replace or
// remove it.
type site struct {
	path   string
	schema map[string]interface{}
	get    func() interface{}
	set    func(interface{})
	remove func() // nil for the root
}

func collect(s map[string]interface{}, v *interface{}, path string, out *[]site, depth int) {
	if s == nil || depth > 8 {
		return
	}
	root := v
	*out = append(*out, site{path: path, schema: s, get: func() interface{} { return *root }, set: func(x interface{}) { *root = x }})
	collectChildren(s, *v, path, out, depth)
}

func collectChildren(s map[string]interface{}, v interface{}, path string, out *[]site, depth int) {
	switch x := v.(type) {
	case map[string]interface{}:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			cs := prop(s, k)
			if cs == nil {
				cs, _ = s["additionalProperties"].(map[string]interface{})
			}
			if cs == nil {
				continue
			}
			k := k
			*out = append(*out, site{path: path + "." + k, schema: cs,
				get:    func() interface{} { return x[k] },
				set:    func(n interface{}) { x[k] = n },
				remove: func() { delete(x, k) }})
			collectChildren(cs, x[k], path+"."+k, out, depth+1)
		}
	case []interface{}:
		is, _ := s["items"].(map[string]interface{})
		if is == nil {
			return
		}
		for i := range x {
			i := i
			*out = append(*out, site{path: fmt.Sprintf("%s[%d]", path, i), schema: is,
				get: func() interface{} { return x[i] },
				set: func(n interface{}) { x[i] = n }})
			collectChildren(is, x[i], fmt.Sprintf("%s[%d]", path, i), out, depth+1)
		}
	}
}

// mutate changes one site and describes the change.
func (g *Generator) mutate(s site) string {
	v := s.get()
	switch g.r.IntN(6) {
	case 0:
		if s.remove != nil {
			s.remove()
			return "remove " + s.path
		}
	case 1:
		s.set(g.value(s.schema, 0))
		return "replace " + s.path
	}
	switch x := v.(type) {
	case map[string]interface{}:
		switch g.r.IntN(3) {
		case 0: // add a declared or map property
			if ps, ok := s.schema["properties"].(map[string]interface{}); ok && len(ps) > 0 {
				keys := slices.Sorted(maps.Keys(ps))
				k := keys[g.r.IntN(len(keys))]
				x[k] = g.value(ps[k].(map[string]interface{}), 1)
				return "set " + s.path + "." + k
			}
			if as, ok := s.schema["additionalProperties"].(map[string]interface{}); ok {
				k := g.word()
				x[k] = g.value(as, 1)
				return "add key " + s.path + "." + k
			}
		case 1: // an unknown field
			if s.schema["additionalProperties"] == nil && s.schema[extension.PreserveUnknownFields] == nil {
				x["unknown"+g.word()] = g.word()
				return "add unknown field to " + s.path
			}
		}
		if keys := slices.Sorted(maps.Keys(x)); len(keys) > 0 {
			k := keys[g.r.IntN(len(keys))]
			delete(x, k)
			return "delete " + s.path + "." + k
		}
	case []interface{}:
		is, _ := s.schema["items"].(map[string]interface{})
		switch g.r.IntN(4) {
		case 0:
			if len(x) > 0 { // a duplicate item
				s.set(append(x, deepCopy(x[g.r.IntN(len(x))])))
				return "duplicate an item of " + s.path
			}
		case 1:
			if len(x) > 0 {
				i := g.r.IntN(len(x))
				s.set(append(x[:i:i], x[i+1:]...))
				return fmt.Sprintf("remove %s[%d]", s.path, i)
			}
		case 2:
			y := make([]interface{}, len(x))
			for i := range x {
				y[len(x)-1-i] = x[i]
			}
			s.set(y)
			return "reverse " + s.path
		}
		if is != nil {
			s.set(append(x, g.value(is, 1)))
			return "append to " + s.path
		}
	}
	s.set(g.scalar(s.schema, v))
	return "change " + s.path
}

// value returns a random value of schema s: mostly valid, sometimes not.
func (g *Generator) value(s map[string]interface{}, depth int) interface{} {
	if s == nil {
		return g.word()
	}
	if g.r.IntN(100) < g.Invalid/4 {
		return g.wrongType(s)
	}
	switch typ, _ := s["type"].(string); typ {
	case "object":
		obj := map[string]interface{}{}
		if s[extension.EmbeddedResource] == true {
			// An embedded object needs its type and a valid name.
			obj["apiVersion"], obj["kind"] = "v1", "Thing"
			obj["metadata"] = map[string]interface{}{"name": g.word()}
		}
		if depth > 5 {
			return obj
		}
		required := map[string]bool{}
		if rs, ok := s["required"].([]interface{}); ok {
			for _, r := range rs {
				required[r.(string)] = true
			}
		}
		if ps, ok := s["properties"].(map[string]interface{}); ok {
			for _, k := range slices.Sorted(maps.Keys(ps)) {
				if required[k] || g.r.IntN(3) > 0 {
					obj[k] = g.value(ps[k].(map[string]interface{}), depth+1)
				}
			}
		}
		if as, ok := s["additionalProperties"].(map[string]interface{}); ok {
			for n := g.count(s, "maxProperties"); n > 0; n-- {
				obj[g.word()] = g.value(as, depth+1)
			}
		}
		return obj
	case "array":
		is, _ := s["items"].(map[string]interface{})
		n := g.count(s, "maxItems")
		list := []interface{}{}
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			item := g.value(is, depth+1)
			k := itemKey(s, item)
			if seen[k] && g.r.IntN(100) >= g.Invalid {
				continue // keep set and map lists valid, mostly
			}
			seen[k] = true
			list = append(list, item)
		}
		return list
	}
	return g.scalar(s, nil)
}

// count picks a length: mostly within max, sometimes above it.
func (g *Generator) count(s map[string]interface{}, max string) int {
	m, ok := number(s[max])
	if ok && g.r.IntN(100) < g.Invalid/2 {
		return int(m) + 1
	}
	if ok && m < 3 {
		return g.r.IntN(int(m) + 1)
	}
	return g.r.IntN(4)
}

// scalar returns a random scalar of schema s, different from old when it
// can.
func (g *Generator) scalar(s map[string]interface{}, old interface{}) interface{} {
	invalid := g.r.IntN(100) < g.Invalid
	if invalid && g.r.IntN(3) == 0 {
		return g.wrongType(s)
	}
	switch typ, _ := s["type"].(string); typ {
	case "integer", "number":
		lo, hasLo := number(s["minimum"])
		hi, hasHi := number(s["maximum"])
		if !hasLo {
			lo = -3
		}
		if !hasHi {
			hi = lo + 6
		}
		if invalid && (hasLo || hasHi) {
			if hasHi && (!hasLo || g.r.IntN(2) == 0) {
				return int64(hi) + 1
			}
			return int64(lo) - 1
		}
		v := int64(lo) + g.r.Int64N(int64(hi-lo)+1)
		if o, ok := old.(int64); ok && o == v && hi > lo {
			v = int64(lo) + (v-int64(lo)+1)%(int64(hi-lo)+1)
		}
		if typ == "number" && g.r.IntN(3) == 0 {
			return float64(v) + 0.5
		}
		return v
	case "boolean":
		if o, ok := old.(bool); ok {
			return !o
		}
		return g.r.IntN(2) == 0
	case "string":
		if enum, ok := s["enum"].([]interface{}); ok && len(enum) > 0 {
			if invalid {
				return "not-" + g.word()
			}
			return enum[g.r.IntN(len(enum))]
		}
		if m, ok := number(s["maxLength"]); ok && invalid {
			return strings.Repeat("x", int(m)+1)
		}
		if f, _ := s["format"].(string); f == "date-time" {
			return fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+g.r.IntN(28))
		}
		w := g.word()
		if len(g.Words) > 0 && g.r.IntN(2) == 0 {
			w = g.Words[g.r.IntN(len(g.Words))]
		}
		if o, ok := old.(string); ok && o == w {
			w += "x"
		}
		if m, ok := number(s["maxLength"]); ok && len(w) > int(m) {
			w = w[:int(m)]
		}
		if m, ok := number(s["minLength"]); ok && len(w) < int(m) {
			w += strings.Repeat("y", int(m)-len(w))
		}
		return w
	}
	return g.word()
}

// wrongType returns a value of another JSON type than s declares.
func (g *Generator) wrongType(s map[string]interface{}) interface{} {
	switch s["type"] {
	case "string":
		return int64(g.r.IntN(100))
	case "integer":
		if g.r.IntN(2) == 0 {
			return 1.5
		}
		return g.word()
	case "object":
		return []interface{}{g.word()}
	case "array":
		return g.word()
	}
	return map[string]interface{}{"x": g.word()}
}

var words = []string{"a", "b", "c", "alpha", "beta", "gamma", "delta", "x1", "x2"}

func (g *Generator) word() string { return words[g.r.IntN(len(words))] }

// itemKey identifies a list item as a set or map list compares items.
func itemKey(s map[string]interface{}, item interface{}) string {
	if keys, ok := s[extension.ListMapKeys].([]interface{}); ok {
		if m, ok := item.(map[string]interface{}); ok {
			var b strings.Builder
			for _, k := range keys {
				fmt.Fprintf(&b, "%v|", m[k.(string)])
			}
			return b.String()
		}
	}
	return fmt.Sprintf("%#v", item)
}

func prop(s map[string]interface{}, name string) map[string]interface{} {
	ps, _ := s["properties"].(map[string]interface{})
	p, _ := ps[name].(map[string]interface{})
	return p
}

func number(v interface{}) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func deepCopy(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
