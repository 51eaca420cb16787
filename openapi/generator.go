// Package openapi is immutable-gen's `openapi` generator, for API servers
// whose OpenAPI comes from openapi-gen (aggregated API servers and other
// code-generator projects) rather than from CRDs.
//
// For every API package openapi-gen generates definitions for (a package
// with +k8s:openapi-gen=true in its doc.go, or with types tagged so), it
// writes zz_generated.immutable_openapi.go with one function:
//
//	// ApplyImmutability adds the immutability markers of this package's
//	// types to defs, the map openapi-gen's GetOpenAPIDefinitions returns.
//	func ApplyImmutability(defs map[string]common.OpenAPIDefinition)
//
// It sets the KEP's extensions to the JSON boolean true, so that the server
// publishes them on /openapi/v2 and /openapi/v3:
//
//   - `+immutable` on a field: x-kubernetes-immutable on the field's property
//     schema, defs[key].Schema.Properties[jsonName] (beside the $ref of a
//     struct-typed field; the v3 builder moves the $ref into allOf and keeps
//     the extension);
//   - `+immutable` on a struct type: on the type's definition,
//     defs[key].Schema, which every use of the type refers to;
//   - `+immutable` on another named type (`type ImageRef string`): on every
//     schema openapi-gen inlines it into, as a property, list items
//     (`items`) or map values (`additionalProperties`);
//   - `+immutable=keys`: x-kubernetes-immutable-keys, likewise.
//
// Definitions are keyed the way openapi-gen of the pinned kube-openapi keys
// them: by the type's OpenAPI model name, `Type{}.OpenAPIModelName()`, when
// the type has an OpenAPIModelName method or a +k8s:openapi-model-package
// tag (on the type or in doc.go), else by its Go path `pkg/path.Type`.
// Properties are named as openapi-gen names them: by the json tag, the Go
// name without one; json:"-" fields are skipped, and the fields of embedded
// structs with an empty json name are inlined.
//
// The markers are judged by the CRD path's rules (package placement) on the
// same immutability model (package schema): for each definition, the schema
// tree of a value of its type as openapi-gen describes it, with the
// definitions it refers to inlined, so that every marker is seen in the
// object it ends up in. The root type of a kind is an object (no marker on
// its root, metadata, apiVersion or kind); any other definition is a part of
// objects. Each finding is reported once, at the marker's Go position with
// the fix, however many definitions use the type. Beyond those rules the
// generator refuses what only openapi-gen explains: a marker on an inline
// embedded field, or on a field or type openapi-gen does not publish; and
// for =keys on a list, it says when openapi-gen ignored the +listType of the
// list's named type (it reads +listType, +mapType and +listMapKey from the
// field only). Any error fails the whole run, and nothing is written.
package openapi

import (
	"fmt"
	"go/ast"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/output"
)

// FileName is the name of the file written into each API package.
const FileName = "zz_generated.immutable_openapi.go"

// Generator generates ApplyImmutability for openapi-gen's definitions. Its
// options are those of controller-gen's object generator.
type Generator struct {
	// HeaderFile specifies the header text (e.g. license) to prepend to generated files.
	HeaderFile string `marker:",optional"`
	// Year specifies the year to substitute for " YEAR" in the header file.
	Year string `marker:",optional"`

	// report receives the diagnostics of a run (warnings and notes as well
	// as errors). When nil, errors are returned from Generate and the rest
	// is printed to standard error.
	report func(diag.List)
}

// WithReport returns g with fn receiving every run's diagnostics.
func (g Generator) WithReport(fn func(diag.List)) Generator {
	g.report = fn
	return g
}

// RegisterMarkers registers +immutable and +immutable=keys.
func (Generator) RegisterMarkers(into *ctmarkers.Registry) error {
	return markers.Register(into)
}

// CheckFilter makes the generator type-check the types of the packages (it
// needs the Go types of fields), skipping interfaces like the object
// generator does.
func (Generator) CheckFilter() loader.NodeFilter {
	return func(node ast.Node) bool {
		_, isIface := node.(*ast.InterfaceType)
		return !isIface
	}
}

// Help describes the generator and its options.
func (Generator) Help() *ctmarkers.DefinitionHelp {
	return &ctmarkers.DefinitionHelp{
		Category: "",
		DetailedHelp: ctmarkers.DetailedHelp{
			Summary: "generates ApplyImmutability, which adds +immutable markers to openapi-gen's definitions.",
			Details: "For each package openapi-gen generates definitions for, writes " + FileName + " with\n" +
				"func ApplyImmutability(defs map[string]common.OpenAPIDefinition): call it on the result of\n" +
				"GetOpenAPIDefinitions so that the API server publishes x-kubernetes-immutable and\n" +
				"x-kubernetes-immutable-keys on /openapi/v2 and /openapi/v3.",
		},
		FieldHelp: output.HeaderHelp(),
	}
}

// Generate writes FileName into every root package openapi-gen generates
// definitions for. It writes nothing when any package has an error.
func (g Generator) Generate(ctx *genall.GenerationContext) error {
	header, err := output.Header(ctx, g.HeaderFile, g.Year)
	if err != nil {
		return err
	}
	header = strings.TrimSpace(header)

	a := newAnalyzer(ctx.Collector, ctx.Roots)
	var analyzed []*pkgResult
	var defs []*definition
	for _, root := range ctx.Roots {
		if ctx.Checker != nil {
			ctx.Checker.Check(root)
		}
		root.NeedTypesInfo()
		if res := a.analyzePackage(root); res != nil {
			analyzed = append(analyzed, res)
			defs = append(defs, res.defs...)
		}
	}
	if err := a.place(defs); err != nil {
		return err
	}
	var results []*pkgResult
	for _, res := range analyzed {
		if a.finish(res) {
			results = append(results, res)
		}
	}
	diags := append(markers.Lint(ctx.Roots), a.diags...).Sort()

	if err := diags.Report(g.report, "openapi"); err != nil {
		return err
	}

	files := make([][]byte, len(results))
	for i, res := range results {
		out, err := render(res, header)
		if err != nil {
			return err
		}
		files[i] = out
	}
	for i, res := range results {
		if err := write(ctx, res.pkg, files[i]); err != nil {
			return err
		}
	}
	return nil
}

func write(ctx *genall.GenerationContext, pkg *loader.Package, data []byte) error {
	w, err := ctx.Open(pkg, FileName)
	if err != nil {
		return err
	}
	_, werr := w.Write(data)
	cerr := w.Close()
	if werr != nil {
		return fmt.Errorf("writing %s for %s: %w", FileName, pkg.PkgPath, werr)
	}
	if cerr != nil {
		return fmt.Errorf("writing %s for %s: %w", FileName, pkg.PkgPath, cerr)
	}
	return nil
}
