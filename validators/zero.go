package validators

import (
	"bytes"
	"fmt"
	"go/token"
	"go/types"
	"go/version"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// encoding/json's omitzero (Go 1.24 and later), modelled exactly: a field
// with the option is left out of the JSON when its value is zero, and
// "zero" is decided as encoding/json decides it, by the field's declared
// type:
//
//  1. an interface type whose method set has IsZero() bool: nil, a nil
//     pointer inside, or IsZero();
//  2. a pointer type whose method set has it (*T where T or *T has it):
//     nil, or IsZero();
//  3. a type whose method set has it: IsZero();
//  4. a type T where *T has it: IsZero() on the (addressable) value;
//  5. otherwise reflect.Value.IsZero: the zero value, which for a struct
//     is every non-blank field zero and for an array every element zero
//     (recursively, without IsZero methods), nil for pointers, slices,
//     maps, interfaces, channels and functions — a nil slice or map is
//     zero, an empty one is not.
//
// The generated code decides case 5 without reflection: `x == T{}` where T
// is comparable (the same verdict as reflect's: blank fields do not count,
// -0.0 is zero, NaN is not), otherwise one generated function per struct or
// array type that checks each field or element. Only where the generated
// code cannot read a field (an unexported field of another package's
// struct) or name a type (an unexported type of another package) does it
// call reflect.Value.IsZero itself, which is what encoding/json calls.

// minOmitZero is the first Go release whose encoding/json honours omitzero.
const minOmitZero = "1.24"

// IDs of the omitzero findings.
const (
	// IDOmitZeroToolchain: omitzero in a module whose go line allows a
	// toolchain older than Go 1.24, whose encoding/json ignores it.
	IDOmitZeroToolchain diag.ID = "IG053"
)

// isZeroer is encoding/json's interface{ IsZero() bool }.
func isZeroer() *types.Interface {
	result := types.NewTuple(types.NewVar(token.NoPos, nil, "", types.Typ[types.Bool]))
	sig := types.NewSignatureType(nil, nil, nil, nil, result, false)
	return types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, "IsZero", sig)}, nil).Complete()
}

// zeroMethod says how encoding/json decides omitzero for a field of type
// t: by an IsZero method (cases 1 to 4 above, "interface", "pointer",
// "value", "addr"), or "" by the zero value.
func zeroMethod(t types.Type) string {
	iz := isZeroer()
	switch {
	case types.IsInterface(t) && types.Implements(t, iz):
		return "interface"
	case isPointer(t) && types.Implements(t, iz):
		return "pointer"
	case types.Implements(t, iz):
		return "value"
	case !types.IsInterface(t) && types.Implements(types.NewPointer(t), iz):
		return "addr"
	}
	return ""
}

func isPointer(t types.Type) bool {
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// nonZero renders encoding/json's "not zero" of x, an addressable
// expression of the declared type t of a field with omitzero: the field is
// in the JSON when it is true. n is the field's schema node.
func (e *emitter) nonZero(t types.Type, x string, n *schema.Node) string {
	switch zeroMethod(t) {
	case "interface":
		// encoding/json guards the call against a nil pointer inside.
		rv := e.pkg("reflect")
		return fmt.Sprintf("(%[1]s != nil && !(%[2]s.ValueOf(%[1]s).Kind() == %[2]s.Pointer && %[2]s.ValueOf(%[1]s).IsNil()) && !%[1]s.IsZero())", x, rv)
	case "pointer":
		return "(" + x + " != nil && !" + x + ".IsZero())"
	case "value", "addr":
		return "!" + x + ".IsZero()"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&(types.IsString|types.IsBoolean|types.IsNumeric) != 0 {
			return e.nonEmpty(t, x, n)
		}
	case *types.Pointer, *types.Interface, *types.Slice, *types.Map, *types.Chan, *types.Signature:
		return x + " != nil"
	}
	if lit, ok := e.zeroValue(t); ok {
		return x + " != " + lit
	}
	switch z := e.zero(t, x); {
	case z == "true":
		return "false"
	case strings.Contains(z, " "):
		return "!(" + z + ")"
	default:
		return "!" + z
	}
}

// zeroValue renders the zero value of t as a composite literal, where ==
// compares with it as reflect.Value.IsZero decides (a comparable struct or
// array: blank fields ignored, -0.0 zero, an interface compared with nil
// never panics) and the generated code can name t.
func (e *emitter) zeroValue(t types.Type) (string, bool) {
	switch t.Underlying().(type) {
	case *types.Struct, *types.Array:
		if e.nameable(t) && types.Comparable(t) {
			return "(" + e.typeString(t) + "{})", true
		}
	}
	return "", false
}

// zero renders reflect.Value.IsZero of x, an addressable expression of
// type t: the zero value, IsZero methods ignored.
func (e *emitter) zero(t types.Type, x string) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return x + ` == ""`
		case u.Info()&types.IsBoolean != 0:
			return "!" + x
		case u.Info()&(types.IsNumeric) != 0:
			return x + " == 0"
		case u.Kind() == types.UnsafePointer:
			return x + " == nil"
		}
	case *types.Pointer, *types.Interface, *types.Slice, *types.Map, *types.Chan, *types.Signature:
		return x + " == nil"
	case *types.Array:
		if u.Len() == 0 {
			return "true"
		}
	}
	if lit, ok := e.zeroValue(t); ok {
		return x + " == " + lit
	}
	if !e.nameable(t) {
		return e.reflectZero(x)
	}
	return e.zeroFunc(t) + "(" + addr(x) + ")"
}

// reflectZero renders reflect.Value.IsZero of addressable x: what
// encoding/json calls, for values whose parts the generated code cannot
// read.
func (e *emitter) reflectZero(x string) string {
	return e.pkg("reflect") + ".ValueOf(" + addr(x) + ").Elem().IsZero()"
}

// zeroFunc returns the function that decides reflect.Value.IsZero of a
// value of t, a struct or array type that is not comparable:
// func(x *T) bool, each field (but blank ones) or element zero.
func (e *emitter) zeroFunc(t types.Type) string {
	ts := e.typeString(t)
	base := "zero" + e.typeName(t)
	if a, ok := t.(*types.Array); ok {
		base = "zeroArray" + strconv.FormatInt(a.Len(), 10) + e.typeName(a.Elem())
	}
	name, b, isNew := e.newFunc("zero|"+ts, base)
	if !isNew {
		return name
	}
	var body bytes.Buffer
	switch u := t.Underlying().(type) {
	case *types.Struct:
		readable := true
		for i := range u.NumFields() {
			if f := u.Field(i); !f.Exported() && f.Pkg() != e.local {
				readable = false
			}
		}
		if !readable {
			// Unexported fields of another package: reflect reads them.
			fmt.Fprintf(&body, "return %s\n", e.reflectZero("(*x)"))
			break
		}
		var conds []string
		for i := range u.NumFields() {
			f := u.Field(i)
			if f.Name() == "_" {
				continue
			}
			conds = append(conds, e.zero(f.Type(), "x."+f.Name()))
		}
		if len(conds) == 0 {
			conds = []string{"true"}
		}
		fmt.Fprintf(&body, "return %s\n", strings.Join(conds, " &&\n"))
	case *types.Array:
		fmt.Fprintf(&body, "for i := range x {\nif !(%s) {\nreturn false\n}\n}\nreturn true\n", e.zero(u.Elem(), "x[i]"))
	}
	fmt.Fprintf(b, "func %s(x *%s) bool {\n", name, ts)
	b.Write(body.Bytes())
	b.WriteString("}\n\n")
	return name
}

// nameable reports whether the generated code can write t: no unexported
// type of another package in it.
func (e *emitter) nameable(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if p := t.Obj().Pkg(); p != nil && p != e.local && !t.Obj().Exported() {
			return false
		}
		for a := range t.TypeArgs().Types() {
			if !e.nameable(a) {
				return false
			}
		}
		return true
	case *types.Pointer:
		return e.nameable(t.Elem())
	case *types.Slice:
		return e.nameable(t.Elem())
	case *types.Array:
		return e.nameable(t.Elem())
	case *types.Map:
		return e.nameable(t.Key()) && e.nameable(t.Elem())
	case *types.Chan:
		return e.nameable(t.Elem())
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); !e.nameable(f.Type()) || (!f.Exported() && f.Pkg() != e.local) {
				return false
			}
		}
		return true
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tup.Variables() {
				if !e.nameable(v.Type()) {
					return false
				}
			}
		}
		return true
	case *types.Interface:
		for m := range t.Methods() {
			if !m.Exported() && m.Pkg() != e.local {
				return false
			}
		}
		return true
	}
	return true
}

// omitZeroHonoured reports whether every toolchain that may build the
// package honours omitzero: its module's go line is 1.24 or later (the go
// command refuses to build a module with an older toolchain than its go
// line, and the main module's go line is at least every dependency's).
// Otherwise the first field with omitzero that the validators read gets
// one error for the package (IG053) naming the go line and the fix.
func (e *emitter) omitZeroHonoured(f *jsonField, n *schema.Node) bool {
	if e.goLine.version == "" || version.Compare("go"+e.goLine.version, "go"+minOmitZero) >= 0 {
		return true
	}
	if e.goLine.reported {
		return false
	}
	e.goLine.reported = true
	pos := token.Position{}
	if e.fset != nil && f.field != nil {
		pos = e.fset.Position(f.field.Pos())
	}
	path := ""
	if n != nil {
		path = n.Path()
	}
	e.diags = append(e.diags, diag.Diagnostic{
		ID:       IDOmitZeroToolchain,
		Severity: diag.Error,
		Pos:      pos,
		CRD:      e.crd,
		Version:  e.version,
		Path:     path,
		Message: fmt.Sprintf("field %s has the json option omitzero, which encoding/json honours from Go %s on and ignores before; module %s says go %s, so a toolchain that ignores it may build the package, and whether the field is in the JSON depends on the toolchain",
			f.field.Name(), minOmitZero, e.goLine.module, e.goLine.version),
		Fix: fmt.Sprintf("raise the module's go line to %s or later (go mod edit -go=%s): every toolchain that builds it then honours omitzero (this is the one error for every omitzero field of the package)", minOmitZero, minOmitZero),
	})
	return false
}

// goLine is the go line of the module of the package the validators are
// written into.
type goLine struct {
	// version is the go line's version ("1.23"), or "" when the go.mod
	// has none or was not found (no constraint is known: omitzero is
	// modelled as Go 1.24 has it).
	version string
	// module is the module's path.
	module string
	// reported is set once IG053 is reported for the package.
	reported bool
}

// findGoLine reads the go line of the module holding directory dir.
func findGoLine(dir string) (goLine, error) {
	for d := dir; ; {
		file := filepath.Join(d, "go.mod")
		data, err := os.ReadFile(file)
		if err == nil {
			mf, err := modfile.ParseLax(file, data, nil)
			if err != nil {
				return goLine{}, fmt.Errorf("reading the go line of %s: %w", file, err)
			}
			g := goLine{module: modfile.ModulePath(data)}
			if mf.Go != nil {
				g.version = mf.Go.Version
			} else {
				// The go command reads a go.mod without a go line as go 1.16.
				g.version = "1.16"
			}
			return g, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return goLine{}, nil
		}
		d = parent
	}
}

// equalArray writes the body of the equality of arrays *a and *b of type
// t at node n: a Go array is always a JSON list of its length (a byte
// array too: only a byte slice is base64), compared item by item in order
// (an atomic list); as a set or a list map it would need the unordered
// comparisons, which arrays (fixed positions) are not given.
func (e *emitter) equalArray(body *bytes.Buffer, t *types.Array, n *schema.Node) {
	var items *schema.Node
	if n != nil {
		if lt := n.ListType(); lt == "set" || lt == "map" {
			e.fail(n, t, "an array with listType=%s", lt)
			body.WriteString("return false\n")
			return
		}
		items = n.Items
	}
	fmt.Fprintf(body, "for i := range a {\nif !(%s) {\nreturn false\n}\n}\nreturn true\n", e.equal(t.Elem(), items, "a[i]", "b[i]"))
}
