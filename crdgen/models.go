package crdgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
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
// KEP placement rules: controller-tools' CRD parser with g's options, the
// model of every CRD version (schema.Build), validation.Placement on each.
// It returns the models of every CRD version (with markers or not), ordered
// by CRD and version, and the diagnostics the crd generator reports for them
// (markers.Lint's near misses and the placement findings), sorted; the API
// server's validation of the CRD is not run. A generator of other outputs
// from the same model (the typed validators) calls it so that its verdicts
// rest on the schema the crd generator writes.
func (g Generator) Models(ctx *genall.GenerationContext) ([]Model, diag.List, error) {
	files, err := g.parseCRDs(ctx)
	if err != nil {
		return nil, nil, err
	}
	diags := markers.Lint(ctx.Roots)
	var out []Model
	seen := map[string]bool{}
	for _, f := range files {
		// One file per crdVersions entry: the first has every version.
		if seen[f.crd.Name] {
			continue
		}
		seen[f.crd.Name] = true
		obj, _, err := g.toTree(f.crd)
		if err != nil {
			return nil, nil, err
		}
		models, ds, err := buildModels(f, obj)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.path, err)
		}
		diags = append(diags, ds...)
		for _, v := range slices.Sorted(maps.Keys(models)) {
			pkg := f.sources[v]
			if pkg == nil {
				return nil, nil, fmt.Errorf("%s %s: no Go package found for the version", f.crd.Name, v)
			}
			out = append(out, Model{CRD: f.crd.Name, Version: v, Package: pkg, Kind: f.crd.Spec.Names.Kind, Root: models[v]})
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
