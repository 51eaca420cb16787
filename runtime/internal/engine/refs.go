package engine

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// CompileDefinitions compiles the definition called name out of the
// definitions a kube-openapi GetOpenAPIDefinitions function returns (the
// immutability extensions sit in their VendorExtensible). A $ref resolves
// whichever ReferenceCallback produced it: "#/definitions/X",
// "#/components/schemas/X" or a bare "X", where X is a definition's Go name
// (k8s.io/api/core/v1.Pod) or its REST-friendly name (io.k8s.api.core.v1.Pod),
// JSON-pointer escaped or not. A recursive type compiles into a cyclic plan,
// so recursion costs nothing at compile time and is bounded by the object
// at check time.
func CompileDefinitions(defs map[string]common.OpenAPIDefinition, name string) (*Checker, error) {
	schemas := make(map[string]spec.Schema, len(defs))
	for k, d := range defs {
		schemas[k] = d.Schema
	}
	c := newCompiler(schemas)
	canonical, ok := c.defs.lookup(name)
	if !ok {
		return nil, fmt.Errorf("no OpenAPI definition %q", name)
	}
	root := c.compileDefinition(canonical)
	def := schemas[canonical]
	return c.finish(root, &def)
}

// definitions indexes schemas by every name a $ref may use for them.
type definitions struct {
	schemas map[string]spec.Schema
	alias   map[string]string // accepted name -> key of schemas
}

func newDefinitions(defs map[string]spec.Schema) *definitions {
	d := &definitions{schemas: defs, alias: make(map[string]string, 2*len(defs))}
	// Aliases never shadow a real key; among aliases the smallest key wins,
	// so that resolution does not depend on map order.
	keys := make([]string, 0, len(defs))
	for k := range defs {
		keys = append(keys, k)
		d.alias[k] = k
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, a := range []string{util.ToRESTFriendlyName(k), common.EscapeJsonPointer(k)} {
			if _, taken := d.alias[a]; !taken {
				d.alias[a] = k
			}
		}
	}
	return d
}

// lookup returns the key of the definition name refers to.
func (d *definitions) lookup(name string) (string, bool) {
	k, ok := d.alias[name]
	return k, ok
}

// resolve returns the key of the definition a $ref names.
func (d *definitions) resolve(ref string) (string, bool) {
	for _, prefix := range []string{"#/definitions/", "#/components/schemas/"} {
		if i := strings.Index(ref, prefix); i >= 0 {
			name := ref[i+len(prefix):]
			if k, ok := d.lookup(name); ok {
				return k, true
			}
			return d.lookup(unescapePointer(name))
		}
	}
	return d.lookup(ref)
}

func unescapePointer(s string) string {
	s = strings.ReplaceAll(s, "~1", "/")
	return strings.ReplaceAll(s, "~0", "~")
}

// definition returns the node of the definition ref names, compiling it on
// first use. The node is registered before its schema is compiled, so a
// recursive reference gets the node being compiled.
func (c *compiler) definition(ref, path string) *node {
	key, ok := c.defs.resolve(ref)
	if !ok {
		c.errorf(path, "cannot resolve $ref %q", ref)
		return nil
	}
	return c.compileDefinition(key)
}

func (c *compiler) compileDefinition(key string) *node {
	if n, ok := c.memo[key]; ok {
		return n
	}
	n := &node{}
	c.memo[key] = n
	s := c.defs.schemas[key]
	c.compileInto(n, &s, schemaKey("", "definitions", key), 0)
	return n
}
