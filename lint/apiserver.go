package lint

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/schema"
)

// apiServer runs apiextensions-apiserver's own validation of a new CRD —
// what an API server checks on create: structural schema, list types, CEL
// compilation, oldSelf on uncorrelatable paths, the cost budget — and
// returns its errors, and the CRD's versions in the internal form (names
// only: all crdvalidation.Findings needs), so that the typed and internal
// CRDs can be released before lint builds its own model of the schemas
// (peak memory: the larger of the two, not their sum). ok is false when
// the validation did not run (reported).
func (c *crdLint) apiServer(crd *apiextv1.CustomResourceDefinition) (stub *apiextensions.CustomResourceDefinition, errs []crdvalidation.ServerError, ok bool) {
	internal, err := crdvalidation.Internal(crd)
	if err != nil {
		c.report("", "<crd>", IDRefused, "fix the manifest", "the API server cannot read this CRD: %v", err)
		return nil, nil, false
	}
	errs, err = crdvalidation.Validate(apiserver.InProcess{}, internal)
	if err != nil {
		c.report("", "<crd>", IDRefused, "fix the manifest", "the API server's CRD validation did not run: %v", err)
		return nil, nil, false
	}
	stub = &apiextensions.CustomResourceDefinition{}
	for _, v := range internal.Spec.Versions {
		stub.Spec.Versions = append(stub.Spec.Versions, apiextensions.CustomResourceDefinitionVersion{Name: v.Name})
	}
	return stub, errs, true
}

// apiServerFindings reports each error of the API server's validation, as
// crdvalidation classifies it, at its schema path (IG020–IG024).
func (c *crdLint) apiServerFindings(stub *apiextensions.CustomResourceDefinition, errs []crdvalidation.ServerError) {
	hasRules := func(n *schema.Node) bool { return n.Has(extension.Validations) }
	guards := func(n *schema.Node, i int) bool {
		rules := c.parseRules(n)
		return i < len(rules) && rules[i].expr != nil && guards(n, rules[i])
	}
	for _, f := range crdvalidation.Findings(stub, errs, c.models, hasRules, guards) {
		c.report(f.Version, f.Path, f.ID, f.BoundsFix(func(b crdvalidation.Bound) string { return b.Keyword }), "%s", f.Message)
	}
}
