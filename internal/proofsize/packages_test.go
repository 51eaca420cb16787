package proofsize

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestProofsListed: the Makefile's PROOF_PACKAGES and PROOF_TESTS, which
// `make test-proofs` and .ci/run run with IMMUTABLE_GEN_PROOFS=full (go
// test -run of the tests, in the packages), are exactly the root module's
// packages whose tests use this package and the tests whose size it sets:
// a test that calls it, or calls a function of its package that does
// (migrate's planModule). So no full-size proof is left out of CI, and CI
// does not run the other tests of those packages a second time.
func TestProofsListed(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string][]string{} // package directory → its test files
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return fs.SkipDir // a nested module
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") && filepath.Base(filepath.Dir(path)) != "proofsize" {
			pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wantPkgs, wantTests []string
	for dir, files := range pkgs {
		tests := scaledTests(t, files)
		if len(tests) == 0 {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		wantPkgs = append(wantPkgs, "./"+filepath.ToSlash(rel))
		for _, name := range tests {
			if !slices.Contains(wantTests, name) {
				wantTests = append(wantTests, name)
			}
		}
	}
	slices.Sort(wantPkgs)
	slices.Sort(wantTests)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		variable string
		want     []string
	}{
		{"PROOF_PACKAGES", wantPkgs},
		{"PROOF_TESTS", wantTests},
	} {
		var got []string
		for _, line := range strings.Split(string(mk), "\n") {
			if rest, ok := strings.CutPrefix(line, c.variable+" = "); ok {
				got = strings.Fields(rest)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("the Makefile's %s = %v; from the tests that use proofsize: %v", c.variable, got, c.want)
		}
	}
}

// scaledTests returns the Test functions of one package's test files that
// call proofsize, directly or through functions of the package.
func scaledTests(t *testing.T, files []string) []string {
	t.Helper()
	fset := token.NewFileSet()
	direct := map[string]bool{}
	calls := map[string][]string{}
	var funcs []string
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil {
				continue
			}
			name := fd.Name.Name
			funcs = append(funcs, name)
			ast.Inspect(fd, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && id.Name == "proofsize" {
						direct[name] = true
					}
				case *ast.CallExpr:
					fun := n.Fun
					switch x := fun.(type) {
					case *ast.IndexExpr:
						fun = x.X
					case *ast.IndexListExpr:
						fun = x.X
					}
					if id, ok := fun.(*ast.Ident); ok {
						calls[name] = append(calls[name], id.Name)
					}
				}
				return true
			})
		}
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range funcs {
			if direct[fn] {
				continue
			}
			for _, callee := range calls[fn] {
				if direct[callee] {
					direct[fn], changed = true, true
					break
				}
			}
		}
	}
	var out []string
	for _, fn := range funcs {
		if direct[fn] && strings.HasPrefix(fn, "Test") && fn != "TestMain" {
			out = append(out, fn)
		}
	}
	return out
}
