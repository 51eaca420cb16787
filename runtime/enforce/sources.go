package enforce

import (
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/manifest"
)

// FromCRD returns one Resource for every served version of every
// CustomResourceDefinition (apiextensions.k8s.io/v1 or v1beta1) in a YAML or
// JSON manifest, with the Checker of that version's schema
// (runtime.CompileCRD) and the status subresource when the version has one.
//
// The manifest must carry the immutability extensions, as immutable-gen
// crd:immutability=extensions writes them: an API server drops unknown
// schema fields, so a CRD read back from a server has none. A CRD none of
// whose served versions carries one — the default CEL output of
// immutable-gen crd, which the API server enforces itself, or a CRD without
// immutability markers — is refused with a *NoExtensionsError naming it,
// never skipped: a check built from it would allow every update. A version
// without extensions of a CRD whose other served versions have them is
// listed, its Checker empty: nothing in that version's schema is immutable.
// Errors name the CRD and version; on an error no Resource is returned.
func FromCRD(data []byte) ([]Resource, error) {
	docs, err := manifest.Objects(data)
	if err != nil {
		return nil, err
	}
	var out []Resource
	var errs []error
	for i, doc := range docs {
		c, err := manifest.ParseCRD(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if c == nil {
			continue
		}
		if c.Spec.Names.Plural == "" {
			errs = append(errs, fmt.Errorf("CustomResourceDefinition %s: spec.names.plural is empty", c.Metadata.Name))
			continue
		}
		var served []Resource
		failed, checks := false, false
		for _, v := range c.AllVersions() {
			if !v.Served {
				continue
			}
			checker, err := runtime.CompileCRD(data, runtime.CRDOptions{Name: c.Metadata.Name, Version: v.Name})
			if err != nil {
				errs = append(errs, fmt.Errorf("CustomResourceDefinition %s version %s: %w", c.Metadata.Name, v.Name, err))
				failed = true
				continue
			}
			checks = checks || !checker.Empty()
			r := Resource{
				Resource: schema.GroupVersionResource{Group: c.Spec.Group, Version: v.Name, Resource: c.Spec.Names.Plural},
				Checker:  checker,
			}
			sub := v.Subresources
			if sub == nil {
				sub = c.Spec.Subresources // v1beta1: one for all versions
			}
			if sub != nil && sub.Status != nil {
				r.Subresources = []string{StatusSubresource}
			}
			served = append(served, r)
		}
		if len(served) > 0 && !checks && !failed {
			errs = append(errs, &NoExtensionsError{CRD: c.Metadata.Name})
			continue
		}
		out = append(out, served...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no served version of a CustomResourceDefinition in the manifest")
	}
	return out, nil
}

// CheckerFromDefinitions compiles the definition called name (its Go name,
// e.g. k8s.io/sample-apiserver/pkg/apis/wardle/v1alpha1.Flunder, or its
// REST-friendly name) out of an openapi-gen GetOpenAPIDefinitions function,
// as an aggregated API server serves them. Definitions that immutable-gen's
// openapi output amended carry the immutability extensions; a definition
// with none (nor any in the definitions it refers to) is refused with a
// *NoExtensionsError.
func CheckerFromDefinitions(get common.GetOpenAPIDefinitions, name string) (*runtime.Checker, error) {
	if get == nil {
		return nil, errors.New("no GetOpenAPIDefinitions function")
	}
	defs := get(func(path string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + common.EscapeJsonPointer(path))
	})
	c, err := runtime.CompileDefinitions(defs, name)
	if err != nil {
		return nil, fmt.Errorf("OpenAPI definition %s: %w", name, err)
	}
	if c.Empty() {
		return nil, &NoExtensionsError{Definition: name}
	}
	return c, nil
}

// CheckerFromOpenAPI compiles the schema called name out of an OpenAPI
// document in JSON or YAML: version 2 (its definitions, as served on
// /openapi/v2) or version 3 (its components.schemas, as served on
// /openapi/v3/apis/GROUP/VERSION). $refs resolve within the document. A
// schema without immutability extensions is refused with a
// *NoExtensionsError, as in CheckerFromDefinitions.
func CheckerFromOpenAPI(document []byte, name string) (*runtime.Checker, error) {
	var doc struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
		Components  struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := yaml.Unmarshal(document, &doc); err != nil {
		return nil, fmt.Errorf("OpenAPI document: %w", err)
	}
	raw := doc.Definitions
	if raw == nil {
		raw = doc.Components.Schemas
	}
	if raw == nil {
		return nil, errors.New("OpenAPI document has neither definitions (v2) nor components.schemas (v3)")
	}
	defs := make(map[string]common.OpenAPIDefinition, len(raw))
	for k, v := range raw {
		var s spec.Schema
		if err := s.UnmarshalJSON(v); err != nil {
			return nil, fmt.Errorf("OpenAPI document: schema %s: %w", k, err)
		}
		defs[k] = common.OpenAPIDefinition{Schema: s}
	}
	c, err := runtime.CompileDefinitions(defs, name)
	if err != nil {
		return nil, fmt.Errorf("OpenAPI document: %w", err)
	}
	if c.Empty() {
		return nil, fmt.Errorf("OpenAPI document: %w", &NoExtensionsError{Definition: name})
	}
	return c, nil
}
