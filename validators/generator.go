// Package validators is immutable-gen's `validators` generator: typed
// update validators for Go API types, written with k8s.io/gengo/v2's
// generator framework as deepcopy-gen and validation-gen are.
//
// For every package that holds the Go type of a CRD version with
// immutability markers, it writes zz_generated.immutable.go with, for each
// root kind T of the package (a type controller-tools makes a CRD of),
//
//	func (in *T) ValidateImmutableUpdate(old *T) field.ErrorList
//
// It does not analyse the Go types a second time to find where markers
// land: it builds the crd generator's model (crdmodel.Models: controller-tools'
// CRD schema of each kind with the markers' carriers, schema.Build, and
// placement.Check, whose errors stop the run with nothing written), and
// walks each schema.Node tree together with the Go type it was generated
// from, matching JSON property names to Go fields as encoding/json does. The
// generated code therefore checks the schema the crd generator writes, and
// its verdicts and errors are the runtime's on the JSON of the same two
// objects (docs/semantics.md, "Typed validators").
//
// The generated code compares Go values directly: no reflection, no
// conversion to unstructured content. Values are present or absent as in
// their JSON (a nil pointer, slice or map is null, or absent with
// omitempty; an empty string, zero number or false is absent with
// omitempty; omitzero as encoding/json decides it, zero.go), lists of listType=set compare as multisets, list maps are
// correlated by key, +immutable=keys compares key sets, +immutable=once
// presence. It calls package runtime/immutable for the errors (the texts the
// runtime reports) and for multisets and list-map correlation. A check that
// finds nothing allocates nothing.
//
// Types with their own JSON encoding compare as their JSON does:
// metav1.Time, MicroTime, Duration, resource.Quantity and
// intstr.IntOrString by dedicated functions, any other type with a
// MarshalJSON (runtime.RawExtension, apiextensions JSON, metav1.FieldsV1)
// by the JSON values the method writes. A value the generated code cannot
// compare exactly (an interface, a MarshalText-only type, map keys that are
// not strings, sets of structs) is an error at the marker that needs the
// comparison: never a weaker check.
//
// Conditional markers (+immutable:when) are compiled into Go over the
// typed values (when.go), with the verdicts of the rule the crd generator
// lowers them into; a condition the typed code cannot evaluate exactly is
// an error at its text (IG047, IG048).
package validators

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/types"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/crdmodel"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/output"
	"github.com/immutable-gen/immutable-gen/schema"
)

// FileName is the file written into each package.
const FileName = "zz_generated.immutable.go"

// Generator generates typed immutability validators. Its options are those
// of controller-gen's object generator, and the crd generator's options
// that change the schema.
type Generator struct {
	// HeaderFile specifies the header text (e.g. license) to prepend to generated files.
	HeaderFile string `marker:",optional"`
	// Year specifies the year to substitute for " YEAR" in the header file.
	Year string `marker:",optional"`
	// AllowDangerousTypes allows float32 and float64 fields (the default here; false refuses them as the crd generator does).
	AllowDangerousTypes *bool `marker:",optional"`
	// IgnoreUnexportedFields ignores unexported fields, as the crd generator's option does.
	IgnoreUnexportedFields *bool `marker:",optional"`
	// Conditional says what to do with a conditional marker
	// (+immutable:when): "error" (the default) compiles its condition into
	// the typed validator, and refuses one it cannot compile (IG047, IG048);
	// "skip" leaves the field's own constraint to the CRD's CEL rule, with a
	// warning (IG052). The typed validators evaluate conditions since issue
	// 33: skip is no longer needed, and kept for the make targets that pass
	// it.
	Conditional string `marker:",optional"`

	// report receives the diagnostics of a run; when nil, errors are
	// returned from Generate and the rest is printed to standard error
	// (diag.List.Report).
	report func(diag.List)
}

// The IDs of the validators generator's own findings (placement findings
// are package placement's).
const (
	// IDUnreached: a marker no CRD kind of the run uses.
	IDUnreached diag.ID = "IG050"
	// IDUncheckable: a value the typed validators cannot compare exactly.
	IDUncheckable diag.ID = "IG051"
	// IDConditionalSkipped: a conditional marker the typed validators
	// leave unchecked, under validators:conditional=skip.
	IDConditionalSkipped diag.ID = "IG052"
)

// Checks describes the validators generator's own findings.
func Checks() []diag.Check {
	return []diag.Check{
		{ID: IDUnreached, Severity: diag.Warning, Title: "a marker on a field or type no CRD kind of the run uses: no typed validator checks it"},
		{ID: IDUncheckable, Severity: diag.Error, Title: "a marked value the typed validators cannot compare exactly (its Go type)"},
		{ID: IDOmitZeroToolchain, Severity: diag.Error, Title: "a field with the json option omitzero in a module whose go line allows a toolchain older than Go 1.24, whose encoding/json ignores it (one error per package)"},
		{ID: IDConditionalSkipped, Severity: diag.Warning, Title: "a conditional marker (+immutable:when) the typed validators leave unchecked under validators:conditional=skip (the CRD's CEL rule enforces it)"},
		{ID: IDWhenUncompiled, Severity: diag.Error, Title: "a construct of an +immutable:when condition the typed validators cannot compile into Go with CEL's semantics exactly (an int-or-string ordered, == on list maps, …), at the condition's text"},
		{ID: IDWhenSubset, Severity: diag.Error, Title: "an +immutable:when condition outside the subset the enforcers evaluate (or not CEL), at the condition's text"},
	}
}

// WithReport returns g with fn receiving every run's diagnostics.
func (g Generator) WithReport(fn func(diag.List)) Generator {
	g.report = fn
	return g
}

// crd is controller-tools' crd generator whose CRDs' model the validators
// read (crdmodel.Models). Floats are allowed unless
// allowDangerousTypes=false: the crd generator refuses them for the
// portability of CRDs, which typed validators do not write.
func (g Generator) crd() crd.Generator {
	allow := g.AllowDangerousTypes
	if allow == nil {
		t := true
		allow = &t
	}
	return crd.Generator{AllowDangerousTypes: allow, IgnoreUnexportedFields: g.IgnoreUnexportedFields}
}

// RegisterMarkers registers controller-tools' CRD markers and +immutable.
func (g Generator) RegisterMarkers(into *ctmarkers.Registry) error {
	if err := g.crd().RegisterMarkers(into); err != nil {
		return err
	}
	return markers.Register(into)
}

// CheckFilter is the crd generator's.
func (g Generator) CheckFilter() loader.NodeFilter { return g.crd().CheckFilter() }

// Help describes the generator and its options.
func (Generator) Help() *ctmarkers.DefinitionHelp {
	return &ctmarkers.DefinitionHelp{
		Category: "",
		DetailedHelp: ctmarkers.DetailedHelp{
			Summary: "generates typed ValidateImmutableUpdate methods for the root kinds of packages with +immutable markers.",
			Details: "Writes " + FileName + " into every package holding a CRD kind with immutability markers, with\n" +
				"func (in *T) ValidateImmutableUpdate(old *T) field.ErrorList for each root kind T: the verdicts and\n" +
				"errors of the immutable-gen runtime on the CRD schema of the same types, comparing Go values directly.",
		},
		FieldHelp: withHeaderHelp(map[string]ctmarkers.DetailedHelp{
			"AllowDangerousTypes":    {Summary: "allows float32 and float64 fields (default true here; false refuses them as crd:allowDangerousTypes=false does)."},
			"IgnoreUnexportedFields": {Summary: "ignores unexported fields, as crd:ignoreUnexportedFields does."},
			"Conditional":            {Summary: "what to do with +immutable:when: error (default: the condition is compiled into the validator, and one it cannot compile is refused, IG047/IG048) or skip (the field is left to the CRD's CEL rule, with a warning, IG052; no longer needed)."},
		}),
	}
}

// withHeaderHelp adds the help of the headerFile and year options to help.
func withHeaderHelp(help map[string]ctmarkers.DetailedHelp) map[string]ctmarkers.DetailedHelp {
	maps.Copy(help, output.HeaderHelp())
	return help
}

// Generate writes FileName into every package holding a CRD kind with
// markers. It writes nothing when any marker has an error.
func (g Generator) Generate(ctx *genall.GenerationContext) error {
	header, err := output.Header(ctx, g.HeaderFile, g.Year)
	if err != nil {
		return err
	}
	header = strings.TrimSpace(header)
	models, diags, err := crdmodel.Models(ctx, g.crd())
	if err != nil {
		return err
	}
	var files map[*loader.Package][]byte
	if !diags.HasErrors() {
		if !packageErrors(ctx.Roots) {
			// A marker the parser refused (on metadata) is reported there.
			diags = append(diags, unreached(ctx.Roots, models)...)
		}
		var ds diag.List
		if g.Conditional != "" && g.Conditional != "error" && g.Conditional != "skip" {
			return fmt.Errorf("validators:conditional=%s: the value is error or skip", g.Conditional)
		}
		files, ds, err = render(models, header, g.Conditional == "skip")
		if err != nil {
			return err
		}
		diags = append(diags, ds...).Sort()
	}
	if err := diags.Report(g.report, "validators"); err != nil {
		return err
	}
	pkgs := slices.SortedFunc(maps.Keys(files), func(a, b *loader.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	for _, pkg := range pkgs {
		w, err := ctx.Open(pkg, FileName)
		if err != nil {
			return err
		}
		_, werr := w.Write(files[pkg])
		if err := errors.Join(werr, w.Close()); err != nil {
			return fmt.Errorf("writing %s for %s: %w", FileName, pkg.PkgPath, err)
		}
	}
	return nil
}

// Render generates the file of every package with a marked kind among
// models, with header (license text, without comment markers' trailing
// newline) at the top. Diagnostics say what the generated code cannot
// check; with an error among them, files are not to be written.
func Render(models []crdmodel.Model, header string) (map[*loader.Package][]byte, diag.List, error) {
	return render(models, header, false)
}

// render is Render; skipConditional leaves conditional markers unchecked,
// with a warning (validators:conditional=skip).
func render(models []crdmodel.Model, header string, skipConditional bool) (map[*loader.Package][]byte, diag.List, error) {
	byPkg := map[*loader.Package][]crdmodel.Model{}
	marked := map[*loader.Package]bool{}
	for _, m := range models {
		byPkg[m.Package] = append(byPkg[m.Package], m)
		marked[m.Package] = marked[m.Package] || m.Root.Marked()
	}
	files := map[*loader.Package][]byte{}
	var diags diag.List
	for pkg, ms := range byPkg {
		if !marked[pkg] {
			continue
		}
		data, ds, err := renderPackage(pkg, ms, header, skipConditional)
		if err != nil {
			return nil, nil, err
		}
		diags = append(diags, ds...)
		files[pkg] = data
	}
	return files, diags, nil
}

// renderPackage runs gengo's generator framework on one package: a target
// whose one generator writes the validators, assembled and formatted by
// gengo's Go file type into memory.
func renderPackage(pkg *loader.Package, models []crdmodel.Model, header string, skipConditional bool) ([]byte, diag.List, error) {
	pkg.NeedTypesInfo()
	if pkg.Types == nil {
		return nil, nil, fmt.Errorf("%s: no type information", pkg.PkgPath)
	}
	slices.SortFunc(models, func(a, b crdmodel.Model) int { return strings.Compare(a.Kind, b.Kind) })
	taken := declared(pkg)
	tracker := generator.NewImportTrackerForPackage(pkg.PkgPath)
	// Imports must not be named like the package's own declarations.
	gengoName := tracker.LocalName
	tracker.LocalName = func(n gengotypes.Name) string {
		name := gengoName(n)
		for slices.Contains(taken, name) {
			name += "pkg"
		}
		return name
	}
	e := newEmitter(pkg.Types, taken, tracker)
	e.skipConditional = skipConditional
	e.fset = pkg.Fset
	var err error
	if e.goLine, err = findGoLine(pkgDir(pkg)); err != nil {
		return nil, nil, err
	}
	for _, m := range models {
		obj, _ := pkg.Types.Scope().Lookup(m.Kind).(*types.TypeName)
		named, ok := types.Unalias(objType(obj)).(*types.Named)
		if !ok || structOf(named) == nil {
			return nil, nil, fmt.Errorf("%s: kind %s is not a struct type of the package", pkg.PkgPath, m.Kind)
		}
		e.crd, e.version = m.CRD, m.Version
		e.root(named, m.Root)
	}
	var body bytes.Buffer
	for _, f := range e.funcs {
		body.Write(f.Bytes())
	}
	if e.diags.HasErrors() {
		return nil, e.diags, nil
	}
	var head bytes.Buffer
	head.WriteString(output.GoFileHead(header))

	mem := &memoryFiles{files: map[string][]byte{}}
	c := &generator.Context{
		Namers:    namer.NameSystems{},
		FileTypes: map[string]generator.FileType{generator.GoFileType: mem},
	}
	dir := pkgDir(pkg)
	target := generator.SimpleTarget{
		PkgName:       pkg.Name,
		PkgPath:       pkg.PkgPath,
		PkgDir:        dir,
		HeaderComment: head.Bytes(),
		GeneratorsFunc: func(*generator.Context) []generator.Generator {
			return []generator.Generator{&fileGenerator{
				GoGenerator: generator.GoGenerator{OutputFilename: FileName},
				body:        body.Bytes(),
				tracker:     tracker,
			}}
		},
	}
	if err := c.ExecuteTarget(target); err != nil {
		return nil, nil, err
	}
	return mem.files[filepath.Join(dir, FileName)], e.diags, nil
}

// unreached warns about each +immutable marker in pkgs that no model
// carries: no CRD kind uses the field or type it is on, so no typed
// validator checks it (controller-tools makes CRDs only of the kinds of
// packages with +groupName, kinds embedding TypeMeta and ObjectMeta).
func unreached(pkgs []*loader.Package, models []crdmodel.Model) diag.List {
	carried := map[string]bool{}
	for _, m := range models {
		m.Root.Walk(func(n *schema.Node) {
			for _, o := range n.Origins {
				carried[fmt.Sprintf("%s:%d", o.Pos.Filename, o.Pos.Line)] = true
			}
		})
	}
	var out diag.List
	for c := range markers.Comments(pkgs) {
		if c.Text != "+immutable" && !strings.HasPrefix(c.Text, "+immutable=") {
			continue
		}
		if carried[fmt.Sprintf("%s:%d", c.Pos.Filename, c.Pos.Line)] {
			continue
		}
		out = append(out, diag.Diagnostic{
			ID:       IDUnreached,
			Pos:      c.Pos,
			Severity: diag.Warning,
			Subject:  c.Text,
			Message:  "no CRD kind of this run uses the field or type it is on, so no typed validator checks it",
			Fix:      "the validators check the kinds controller-tools makes CRDs of (types embedding metav1.TypeMeta and metav1.ObjectMeta) and the types they use: run the generator on the packages of those kinds too, or drop the marker",
		})
	}
	return out
}

// packageErrors reports whether a package has errors other than type
// errors (which partial type-checking causes, as in controller-gen).
func packageErrors(pkgs []*loader.Package) bool {
	for _, p := range pkgs {
		for _, e := range p.Errors {
			if e.Kind != packages.TypeError {
				return true
			}
		}
	}
	return false
}

// declared returns the package-level names the package declares, outside
// a previous output of this generator: the generated code must not take
// them.
func declared(pkg *loader.Package) []string {
	pkg.NeedSyntax()
	var names []string
	for _, f := range pkg.Syntax {
		if filepath.Base(pkg.Fset.Position(f.Pos()).Filename) == FileName {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						names = append(names, sp.Name.Name)
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

func objType(obj *types.TypeName) types.Type {
	if obj == nil {
		return nil
	}
	return obj.Type()
}

func pkgDir(pkg *loader.Package) string {
	if len(pkg.CompiledGoFiles) > 0 {
		return filepath.Dir(pkg.CompiledGoFiles[0])
	}
	if len(pkg.GoFiles) > 0 {
		return filepath.Dir(pkg.GoFiles[0])
	}
	return "."
}

// fileGenerator is the gengo generator of one package's file: its body was
// written by the emitter; its imports are the tracker's.
type fileGenerator struct {
	generator.GoGenerator
	body    []byte
	tracker *namer.DefaultImportTracker
}

func (g *fileGenerator) Init(_ *generator.Context, w io.Writer) error {
	_, err := w.Write(g.body)
	return err
}

func (g *fileGenerator) Imports(*generator.Context) []string { return g.tracker.ImportLines() }

// memoryFiles is gengo's Go file type (its assembly and formatting),
// keeping the result in memory: the run writes through the output rules of
// controller-tools, all or nothing.
type memoryFiles struct {
	files map[string][]byte
}

func (m *memoryFiles) AssembleFile(f *generator.File, path string) error {
	gofile := generator.NewGoFile()
	var b bytes.Buffer
	gofile.Assemble(&b, f)
	out, err := gofile.Format(b.Bytes())
	if err != nil {
		return fmt.Errorf("formatting the generated %s: %w\n%s", path, err, b.Bytes())
	}
	m.files[path] = out
	return nil
}
