package lint

import (
	"fmt"

	"github.com/immutable-gen/immutable-gen/schema"
	"github.com/immutable-gen/immutable-gen/validation"
)

// extensions checks the KEP's vendor extensions of one version's schema:
// their values (IG001), where the model cannot see them (IG009), the
// placement rules immutable-gen applies to its markers (IG002–IG007), and
// that kubectl apply refuses them (IG008).
func (c *crdLint) extensions(root *schema.Node) {
	var first string
	count := 0
	root.Walk(func(n *schema.Node) {
		for _, ext := range []string{schema.ExtImmutable, schema.ExtImmutableKeys, schema.ExtImmutableOnce} {
			v, ok := n.Extension(ext)
			if !ok {
				continue
			}
			if count == 0 {
				first = n.Path()
			}
			count++
			if v != true {
				c.badValue(n.Path(), ext, v)
			}
		}
		for _, h := range n.HiddenExtensions(schema.ExtImmutable, schema.ExtImmutableKeys, schema.ExtImmutableOnce) {
			if count == 0 {
				first = n.Path()
			}
			count++
			c.report(c.version, n.Path(), IDExtensionIgnored, fmt.Sprintf("move %s out of %s, onto the node itself", h.Extension, h.Keyword),
				"%s inside %s has no effect: value validations (allOf, anyOf, oneOf, not) do not describe the object's structure, and nothing reads extensions there", h.Extension, h.Where)
		}
	})
	if count > 0 {
		more := ""
		if count > 1 {
			more = fmt.Sprintf(" (%d extensions in this version)", count)
		}
		c.report(c.version, first, IDKubectlApply,
			"for clusters, use CEL rules instead (immutable-gen crd:immutability=cel); apply a CRD with the extensions only with --validate=false, or strip them",
			"the CRD carries the KEP immutability extensions%s: `kubectl apply` (strict field validation, the default) rejects them as unknown fields, and API servers do not enforce them", more)
	}
	for _, f := range validation.PlacementFindings(root) {
		c.placement(f)
	}
}

func (c *crdLint) badValue(path, ext string, v any) {
	switch v := v.(type) {
	case string:
		c.report(c.version, path, IDExtensionValue, fmt.Sprintf("write `%s: true`, without quotes", ext),
			"%s is the string %q, not the boolean true (KEP: true is the only valid value); readers of the extension ignore it", ext, v)
	case bool: // false
		c.report(c.version, path, IDExtensionValue, "remove it (or make it true)",
			"%s: false is not allowed (KEP: true is the only valid value; false does not make a node mutable inside an immutable parent)", ext)
	default:
		c.report(c.version, path, IDExtensionValue, fmt.Sprintf("write `%s: true`", ext),
			"%s is %v, not the boolean true (KEP: true is the only valid value)", ext, v)
	}
}

// placement words one placement rule finding for extensions.
func (c *crdLint) placement(f validation.PlacementFinding) {
	ext := schema.ExtImmutable
	switch {
	case f.Origin.Keys:
		ext = schema.ExtImmutableKeys
	case f.Origin.Once:
		ext = schema.ExtImmutableOnce
	}
	path := f.Node.Path()
	switch f.Rule {
	case validation.RuleForbiddenPlace:
		of := "the object's"
		if f.Related != nil && f.Related.Parent != nil {
			of = fmt.Sprintf("the embedded resource %s's", f.Related.Path())
		}
		switch f.Detail {
		case "":
			c.report(c.version, path, IDExtensionForbidden, "remove it; put it on spec or on the fields of spec",
				"%s is not allowed at the root of the schema: the whole object would be immutable, its metadata and status included (KEP: forbidden at the root)", ext)
		case "metadata":
			c.report(c.version, path, IDExtensionForbidden, "remove it",
				"%s is not allowed on %s metadata or anything inside it: the API server owns object metadata (KEP: forbidden inside .metadata)", ext, of)
		default:
			c.report(c.version, path, IDExtensionForbidden, "remove it",
				"%s is not allowed on %s %s: the API machinery sets it, and it is immutable implicitly", ext, of, f.Detail)
		}
	case validation.RuleNoKeys:
		fix := fmt.Sprintf("use `%s: true` instead", schema.ExtImmutable)
		switch f.Detail {
		case "set":
			fix += " (the items of a set are their own keys)"
		case "atomic list":
			fix += ", or make the list a list map (x-kubernetes-list-type: map with x-kubernetes-list-map-keys)"
		case "atomic map":
			fix += ", or drop x-kubernetes-map-type: atomic"
		case "struct":
			fix += ", on the object or on its properties"
		}
		what := f.Detail
		if what != "set" && what != "atomic list" && what != "atomic map" && what != "struct" {
			what += " value"
		}
		c.report(c.version, path, IDKeysWithoutKeys, fix,
			"%s is not allowed on a %s: only maps (additionalProperties) and list maps (x-kubernetes-list-type: map) have keys (KEP)", ext, what)
	case validation.RuleExclusive:
		if f.Node.ImmutableOnce() {
			if !f.Origin.Once {
				return // reported once, at the set-once extension
			}
			c.report(c.version, path, IDExtensionsBoth, fmt.Sprintf("keep one of them: %s forbids setting the value later, %s allows it once", schema.ExtImmutable, schema.ExtImmutableOnce),
				"%s is exclusive with %s and %s on one node", schema.ExtImmutableOnce, schema.ExtImmutable, schema.ExtImmutableKeys)
			return
		}
		c.report(c.version, path, IDExtensionsBoth, fmt.Sprintf("keep one of them: %s already covers the keys", schema.ExtImmutable),
			"%s and %s are exclusive on one node (KEP)", schema.ExtImmutable, schema.ExtImmutableKeys)
	case validation.RuleOnceProperty:
		c.report(c.version, path, IDOnceNotProperty, fmt.Sprintf("put %s on the list or map property instead, or %s on the items to fix each one", ext, schema.ExtImmutable),
			"%s is only allowed on a property: list items and map values come and go with their index or key, so they are never set later (the immutable-gen runtime refuses the schema)", ext)
	case validation.RuleOnceRequired:
		c.report(c.version, path, IDOnceRequired, fmt.Sprintf("nothing to do; or write %s: true, which says the same", schema.ExtImmutable),
			"%s on a required property: it is set at creation, so it is the same as %s", ext, schema.ExtImmutable)
	case validation.RuleListMapKey:
		keyPath := path + "[*]." + f.Detail
		c.report(c.version, path, IDListMapKey, fmt.Sprintf("add `%s: true` to the key property %s", schema.ExtImmutable, keyPath),
			"%s on a list map requires its key %q to be immutable (KEP: the map keys are enforced immutable)", ext, f.Detail)
	case validation.RuleRedundant:
		c.report(c.version, path, IDRedundant, "remove it; it changes nothing",
			"redundant %s: %s is already immutable as part of %s", ext, path, f.Related.Path())
	case validation.RuleNoEffect:
		c.report(c.version, path, IDInsideSet, fmt.Sprintf("put `%s: true` on the set %s itself to forbid any change", schema.ExtImmutable, f.Related.Path()),
			"%s has no effect inside the items of the set %s: set items are identities, they are added or removed, never changed", ext, f.Related.Path())
	}
}
