package lint

import (
	"regexp"
	"strings"
	"sync"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// addRuleFix matches the fixes that add rules: "add the rule `R` to the
// x-kubernetes-validations of PATH", and more rules joined to the first
// with " and the rule `S` to the x-kubernetes-validations of PATH2" (PATH
// is a schema path, or "the root schema").
var addRuleFix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("add (the rule `[^`]+` to the x-kubernetes-validations of (?:the root schema|[^ ,;()]+)(?: and the rule `[^`]+` to the x-kubernetes-validations of (?:the root schema|[^ ,;()]+))*)")
})

// ruleTo matches one rule of an addRuleFix clause.
var ruleTo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("the rule `([^`]+)` to the x-kubernetes-validations of (the root schema|[^ ,;()]+)")
})

// ApplyFix applies the rules that the first clause of a finding's fix adds
// ("add the rule `R` to the x-kubernetes-validations of PATH", "… and the
// rule `S` to the x-kubernetes-validations of PATH2": an alternative in
// parentheses after it is not applied) to the CRD given as its generic
// JSON tree, in the finding's version, and reports whether it did: all of
// them, or none when a path is not in the schema. Tests use it to check
// that lint's own fixes, applied, leave no hole.
func ApplyFix(crd map[string]any, f diag.Diagnostic) bool {
	clause := addRuleFix().FindStringSubmatch(f.Fix)
	if clause == nil || f.Version == "" {
		return false
	}
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if name, _ := vm["name"].(string); name != f.Version {
			continue
		}
		sch, _ := vm["schema"].(map[string]any)
		root, _ := sch["openAPIV3Schema"].(map[string]any)
		var nodes []map[string]any
		items := ruleTo().FindAllStringSubmatch(clause[1], -1)
		for _, m := range items {
			node := root
			if m[2] != "the root schema" && m[2] != "<root>" {
				node = schemaAt(node, m[2])
			}
			if node == nil {
				return false
			}
			nodes = append(nodes, node)
		}
		for i, m := range items {
			rules, _ := nodes[i][extension.Validations].([]any)
			nodes[i][extension.Validations] = append(rules, map[string]any{"rule": m[1]})
		}
		return true
	}
	return false
}

// schemaAt returns the schema node at a path such as spec.ports[*].name
// below the root schema node, or nil.
func schemaAt(node map[string]any, path string) map[string]any {
	for _, part := range strings.Split(path, ".") {
		name, stars, _ := strings.Cut(part, "[")
		props, _ := node["properties"].(map[string]any)
		node, _ = props[name].(map[string]any)
		for range strings.Count("["+stars, "[*]") {
			if node == nil {
				return nil
			}
			if items, ok := node["items"].(map[string]any); ok {
				node = items
			} else {
				node, _ = node["additionalProperties"].(map[string]any)
			}
		}
		if node == nil {
			return nil
		}
	}
	return node
}
