package crdmodel

import (
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/jsontag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// MarkExternal sets schema.Node.External on every node of root, the model
// of the kind named kind in pkg, that a Go type declared outside the
// module of pkg holds (k8s.io/api and the like): the user cannot add a
// bound there. It walks the kind's Go type beside the schema as
// controller-tools maps one onto the other: properties by json tag name,
// inline embedded structs' fields promoted, pointers followed, list items
// and map values by element type. Nodes the Go types do not explain keep
// their parent's mark.
func MarkExternal(pkg *loader.Package, kind string, root *schema.Node) {
	if pkg == nil || pkg.Types == nil || root == nil {
		return
	}
	obj := pkg.Types.Scope().Lookup(kind)
	if obj == nil {
		return
	}
	m := moduleOf{dir: moduleDir(pkg), fset: pkg.Fset}
	m.walk(root, obj.Type(), "")
}

// moduleOf tells which declarations are outside the user's module: their
// file is not under the module's directory, or is under a vendor
// directory (the module cache, GOROOT and vendored code cannot be edited
// as part of the API).
type moduleOf struct {
	dir  string
	fset *token.FileSet
}

// walk marks n, reached through the declaration of external ("" for the
// user's own), and its subtree, t being n's Go type (nil: unknown).
func (m moduleOf) walk(n *schema.Node, t types.Type, external string) {
	n.External = external
	t = deref(t)
	below := external
	if named, ok := t.(*types.Named); ok && m.outside(named) {
		below = typeName(named)
	}
	var u types.Type
	if t != nil {
		u = t.Underlying()
	}
	for name, c := range n.Properties {
		ct, decl := fieldType(u, name)
		ext := below
		if decl != nil && m.outside(decl) {
			ext = typeName(decl) // promoted from an external embedded struct
		}
		m.walk(c, ct, ext)
	}
	if n.Items != nil {
		var et types.Type
		if s, ok := u.(*types.Slice); ok {
			et = s.Elem()
		} else if a, ok := u.(*types.Array); ok {
			et = a.Elem()
		}
		m.walk(n.Items, et, below)
	}
	if n.Values != nil {
		var et types.Type
		if mt, ok := u.(*types.Map); ok {
			et = mt.Elem()
		}
		m.walk(n.Values, et, below)
	}
}

// outside reports whether named is declared outside the module.
func (m moduleOf) outside(named *types.Named) bool {
	obj := named.Obj()
	if obj.Pkg() == nil || m.dir == "" {
		return false
	}
	file := m.fset.Position(obj.Pos()).Filename
	if file == "" || !filepath.IsAbs(file) {
		return false
	}
	rel, err := filepath.Rel(m.dir, file)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) ||
		strings.Contains(filepath.ToSlash(rel), "/vendor/") || strings.HasPrefix(filepath.ToSlash(rel), "vendor/")
}

// fieldType returns the Go type of the property name of the struct u, as
// controller-tools names properties (a json tag name; embedded fields
// without one inlined), and the embedded named struct it is promoted from
// (nil for a field of u itself).
func fieldType(u types.Type, name string) (types.Type, *types.Named) {
	st, ok := u.(*types.Struct)
	if !ok {
		return nil, nil
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		tag, ok := jsontag.Lookup(reflect.StructTag(st.Tag(i)))
		if f.Embedded() && (!ok || tag.Inline()) {
			if ok && tag.Ignored() {
				continue
			}
			et := deref(f.Type())
			if t, decl := fieldType(et.Underlying(), name); t != nil {
				if decl == nil {
					decl, _ = et.(*types.Named)
				}
				return t, decl
			}
			continue
		}
		if ok && !tag.Ignored() && tag.Name == name {
			return f.Type(), nil
		}
	}
	return nil, nil
}

func deref(t types.Type) types.Type {
	for t != nil {
		t = types.Unalias(t)
		p, ok := t.(*types.Pointer)
		if !ok {
			return t
		}
		t = p.Elem()
	}
	return nil
}

func typeName(n *types.Named) string { return n.Obj().Pkg().Path() + "." + n.Obj().Name() }

// moduleDir is the directory of the go.mod above pkg's files, "" when
// there is none.
func moduleDir(pkg *loader.Package) string {
	if len(pkg.GoFiles) == 0 {
		return ""
	}
	for dir := filepath.Dir(pkg.GoFiles[0]); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}
