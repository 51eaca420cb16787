// Package crdgen is immutable-gen's `crd` generator: controller-tools' CRD
// generator, unchanged, followed by the immutability pipeline on every CRD it
// produces — build the model from the markers (package schema), check the
// KEP placement rules and the API server's CRD validation (package
// validation), and emit the extensions or CEL. CRDs without markers pass
// through byte for byte, so the generator is a drop-in for controller-gen's.
package crdgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/controller-tools/pkg/version"
	"sigs.k8s.io/yaml"

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

// Generate runs controller-tools' CRD generator into memory, then the
// immutability pipeline on each CRD, and writes the results through ctx.
// It writes nothing if any CRD has an error.
func (g Generator) Generate(ctx *genall.GenerationContext) error {
	mode, err := g.mode()
	if err != nil {
		return err
	}
	capture := &captureRule{}
	inner := *ctx
	inner.OutputRule = capture
	if err := g.upstream().Generate(&inner); err != nil {
		return err
	}
	for _, f := range capture.files {
		f.data = attributeUpstream(f.data)
	}

	diags := markers.Lint(ctx.Roots)
	type result struct {
		path string
		data []byte
	}
	var results []result
	for _, f := range capture.files {
		data, ds, err := Process(f.data, mode)
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		diags = append(diags, ds...)
		results = append(results, result{f.path, data})
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
	for _, r := range results {
		w, err := ctx.Open(nil, r.path)
		if err != nil {
			return err
		}
		_, werr := w.Write(r.data)
		if err := w.Close(); err != nil || werr != nil {
			return fmt.Errorf("writing %s: %v %v", r.path, werr, err)
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

// Process runs the immutability pipeline on one generated CRD file (header,
// `---`, YAML, as controller-tools writes it) and returns the file to write.
// A CRD without markers comes back unchanged, byte for byte; the API
// server's validation still runs on it, and its findings are warnings, so
// that output stays identical to controller-gen's.
func Process(file []byte, mode string) ([]byte, diag.List, error) {
	header, body, ok := splitHeader(file)
	if !ok {
		return nil, nil, fmt.Errorf("unexpected generated CRD layout: no document separator")
	}
	marked := markers.HasCarrier(body)
	obj, err := decode(body)
	if err != nil {
		return nil, nil, err
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
			return nil, nil, fmt.Errorf("%s %s: %w", crdName(obj), name, err)
		}
		models[name] = model
		diags = append(diags, validation.Placement(crdName(obj)+" "+name, model)...)
	}
	if !marked {
		return file, validation.APIServer(obj, models, diag.Warning), nil
	}
	switch mode {
	case ModeExtensions:
		for _, m := range models {
			schema.EmitExtensions(m)
		}
	default:
		diags = append(diags, diag.Diagnostic{
			Severity: diag.Error,
			Subject:  crdName(obj),
			Message:  "crd:immutability=cel, the default, is not implemented in this version of immutable-gen, and nothing weaker is emitted in its place",
			Fix:      "generate with crd:immutability=extensions (the KEP booleans, enforced by the immutable-gen runtime and check-update; not accepted by kubectl apply)",
		})
	}
	diags = append(diags, validation.APIServer(obj, models, diag.Error)...)
	out, err := yaml.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	return append(append(header, "---\n"...), out...), diags, nil
}

// attributeUpstream makes the controller-gen version annotation name the
// controller-tools release that generated the CRD, as controller-gen of that
// release would, instead of immutable-gen's own module version.
func attributeUpstream(data []byte) []byte {
	const key = "controller-gen.kubebuilder.io/version: "
	upstream := ControllerToolsVersion()
	ours := version.Version()
	if upstream == "" || upstream == ours {
		return data
	}
	return bytes.Replace(data, []byte(key+ours+"\n"), []byte(key+upstream+"\n"), 1)
}

// ControllerToolsVersion is the version of sigs.k8s.io/controller-tools
// built into this binary, or "" when the build has no module information.
func ControllerToolsVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if info.Main.Path == "sigs.k8s.io/controller-tools" {
		return info.Main.Version
	}
	for _, dep := range info.Deps {
		if dep.Path == "sigs.k8s.io/controller-tools" {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return ""
}

func crdName(obj map[string]any) string {
	name, _ := nested(obj, "metadata", "name").(string)
	return name
}

// splitHeader splits controller-tools' output into the header text and the
// YAML document after the first `---` line.
func splitHeader(file []byte) (header, body []byte, ok bool) {
	if rest, found := bytes.CutPrefix(file, []byte("---\n")); found {
		return nil, rest, true
	}
	i := bytes.Index(file, []byte("\n---\n"))
	if i < 0 {
		return nil, nil, false
	}
	return file[:i+1], file[i+len("\n---\n"):], true
}

// decode reads YAML as controller-tools wrote it into a generic tree, with
// numbers kept exact.
func decode(body []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
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

// captureRule keeps what the upstream generator writes.
type captureRule struct {
	files []*capturedFile
}

type capturedFile struct {
	path string
	data []byte
	buf  bytes.Buffer
}

func (c *captureRule) Open(_ *loader.Package, path string) (io.WriteCloser, error) {
	f := &capturedFile{path: path}
	c.files = append(c.files, f)
	return f, nil
}

func (f *capturedFile) Write(p []byte) (int, error) { return f.buf.Write(p) }
func (f *capturedFile) Close() error {
	f.data = f.buf.Bytes()
	return nil
}
