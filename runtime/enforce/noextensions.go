package enforce

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// NoExtensionsError refuses a schema that carries no immutability extension
// (none of extension.Names()): a check built from it would allow every
// update, a webhook or admission plugin that looks installed and enforces
// nothing. Every enforcer built here refuses one rather than serve it:
// FromCRD (a CRD none of whose served versions has an extension, e.g. the
// default CEL output of immutable-gen crd), CheckerFromDefinitions and
// CheckerFromOpenAPI (a definition without any), and NewSet (a resource none
// of whose versions' Checkers checks anything), so also webhook.NewHandler
// and the admission plugin. Exactly one field names the input.
//
// Its text is the one refusal of all those entry points; it names
// crd:immutability=extensions, the output the runtime enforces.
type NoExtensionsError struct {
	// CRD is the metadata.name of a CustomResourceDefinition (FromCRD).
	CRD string
	// Definition is the name of an OpenAPI definition
	// (CheckerFromDefinitions, CheckerFromOpenAPI).
	Definition string
	// Resource is a resource given to NewSet, none of whose versions has a
	// Checker that checks anything.
	Resource schema.GroupResource
}

// extensionsOutput is the crd generator's output the runtime enforces, as
// its command line selects it.
const extensionsOutput = "crd:immutability=extensions (immutable-gen crd:immutability=extensions paths=./... output:crd:dir=DIR)"

func (e *NoExtensionsError) Error() string {
	var subject, fix string
	switch {
	case e.CRD != "":
		subject = "CustomResourceDefinition " + e.CRD + " has no immutability extensions in any served version"
		fix = "the default crd output (crd:immutability=cel) is enforced by the API server itself, through the CRD's x-kubernetes-validations rules, and needs no webhook or admission plugin; " +
			"for the runtime, give the CRD generated with " + extensionsOutput + "; " +
			"a CRD without immutability markers has nothing to enforce: leave it out"
	case e.Definition != "":
		subject = "OpenAPI definition " + e.Definition + " has no immutability extensions"
		fix = "give the definitions amended by immutable-gen openapi (ApplyImmutability), as the API server publishes them; " +
			"for a CRD, give enforce.FromCRD the CRD generated with " + extensionsOutput + ": an API server drops the extensions of the CRDs it serves"
	default:
		subject = "resource " + e.Resource.String() + " has no Checker that checks anything in any version: its schema has no immutability extensions"
		fix = "build its Checker from a schema with the extensions: enforce.FromCRD on the CRD generated with " + extensionsOutput +
			", or the OpenAPI definitions amended by immutable-gen openapi"
	}
	return subject + " (" + strings.Join(extension.Names(), ", ") + "): a check built from it would allow every update; fix: " + fix
}
