// Package crdmodel builds the immutability model of the CRDs of Go API
// packages, once for every generator that reads it: controller-tools' CRD
// parser, step for step as controller-gen's crd generator runs it (Parse),
// each CRD version's schema.Node from the markers' carriers (Build), and
// the KEP placement findings on each. The crd generator emits CRDs from the
// model; the typed validators generate Go from it (Models), so both rest on
// the schema the CRD carries.
package crdmodel

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Model is the immutability model of one version of one CRD, exactly as
// the crd generator builds it, with the Go type it was generated from.
type Model struct {
	// CRD is the CRD's name (widgets.example.com); Version the version's.
	CRD, Version string
	// Package holds the kind's Go type, named Kind.
	Package *loader.Package
	Kind    string
	// Root is the model of the version's openAPIV3Schema.
	Root *schema.Node
}

// Models runs the crd generator's pipeline on the packages of ctx up to the
// KEP placement rules: controller-tools' CRD parser with up's options, the
// model of every CRD version (schema.Build), placement.Check on each.
// It returns the models of every CRD version (with markers or not), ordered
// by CRD and version, and the diagnostics the crd generator reports for them
// (markers.Lint's near misses and the placement findings), sorted; the API
// server's validation of the CRD is not run. A generator of other outputs
// from the same model (the typed validators) calls it so that its verdicts
// rest on the schema the crd generator writes.
func Models(ctx *genall.GenerationContext, up crd.Generator) ([]Model, diag.List, error) {
	files, err := Parse(ctx, up)
	if err != nil {
		return nil, nil, err
	}
	diags := markers.Lint(ctx.Roots)
	var out []Model
	seen := map[string]bool{}
	for _, f := range files {
		// One file per crdVersions entry: the first has every version.
		if seen[f.CRD.Name] {
			continue
		}
		seen[f.CRD.Name] = true
		obj, _, err := f.Tree()
		if err != nil {
			return nil, nil, err
		}
		models, ds, err := Build(f.CRD.Name, obj)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		diags = append(diags, ds...)
		for _, v := range slices.Sorted(maps.Keys(models)) {
			pkg := f.Sources[v]
			if pkg == nil {
				return nil, nil, fmt.Errorf("%s %s: no Go package found for the version", f.CRD.Name, v)
			}
			out = append(out, Model{CRD: f.CRD.Name, Version: v, Package: pkg, Kind: f.CRD.Spec.Names.Kind, Root: models[v]})
		}
	}
	slices.SortFunc(out, func(a, b Model) int {
		if a.CRD != b.CRD {
			return strings.Compare(a.CRD, b.CRD)
		}
		return strings.Compare(a.Version, b.Version)
	})
	return out, diags.Sort(), nil
}

// Build builds the immutability model of every version of the CRD tree obj
// (taking the carriers out of it) and checks the KEP placement rules on
// each; name is the CRD's name, for the findings.
func Build(name string, obj map[string]any) (map[string]*schema.Node, diag.List, error) {
	models := map[string]*schema.Node{}
	versions, _ := nested(obj, "spec", "versions").([]any)
	var diags diag.List
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		version, _ := vm["name"].(string)
		root, _ := nested(vm, "schema", "openAPIV3Schema").(map[string]any)
		if root == nil {
			continue
		}
		model, err := schema.Build(root)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", name, version, err)
		}
		models[version] = model
		diags = append(diags, placement.Check(name, version, model)...)
	}
	return models, diags, nil
}

// HasMarkers reports whether any schema node of the CRD carries a marker.
func HasMarkers(c *apiextv1.CustomResourceDefinition) bool {
	for _, v := range c.Spec.Versions {
		if v.Schema != nil && hasCarrier(v.Schema.OpenAPIV3Schema) {
			return true
		}
	}
	return false
}

// hasCarrier reports whether any node of s carries a marker.
func hasCarrier(s *apiextv1.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	for _, r := range s.XValidations {
		if schema.IsCarrier(r.Rule) {
			return true
		}
	}
	for _, p := range s.Properties {
		if hasCarrier(&p) {
			return true
		}
	}
	if s.Items != nil && hasCarrier(s.Items.Schema) {
		return true
	}
	if s.AdditionalProperties != nil && hasCarrier(s.AdditionalProperties.Schema) {
		return true
	}
	for _, list := range [][]apiextv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			if hasCarrier(&list[i]) {
				return true
			}
		}
	}
	return hasCarrier(s.Not)
}

// nested returns the value at keys in obj, or nil.
func nested(obj map[string]any, keys ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, keys...)
	return v
}
