// Package crdgen is immutable-gen's `crd` generator: controller-tools' CRD
// generator, unchanged, followed by the immutability pipeline on every CRD it
// produces — build the model from the markers (package schema), check the
// KEP placement rules and the API server's CRD validation (package
// validation), and emit the extensions or CEL. CRDs without markers pass
// through byte for byte, so the generator is a drop-in for controller-gen's.
package crdgen

import (
	"errors"
	"fmt"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/schema"
	"github.com/immutable-gen/immutable-gen/validation"
)

// Immutability modes.
const (
	// ModeCEL lowers the markers to x-kubernetes-validations rules that real
	// API servers enforce (the default).
	ModeCEL = "cel"
	// ModeExtensions writes the KEP's x-kubernetes-immutable and
	// x-kubernetes-immutable-keys booleans.
	ModeExtensions = "extensions"
)

// Generator generates CustomResourceDefinition objects, with immutability.
// Its options are controller-gen's `crd` options plus Immutability.
type Generator struct {
	IgnoreUnexportedFields     *bool    `marker:",optional"`
	AllowDangerousTypes        *bool    `marker:",optional"`
	MaxDescLen                 *int     `marker:",optional"`
	CRDVersions                []string `marker:"crdVersions,optional"`
	GenerateEmbeddedObjectMeta *bool    `marker:",optional"`
	HeaderFile                 string   `marker:",optional"`
	Year                       string   `marker:",optional"`

	DeprecatedV1beta1CompatibilityPreserveUnknownFields *bool `marker:",optional"`

	OmitToolVersion *bool `marker:",optional"`

	// Immutability selects how +immutable markers are written: "cel" (the
	// default) or "extensions".
	Immutability string `marker:",optional"`

	// report receives the diagnostics of a run (warnings and notes as well
	// as errors). When nil, errors are returned from Generate and the rest
	// is dropped.
	report func(diag.List)
}

// WithReport returns g with fn receiving every run's diagnostics.
func (g Generator) WithReport(fn func(diag.List)) Generator {
	g.report = fn
	return g
}

// upstream is controller-tools' generator with the same options.
func (g Generator) upstream() crd.Generator {
	return crd.Generator{
		IgnoreUnexportedFields:     g.IgnoreUnexportedFields,
		AllowDangerousTypes:        g.AllowDangerousTypes,
		MaxDescLen:                 g.MaxDescLen,
		CRDVersions:                g.CRDVersions,
		GenerateEmbeddedObjectMeta: g.GenerateEmbeddedObjectMeta,
		HeaderFile:                 g.HeaderFile,
		Year:                       g.Year,
		DeprecatedV1beta1CompatibilityPreserveUnknownFields: g.DeprecatedV1beta1CompatibilityPreserveUnknownFields,
		OmitToolVersion: g.OmitToolVersion,
	}
}

// CheckFilter is controller-tools' filter for CRD types.
func (g Generator) CheckFilter() loader.NodeFilter { return g.upstream().CheckFilter() }

// RegisterMarkers registers controller-tools' CRD markers and ours.
func (g Generator) RegisterMarkers(into *ctmarkers.Registry) error {
	if err := g.upstream().RegisterMarkers(into); err != nil {
		return err
	}
	return markers.Register(into)
}

// Help describes the generator's options.
func (g Generator) Help() *ctmarkers.DefinitionHelp {
	h := crd.Generator{}.Help()
	h.Summary = "generates CustomResourceDefinition objects, with +immutable markers compiled in."
	h.FieldHelp["Immutability"] = ctmarkers.DetailedHelp{
		Summary: "selects how +immutable markers are written: cel (default) or extensions.",
		Details: "cel: x-kubernetes-validations transition rules that real API servers enforce.\n" +
			"extensions: the KEP's x-kubernetes-immutable / x-kubernetes-immutable-keys booleans, for tools and the immutable-gen runtime (kubectl apply rejects them).",
	}
	return h
}

func (g Generator) mode() (string, error) {
	switch g.Immutability {
	case "", ModeCEL:
		return ModeCEL, nil
	case ModeExtensions:
		return ModeExtensions, nil
	}
	return "", fmt.Errorf("crd:immutability=%s: unknown mode; use cel or extensions", g.Immutability)
}

// Generate generates the CRDs as controller-tools' generator does, runs
// the immutability pipeline on each, and writes the results through ctx.
// It writes nothing if any CRD has an error.
func (g Generator) Generate(ctx *genall.GenerationContext) error {
	mode, err := g.mode()
	if err != nil {
		return err
	}
	files, err := g.parseCRDs(ctx)
	if err != nil {
		return err
	}
	diags := markers.Lint(ctx.Roots)
	out := make([][]byte, len(files))
	for i, f := range files {
		data, ds, err := g.process(f, mode)
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		diags = append(diags, ds...)
		out[i] = data
	}
	diags = diags.Sort()
	if g.report != nil {
		g.report(diags)
	}
	if diags.HasErrors() {
		if g.report != nil {
			return fmt.Errorf("crd: the immutability markers have errors")
		}
		return diagError(diags)
	}
	for i, f := range files {
		w, err := ctx.Open(nil, f.path)
		if err != nil {
			return err
		}
		_, werr := w.Write(out[i])
		if err := errors.Join(werr, w.Close()); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	return nil
}

type diagError diag.List

func (e diagError) Error() string {
	var lines []string
	for _, d := range e {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// process runs the immutability pipeline on one CRD and returns the file to
// write. A CRD without markers is encoded exactly as controller-tools
// encodes it; the API server's validation still runs on it, and its
// findings are warnings, so that output stays identical to controller-gen's.
func (g Generator) process(f crdFile, mode string) ([]byte, diag.List, error) {
	obj, err := g.toTree(f.crd)
	if err != nil {
		return nil, nil, err
	}
	if !hasCarriers(f.crd) {
		data, err := encode(f.header, obj)
		return data, validation.APIServer(f.crd, nil, diag.Warning), err
	}
	models := map[string]*schema.Node{}
	versions, _ := nested(obj, "spec", "versions").([]any)
	var diags diag.List
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		name, _ := vm["name"].(string)
		root, _ := nested(vm, "schema", "openAPIV3Schema").(map[string]any)
		if root == nil {
			continue
		}
		model, err := schema.Build(root)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", f.crd.Name, name, err)
		}
		models[name] = model
		diags = append(diags, validation.Placement(f.crd.Name+" "+name, model)...)
	}
	switch mode {
	case ModeExtensions:
		for _, m := range models {
			schema.EmitExtensions(m)
		}
	default:
		diags = append(diags, diag.Diagnostic{
			Severity: diag.Error,
			Subject:  f.crd.Name,
			Message:  "crd:immutability=cel, the default, is not implemented in this version of immutable-gen, and nothing weaker is emitted in its place",
			Fix:      "generate with crd:immutability=extensions (the KEP booleans, enforced by the immutable-gen runtime and check-update; not accepted by kubectl apply)",
		})
	}
	diags = append(diags, validation.APIServer(f.crd, models, diag.Error)...)
	data, err := encode(f.header, obj)
	return data, diags, err
}

// hasCarriers reports whether any schema node of the CRD carries a marker.
func hasCarriers(c *apiextv1.CustomResourceDefinition) bool {
	for _, v := range c.Spec.Versions {
		if v.Schema != nil && markers.SchemaHasCarrier(v.Schema.OpenAPIV3Schema) {
			return true
		}
	}
	return false
}

func nested(obj map[string]any, keys ...string) any {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}
