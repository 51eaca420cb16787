package placement_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/genall"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/openapi"
	"github.com/immutable-gen/immutable-gen/output"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/validators"
)

// agreeAPI is the test API every output judges (testdata/apis/agree/v1).
const agreeAPI = "testdata/apis/agree/v1"

// TestOutputsAgree runs the crd, openapi and validators generators on one
// marked API and wants from each the same placement findings: the same
// rule at the same marker, whatever the depth of the list map below an
// +immutable:ignoreOrder, through list items, map values and sets
// (docs/semantics.md, "One placement check"). Each case names the
// declaration whose marker is judged and what the rules say of it; a
// declaration not listed must have no placement finding.
func TestOutputsAgree(t *testing.T) {
	cases := []struct {
		name string
		decl string  // the field (Type.Field) or type the marker is on
		want diag.ID // "" when the placement is accepted
	}{
		{"ignoreOrder, list map one level below", "DeepSpec.One", ""},
		{"ignoreOrder, list map two levels below", "DeepSpec.Two", ""},
		{"ignoreOrder beside =once, list map three levels below", "DeepSpec.Three", ""},
		{"ignoreOrder, an atomic list and a set below, no list map", "DeepSpec.None", placement.IDIgnoreOrder},
		{"ignoreOrder, no list map two levels below", "DeepSpec.NoneDeep", placement.IDIgnoreOrder},
		{"ignoreOrder on a type used in atomic list items and map values", "Ordered", ""},
		{"=once on a type used in list items and map values", "Later", placement.IDOnceProperty},
		{"=keys on an atomic list", "ElementsSpec.AtomicKeys", placement.IDNoKeys},
		{"=keys on a set", "ElementsSpec.SetKeys", placement.IDNoKeys},
		{"ignoreOrder on a set", "ElementsSpec.SetOrdered", placement.IDIgnoreOrder},
		{"=keys on a list map with an immutable key", "ElementsSpec.Keyed", ""},
		{"the immutable key of a list map", "KeyedItem.Name", ""},
		{"=keys on a list map with a mutable key", "ElementsSpec.KeyedLoose", placement.IDListMapKey},
		{"=keys on a map", "ElementsSpec.Labels", ""},
		{"=keys on a struct", "ElementsSpec.Struct", placement.IDNoKeys},
		{"a marker inside an immutable subtree", "Wrapper.Value", placement.IDRedundant},
		{"an immutable subtree", "NestedSpec.Whole", ""},
		{"=once on a required field", "NestedSpec.Set", placement.IDOnceRequired},
	}
	decls := declarations(t)
	outputs := map[string]map[string][]diag.ID{
		"crd":        placementFindings(t, decls, crdgen.Generator{}),
		"openapi":    placementFindings(t, decls, openapi.Generator{}),
		"validators": placementFindings(t, decls, validators.Generator{}),
	}
	listed := map[string]bool{}
	for _, tc := range cases {
		listed[tc.decl] = true
		t.Run(tc.name, func(t *testing.T) {
			var want []diag.ID
			if tc.want != "" {
				want = []diag.ID{tc.want}
			}
			for _, out := range []string{"crd", "openapi", "validators"} {
				if got := outputs[out][tc.decl]; !slices.Equal(got, want) {
					t.Errorf("%s: placement findings at the marker of %s: %v, want %v", out, tc.decl, got, want)
				}
			}
		})
	}
	for out, found := range outputs {
		for decl, ids := range found {
			if !listed[decl] {
				t.Errorf("%s: placement findings %v at the marker of %s, which no case expects", out, ids, decl)
			}
		}
	}
}

// placementFindings runs gen on the test API and returns its placement
// findings (the IDs of placement.Checks but IG013, which only the CRD
// path reports: docs/semantics.md, "One placement check") by the
// declaration their marker is on, each ID once.
func placementFindings(t *testing.T, decls map[int]string, gen genall.Generator) map[string][]diag.ID {
	t.Helper()
	ids := map[diag.ID]bool{}
	for _, c := range placement.Checks() {
		ids[c.ID] = c.ID != placement.IDOptionalAncestor
	}
	got, _ := generate(t, gen, agreeAPI)
	out := map[string][]diag.ID{}
	for _, d := range got {
		if !ids[d.ID] {
			continue
		}
		decl, ok := decls[d.Pos.Line]
		if !ok || filepath.Base(d.Pos.Filename) != "types.go" {
			t.Errorf("%T: a placement finding at %s, not at a marker of %s: %s", gen, d.Pos, agreeAPI, d)
			continue
		}
		if !slices.Contains(out[decl], d.ID) {
			out[decl] = append(out[decl], d.ID)
			slices.Sort(out[decl])
		}
	}
	return out
}

// generate runs gen on the package dir (relative to the module root), as
// the CLI does, and returns its diagnostics and the files it would write,
// by name.
func generate(t *testing.T, gen genall.Generator, dir string) (diag.List, map[string][]byte) {
	t.Helper()
	var got diag.List
	collect := func(d diag.List) { got = append(got, d...) }
	switch g := gen.(type) {
	case crdgen.Generator:
		gen = g.WithReport(collect).WithServer(apiserver.InProcess{})
	case openapi.Generator:
		gen = g.WithReport(collect)
	case validators.Generator:
		gen = g.WithReport(collect)
	}
	root := moduleRoot(t)
	rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{Dir: root, BuildFlags: []string{"-tags=ignore_autogenerated"}}, "./"+dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := rt.GenerationContext
	buf := &output.Buffer{}
	ctx.OutputRule = buf.Rule(genall.OutputArtifacts{Config: genall.OutputToDirectory(t.TempDir())})
	if err := gen.Generate(&ctx); err != nil && !got.HasErrors() {
		t.Fatalf("%T: %v", gen, err)
	}
	files := map[string][]byte{}
	for _, a := range buf.Artifacts {
		files[filepath.Base(a.Path)] = a.Data
	}
	return got, files
}

// declarations maps each line of a doc comment in the test API's types.go
// to the declaration it documents: "Type.Field" or "Type".
func declarations(t *testing.T) map[int]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(moduleRoot(t), agreeAPI, "types.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	doc := func(cg *ast.CommentGroup, name string) {
		if cg == nil {
			return
		}
		for l := fset.Position(cg.Pos()).Line; l <= fset.Position(cg.End()).Line; l++ {
			out[l] = name
		}
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			doc(g.Doc, ts.Name.Name)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fld := range st.Fields.List {
				for _, n := range fld.Names {
					doc(fld.Doc, fmt.Sprintf("%s.%s", ts.Name.Name, n.Name))
				}
			}
		}
	}
	return out
}

// moduleRoot is the repository root.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(root, string(filepath.Separator))
}
