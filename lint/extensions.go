package lint

import (
	"fmt"
	"github.com/immutable-gen/immutable-gen/celguard"

	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/when"
	"github.com/immutable-gen/immutable-gen/schema"
)

// extensions checks the KEP's vendor extensions of one version's schema:
// their values (IG001), where the model cannot see them (IG009), the
// placement rules immutable-gen applies to its markers (IG002–IG007), and
// that kubectl apply refuses them (IG008).
func (c *crdLint) extensions(root *schema.Node) {
	var first string
	count := 0
	root.Walk(func(n *schema.Node) {
		for _, ext := range extension.Names() {
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
		c.condition(n)
		for _, h := range n.HiddenExtensions(extension.Names()...) {
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
	for _, f := range placement.Findings(root) {
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

// condition checks x-immutable-gen-when (IG001): a string the runtime's
// condition subset takes, beside a form's extension — what runtime.Compile
// refuses otherwise, and so every enforcer built from the CRD.
func (c *crdLint) condition(n *schema.Node) {
	v, ok := n.Extension(extension.When)
	if !ok {
		return
	}
	path := n.Path()
	text, isString := v.(string)
	switch {
	case !isString:
		c.report(c.version, path, IDExtensionValue, "write the condition as a string, CEL over self and oldSelf (the new and old objects)",
			"%s is %v, not a string: the runtime refuses the CRD", extension.When, v)
	case len(n.Origins) == 0:
		c.report(c.version, path, IDExtensionValue, fmt.Sprintf("add the form's extension beside it (`%s: true`, …), or remove it", extension.Immutable),
			"%s has no immutability extension beside it: it says when they hold, and alone the runtime refuses the CRD", extension.When)
	default:
		if _, err := when.Parse(text); err != nil {
			c.report(c.version, path, IDExtensionValue, "rewrite the condition in the subset the runtime evaluates (docs/semantics.md, \"The condition subset\"), or use a CEL rule instead",
				"%s `%s`: %v; the runtime refuses the CRD", extension.When, text, err)
			return
		}
		// What the crd generator refuses as IG046: a read that errors on
		// an object without the field, which the runtime reports as the
		// condition's failure on every change of the field there.
		reads, err := celguard.Condition(text, n)
		if err != nil {
			return
		}
		for _, u := range reads {
			c.report(c.version, path, IDAbsentError, u.Fix(), "%s `%s`: %s", extension.When, text, u.Refuses(path))
		}
	}
}

// placement reports one placement rule finding, in validation's words for
// extensions.
func (c *crdLint) placement(f placement.Finding) {
	if f.Rule == placement.RuleExclusive && f.Node.ImmutableOnce() && !f.Origin.Once {
		return // reported once, at the set-once extension
	}
	c.report(c.version, f.Node.Path(), f.Rule.ID(), f.Fix, "%s", f.Message)
}
