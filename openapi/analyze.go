package openapi

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"

	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/jsontag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/schema"
)

// definition is one OpenAPI definition openapi-gen generates (one exported
// struct type) and the extensions to add to it.
type definition struct {
	named *types.Named
	// typeName is the Go type's name in its package.
	typeName string
	// display names the definition in messages: `v1.GadgetSpec`.
	display string
	// key is the Go expression of the definition's key in the map
	// GetOpenAPIDefinitions returns: a string literal or a call of
	// OpenAPIModelName, exactly as openapi-gen writes it.
	key string
	// kind is set when the type is the root type of a kind: its schema is
	// an object's.
	kind bool
	// list is set when the type is a kind's list (it embeds
	// metav1.ListMeta): its items are objects, not its own fields, so
	// what depends on an object's root (+immutable:when) is judged in
	// the items' kind.
	list    bool
	patches []*patch
}

// patch is one extension to set to true.
type patch struct {
	// pointer is the JSON pointer of the schema node below the definition's
	// schema ("" for the schema itself).
	pointer string
	form    form
	origins []schema.Origin
	// condition is the value of whenForm's extension.
	condition string
}

// form is the immutability form a patch writes, which names its extension.
type form int

const (
	immutableForm   form = iota // x-kubernetes-immutable
	keysForm                    // x-kubernetes-immutable-keys
	onceForm                    // x-immutable-gen-immutable-once
	ignoreOrderForm             // x-immutable-gen-ignore-order, beside one of the two above
	noModifyForm                // x-immutable-gen-no-modify (+k8s:update=NoModify alone)
	noSetForm                   // x-immutable-gen-no-set (+k8s:update=NoSet)
	noUnsetForm                 // x-immutable-gen-no-unset (+k8s:update=NoUnset)
	whenForm                    // x-immutable-gen-when (+immutable:when), the condition, beside the others
)

// formsOf are the extensions the marker o writes: one form, or
// validation-gen's constraints that no form of ours says (NoSet, NoUnset,
// NoModify, each its own extension).
func formsOf(o schema.Origin) []form {
	if !o.NoSet && !o.NoUnset {
		return []form{formOf(o)}
	}
	var out []form
	for _, f := range []struct {
		on bool
		f  form
	}{{o.NoModify, noModifyForm}, {o.NoSet, noSetForm}, {o.NoUnset, noUnsetForm}} {
		if f.on {
			out = append(out, f.f)
		}
	}
	return out
}

func formOf(o schema.Origin) form {
	switch {
	case o.Keys:
		return keysForm
	case o.Once:
		return onceForm
	case o.NoModify:
		return noModifyForm
	}
	return immutableForm
}

// pkgResult is what the generator finds in one API package.
type pkgResult struct {
	pkg *loader.Package
	// enabled is set when openapi-gen generates definitions for the package.
	enabled bool
	// defs are the definitions openapi-gen generates for the package, by
	// type name; after placement, those with patches.
	defs []*definition
	// unpublished says why the markers of a struct type reached no
	// definition, by type name.
	unpublished map[string]problem
}

// analyzer reads API packages the way openapi-gen does: which definitions
// it generates, their properties, and the immutability markers on fields
// and types; it builds the definitions' trees (tree.go) and places the
// markers (placement.go). It lives for one run.
type analyzer struct {
	col     *ctmarkers.Collector
	roots   []*loader.Package
	byPath  map[string]*loader.Package
	indexes map[*loader.Package]*declIndex
	origins map[*types.TypeName][]schema.Origin
	props   map[*types.Named]members
	// markedTypes records whether a marker is reachable from a struct type.
	markedTypes map[*types.Named]bool
	// defs are the definitions the run generates, by type.
	defs map[*types.TypeName]*definition
	// handled records the markers that were placed or reported, keyed by
	// their position and form.
	handled map[originID]bool
	// noted records the markers whose +immutable:message was noted.
	noted map[originID]bool
	// whenNoted are the markers whose +immutable:when was reported.
	whenNoted map[originID]bool
	diags     diag.List
}

type originID struct {
	pos        token.Position
	keys, once bool
}

func idOf(o schema.Origin) originID { return originID{o.Pos, o.Keys, o.Once} }

func newAnalyzer(col *ctmarkers.Collector, roots []*loader.Package) *analyzer {
	return &analyzer{
		col:         col,
		roots:       roots,
		indexes:     map[*loader.Package]*declIndex{},
		origins:     map[*types.TypeName][]schema.Origin{},
		props:       map[*types.Named]members{},
		markedTypes: map[*types.Named]bool{},
		defs:        map[*types.TypeName]*definition{},
		handled:     map[originID]bool{},
		noted:       map[originID]bool{},
		whenNoted:   map[originID]bool{},
	}
}

// declIndex holds the declarations of one package with their markers.
type declIndex struct {
	pkg   *loader.Package
	types map[string]*ctmarkers.TypeInfo
	// fields are keyed by the position go/types gives the field's object:
	// its name, or the type name of an embedded field.
	fields map[token.Pos]declField
	err    error
}

// declField is a struct field's declaration and its struct type's.
type declField struct {
	owner *ctmarkers.TypeInfo
	field *ctmarkers.FieldInfo
}

// packageOf returns the loaded package with the import path, searching the
// roots and everything they import; nil when it is not loaded.
func (a *analyzer) packageOf(path string) *loader.Package {
	if a.byPath == nil {
		a.byPath = map[string]*loader.Package{}
		queue := slices.Clone(a.roots)
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if _, seen := a.byPath[p.PkgPath]; seen {
				continue
			}
			a.byPath[p.PkgPath] = p
			for _, imp := range p.Imports() {
				queue = append(queue, imp)
			}
		}
	}
	return a.byPath[path]
}

func (a *analyzer) index(pkg *loader.Package) *declIndex {
	if idx, ok := a.indexes[pkg]; ok {
		return idx
	}
	idx := &declIndex{pkg: pkg, types: map[string]*ctmarkers.TypeInfo{}, fields: map[token.Pos]declField{}}
	a.indexes[pkg] = idx
	idx.err = ctmarkers.EachType(a.col, pkg, func(info *ctmarkers.TypeInfo) {
		idx.types[info.Name] = info
		for i := range info.Fields {
			f := &info.Fields[i]
			if f.Name == "" {
				if id := embeddedIdent(f.RawField.Type); id != nil {
					idx.fields[id.Pos()] = declField{info, f}
				}
				continue
			}
			for _, n := range f.RawField.Names {
				if n.Name == f.Name {
					idx.fields[n.Pos()] = declField{info, f}
				}
			}
		}
	})
	return idx
}

// embeddedIdent is the identifier go/types names an embedded field by.
func embeddedIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// indexOf returns the index of the package declaring obj, or nil.
func (a *analyzer) indexOf(obj types.Object) *declIndex {
	if obj.Pkg() == nil {
		return nil
	}
	pkg := a.packageOf(obj.Pkg().Path())
	if pkg == nil {
		return nil
	}
	idx := a.index(pkg)
	if idx.err != nil {
		return nil // reported when the package is a root; otherwise not ours to fix
	}
	return idx
}

// typeOrigins returns the type-level markers of the named type.
func (a *analyzer) typeOrigins(obj *types.TypeName) []schema.Origin {
	if o, ok := a.origins[obj]; ok {
		return o
	}
	var out []schema.Origin
	if idx := a.indexOf(obj); idx != nil {
		if info := idx.types[obj.Name()]; info != nil && info.RawSpec.Name.Pos() == obj.Pos() {
			var err error
			out, err = markers.TypeOrigins(idx.pkg, info)
			a.invalid(out, err)
		}
	}
	a.origins[obj] = out
	return out
}

// invalid reports err, an invalid combination of markers (two messages), at
// the markers of origins.
func (a *analyzer) invalid(origins []schema.Origin, err error) {
	if err == nil {
		return
	}
	d := diag.Diagnostic{ID: markers.IDInvalid, Severity: diag.Error, Message: err.Error()}
	if len(origins) > 0 {
		d.Pos = origins[0].Pos
	}
	a.diags = append(a.diags, d)
}

// fieldInfo returns the declaration of a struct field, or a zero declField.
func (a *analyzer) fieldInfo(f *types.Var) (declField, *declIndex) {
	idx := a.indexOf(f)
	if idx == nil {
		return declField{}, nil
	}
	return idx.fields[f.Pos()], idx
}

// property is one property of a definition, as openapi-gen generates it from
// a struct field (inline embedded structs flattened).
type property struct {
	name  string
	field *types.Var
	// owner is the struct declaring the field.
	owner    *types.TypeName
	origins  []schema.Origin
	comments []string
	// asString is json:",string": openapi-gen publishes a plain string.
	asString bool
	// required is whether openapi-gen lists the property as required.
	required bool
}

// members are the properties openapi-gen generates for a struct type, and
// the markers on its fields that yield no property.
type members struct {
	props    []property
	problems []markerProblem
}

// markerProblem is a marker that can stand nowhere, and why.
type markerProblem struct {
	origin schema.Origin
	problem
}

// members lists the properties of the struct type named, in openapi-gen's
// order, and the markers on fields that yield no property.
func (a *analyzer) members(named *types.Named) members {
	if m, ok := a.props[named]; ok {
		return m
	}
	var m members
	a.collectMembers(named, map[*types.Named]bool{}, &m)
	a.props[named] = m
	return m
}

func (a *analyzer) collectMembers(named *types.Named, visiting map[*types.Named]bool, out *members) {
	st, ok := named.Underlying().(*types.Struct)
	if !ok || visiting[named] {
		return
	}
	visiting[named] = true
	defer delete(visiting, named)
	owner := named.Obj()
	refuse := func(origins []schema.Origin, p problem) {
		for _, o := range origins {
			out.problems = append(out.problems, markerProblem{o, p})
		}
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i))
		origins, comments := a.fieldMarkers(f)
		if hasTagValue(comments, "k8s:openapi-gen", "false") {
			refuse(origins, problem{
				IDUnpublished,
				"not published: +k8s:openapi-gen=false on the field leaves it out of the OpenAPI definition",
				"remove one of the two markers",
			})
			continue
		}
		jsonTag, hasJSON := jsontag.Lookup(tag)
		if f.Embedded() && hasJSON && jsonTag.Name == "" {
			t := deref(f.Type())
			for _, o := range origins {
				refuse([]schema.Origin{o}, inlineProblem(o, typeString(t), owner.Name()))
			}
			if n, ok := t.(*types.Named); ok {
				a.collectMembers(n, visiting, out)
			}
			continue
		}
		// openapi-gen names the property by the tag, or by the Go field
		// when the tag is empty or missing.
		name := f.Name()
		if jsonTag.String() != "" {
			name = jsonTag.Name
		}
		if name == "" || name == "-" {
			refuse(origins, problem{
				IDUnpublished,
				fmt.Sprintf("not published: the field has no JSON name (json:%q), so it has no OpenAPI property", jsonTag),
				"give the field a JSON name, or remove the marker",
			})
			continue
		}
		out.props = append(out.props, property{
			name:     name,
			field:    f,
			owner:    owner,
			origins:  origins,
			comments: comments,
			asString: len(jsonTag.Options) > 0 && jsonTag.Options[0] == "string",
			required: requiredProperty(comments, jsonTag),
		})
	}
}

// inlineProblem is a marker on an embedded field whose properties openapi-gen
// inlines into the enclosing struct: there is no node of its own to mark.
func inlineProblem(o schema.Origin, embedded, enclosing string) problem {
	return problem{
		IDInline,
		fmt.Sprintf("%s is not allowed on the embedded (inline) field %s: its properties belong to %s", o.Marker(), embedded, enclosing),
		fmt.Sprintf("mark the fields of %s, or the type %s itself with +immutable", embedded, embedded),
	}
}

// itemFields lists the properties of the struct type named as the items of
// a list, for errors about list map keys: they name the Go field to mark.
func (a *analyzer) itemFields(named *types.Named) []schema.ItemField {
	var out []schema.ItemField
	for _, p := range a.members(named).props {
		f := schema.ItemField{JSON: p.name, Go: p.field.Name(), Type: p.owner.Name()}
		if d, idx := a.fieldInfo(p.field); d.field != nil {
			f.Pos = idx.pkg.Fset.Position(d.field.RawField.Pos())
		}
		out = append(out, f)
	}
	return out
}

// requiredProperty reports whether openapi-gen makes a property required,
// as its isOptional does: +required or +optional on the field, else
// required unless the JSON tag has omitempty.
func requiredProperty(comments []string, tag jsontag.Tag) bool {
	switch {
	case tagValues(comments, "required") != nil:
		return true
	case tagValues(comments, "optional") != nil:
		return false
	}
	return !tag.Has("omitempty")
}

// fieldMarkers returns the immutability markers and the doc comment lines of
// a struct field.
func (a *analyzer) fieldMarkers(f *types.Var) ([]schema.Origin, []string) {
	d, idx := a.fieldInfo(f)
	if d.field == nil {
		return nil, nil
	}
	origins, err := markers.FieldOrigins(idx.pkg, d.owner, d.field)
	a.invalid(origins, err)
	return origins, docLines(d.field.RawField.Doc)
}

// report reports an error for the marker o.
func (a *analyzer) report(o schema.Origin, p problem) {
	a.handled[idOf(o)] = true
	a.diagAt(o, "", diag.Error, p)
}

// diagAt adds a diagnostic about the marker o; where names the schema node
// when the marker is on a type and the diagnostic is about one of its uses.
func (a *analyzer) diagAt(o schema.Origin, where string, sev diag.Severity, p problem) {
	subject := fmt.Sprintf("%s on %s", o.Marker(), o.Where())
	if o.Field == "" && where != "" {
		subject += ", used at " + where
	}
	a.diags = append(a.diags, diag.Diagnostic{ID: p.id, Pos: o.Pos, Severity: sev, Subject: subject, Message: p.msg, Fix: p.fix})
}

// resolve follows t the way openapi-gen does (resolveAliasAndPtrType):
// through aliases, pointers and named types that are not structs, and
// collects the type-level markers of those named types, which belong to the
// node where t is used. It stops at a type openapi-gen publishes as a simple
// type, a named struct (a reference to its definition), or an unnamed slice,
// map, struct or interface.
func (a *analyzer) resolve(t types.Type) ([]schema.Origin, types.Type) {
	var origins []schema.Origin
	for range 64 {
		t = types.Unalias(t)
		if simpleType(t) != "" {
			return origins, t
		}
		switch x := t.(type) {
		case *types.Pointer:
			t = x.Elem()
			continue
		case *types.Named:
			if _, isStruct := x.Underlying().(*types.Struct); isStruct {
				return origins, t
			}
			origins = append(origins, a.typeOrigins(x.Obj())...)
			t = x.Underlying()
			continue
		}
		return origins, t
	}
	return origins, t
}

// typeListType returns the +listType written on a named type t resolves
// through, and that type's name: controller-gen honours it, openapi-gen does
// not.
func (a *analyzer) typeListType(t types.Type) (string, string) {
	for range 64 {
		switch x := types.Unalias(t).(type) {
		case *types.Pointer:
			t = x.Elem()
			continue
		case *types.Named:
			if idx := a.indexOf(x.Obj()); idx != nil {
				if info := idx.types[x.Obj().Name()]; info != nil {
					if lt := tagValue(typeDocLines(info), "listType"); lt != "" {
						return lt, x.Obj().Name()
					}
				}
			}
			t = x.Underlying()
			continue
		}
		break
	}
	return "", ""
}

func deref(t types.Type) types.Type {
	t = types.Unalias(t)
	for {
		p, ok := t.(*types.Pointer)
		if !ok {
			return t
		}
		t = types.Unalias(p.Elem())
	}
}

func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// loaderErrors turns the errors of controller-tools' marker collector (such
// as an invalid +immutable value) into diagnostics at their positions, as
// markers.Refusals words them for every generator: the same mistake prints
// once in a run of several generators.
func loaderErrors(fset *token.FileSet, err error) diag.List {
	refusals, rerr := markers.NewRefusals()
	if rerr != nil {
		return diag.List{{ID: markers.IDInvalid, Severity: diag.Error, Message: rerr.Error()}}
	}
	var out diag.List
	var add func(error)
	add = func(e error) {
		var list loader.ErrList
		if errors.As(e, &list) {
			for _, sub := range list {
				add(sub)
			}
			return
		}
		var pos token.Position
		var pe loader.PositionedError
		if errors.As(e, &pe) {
			pos = fset.Position(pe.Pos)
		}
		d, ok := refusals.Diagnostic(pos, e.Error())
		if !ok {
			d.ID = markers.IDInvalid
		}
		out = append(out, d)
	}
	add(err)
	return out
}
