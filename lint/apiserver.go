package lint

import (
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/schema"
)

// apiServer runs apiextensions-apiserver's own validation of a new CRD —
// what an API server checks on create: structural schema, list types, CEL
// compilation, oldSelf on uncorrelatable paths, the cost budget — and
// reports each error, as validation classifies it, at its schema path
// (IG020–IG024).
func (c *crdLint) apiServer(crd *apiextv1.CustomResourceDefinition) {
	internal, err := crdvalidation.Internal(crd)
	if err != nil {
		c.report("", "<crd>", IDRefused, "fix the manifest", "the API server cannot read this CRD: %v", err)
		return
	}
	errs, err := crdvalidation.Validate(apiserver.InProcess{}, internal)
	if err != nil {
		c.report("", "<crd>", IDRefused, "fix the manifest", "the API server's CRD validation did not run: %v", err)
		return
	}
	hasRules := func(n *schema.Node) bool { return n.Has("x-kubernetes-validations") }
	guards := func(n *schema.Node, i int) bool {
		rules := c.parseRules(n)
		return i < len(rules) && rules[i].expr != nil && guards(n, rules[i])
	}
	for _, f := range crdvalidation.Findings(internal, errs, c.models, hasRules, guards) {
		c.report(f.Version, f.Path, f.ID, f.BoundsFix(func(b crdvalidation.Bound) string { return b.Keyword }), "%s", f.Message)
	}
}
