package openapi

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/validation"
)

// definition is one OpenAPI definition openapi-gen generates (one exported
// struct type) and the extensions to add to it.
type definition struct {
	// typeName is the Go type's name in its package.
	typeName string
	// key is the Go expression of the definition's key in the map
	// GetOpenAPIDefinitions returns: a string literal or a call of
	// OpenAPIModelName, exactly as openapi-gen writes it.
	key     string
	patches []*patch
}

// patch is one extension to set to true.
type patch struct {
	// pointer is the JSON pointer of the schema node below the definition's
	// schema ("" for the schema itself).
	pointer string
	form    form
	origins []markers.Origin
}

// form is the immutability form a patch writes, which names its extension.
type form int

const (
	immutableForm form = iota // x-kubernetes-immutable
	keysForm                  // x-kubernetes-immutable-keys
	onceForm                  // x-immutable-gen-immutable-once
)

func formOf(o markers.Origin) form {
	switch {
	case o.Keys:
		return keysForm
	case o.Once:
		return onceForm
	}
	return immutableForm
}

// pkgResult is what the generator writes for one API package.
type pkgResult struct {
	pkg  *loader.Package
	defs []*definition
}

// analyzer walks API packages the way openapi-gen does and finds where each
// immutability marker lands in the definitions. It lives for one run.
type analyzer struct {
	col     *ctmarkers.Collector
	roots   []*loader.Package
	byPath  map[string]*loader.Package
	indexes map[*loader.Package]*declIndex
	origins map[*types.TypeName][]markers.Origin
	// handled records the markers that were placed or reported, keyed by
	// their position and form.
	handled map[originID]bool
	// noted records the markers whose +immutable:message was noted.
	noted map[originID]bool
	diags diag.List
}

type originID struct {
	pos        token.Position
	keys, once bool
}

func idOf(o markers.Origin) originID { return originID{o.Pos, o.Keys, o.Once} }

func newAnalyzer(col *ctmarkers.Collector, roots []*loader.Package) *analyzer {
	return &analyzer{
		col:     col,
		roots:   roots,
		indexes: map[*loader.Package]*declIndex{},
		origins: map[*types.TypeName][]markers.Origin{},
		handled: map[originID]bool{},
		noted:   map[originID]bool{},
	}
}

// declIndex holds the declarations of one package with their markers.
type declIndex struct {
	pkg   *loader.Package
	types map[string]*ctmarkers.TypeInfo
	// fields are keyed by the position go/types gives the field's object:
	// its name, or the type name of an embedded field.
	fields map[token.Pos]*ctmarkers.FieldInfo
	err    error
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
	idx := &declIndex{pkg: pkg, types: map[string]*ctmarkers.TypeInfo{}, fields: map[token.Pos]*ctmarkers.FieldInfo{}}
	a.indexes[pkg] = idx
	idx.err = ctmarkers.EachType(a.col, pkg, func(info *ctmarkers.TypeInfo) {
		idx.types[info.Name] = info
		for i := range info.Fields {
			f := &info.Fields[i]
			if f.Name == "" {
				if id := embeddedIdent(f.RawField.Type); id != nil {
					idx.fields[id.Pos()] = f
				}
				continue
			}
			for _, n := range f.RawField.Names {
				if n.Name == f.Name {
					idx.fields[n.Pos()] = f
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
func (a *analyzer) typeOrigins(obj *types.TypeName) []markers.Origin {
	if o, ok := a.origins[obj]; ok {
		return o
	}
	var out []markers.Origin
	if idx := a.indexOf(obj); idx != nil {
		if info := idx.types[obj.Name()]; info != nil && info.RawSpec.Name.Pos() == obj.Pos() {
			fset := idx.pkg.Fset
			decl := fset.Position(info.RawSpec.Pos())
			for _, m := range immutables(info.Markers) {
				o := markers.Origin{Keys: m.Keys(), Once: m.Once(), Type: obj.Pkg().Path() + "." + obj.Name(), DeclPos: decl, Message: message(info.Markers)}
				o.Pos = markerPos(fset, decl, m.String(), info.RawSpec.Doc, info.RawDecl.Doc)
				out = append(out, o)
			}
		}
	}
	a.origins[obj] = out
	return out
}

// fieldInfo returns the declaration of a struct field, or nil.
func (a *analyzer) fieldInfo(f *types.Var) (*ctmarkers.FieldInfo, *declIndex) {
	idx := a.indexOf(f)
	if idx == nil {
		return nil, nil
	}
	return idx.fields[f.Pos()], idx
}

// message returns the +immutable:message among vals, "" when there is none
// (several are reported by the CRD path's own check; the first is enough
// for the note).
func message(vals ctmarkers.MarkerValues) string {
	for _, v := range vals[markers.MessageName] {
		if m, ok := v.(markers.Message); ok {
			return m.Text()
		}
	}
	return ""
}

func immutables(vals ctmarkers.MarkerValues) []markers.Immutable {
	var out []markers.Immutable
	for _, v := range vals[markers.Name] {
		if m, ok := v.(markers.Immutable); ok {
			out = append(out, m)
		}
	}
	return out
}

// markerPos returns the position of the marker comment in the first doc
// group that has it, or decl.
func markerPos(fset *token.FileSet, decl token.Position, want string, docs ...*ast.CommentGroup) token.Position {
	for _, doc := range docs {
		if doc == nil {
			continue
		}
		for _, c := range doc.List {
			text, ok := strings.CutPrefix(c.Text, "//")
			if !ok {
				continue
			}
			text = strings.TrimSpace(text)
			if rest, ok := strings.CutPrefix(text, want); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				return fset.Position(c.Pos())
			}
		}
	}
	return decl
}

// property is one property of a definition, as openapi-gen generates it from
// a struct field (inline embedded structs flattened).
type property struct {
	name  string
	field *types.Var
	// owner is the struct declaring the field.
	owner    *types.TypeName
	origins  []markers.Origin
	comments []string
	// asString is json:",string": openapi-gen publishes a plain string.
	asString bool
	// required is whether openapi-gen lists the property as required.
	required bool
}

// properties lists the properties of the struct type named, in openapi-gen's
// order, and reports markers on fields that yield no property.
func (a *analyzer) properties(named *types.Named) []property {
	var out []property
	a.members(named, map[*types.Named]bool{}, &out)
	return out
}

func (a *analyzer) members(named *types.Named, visiting map[*types.Named]bool, out *[]property) {
	st, ok := named.Underlying().(*types.Struct)
	if !ok || visiting[named] {
		return
	}
	visiting[named] = true
	defer delete(visiting, named)
	owner := named.Obj()
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i))
		origins, comments := a.fieldMarkers(owner, f, tag)
		if hasTagValue(comments, "k8s:openapi-gen", "false") {
			a.reportAll(origins, problem{
				"not published: +k8s:openapi-gen=false on the field leaves it out of the OpenAPI definition",
				"remove one of the two markers",
			})
			continue
		}
		jsonTag, hasJSON := tag.Lookup("json")
		if f.Embedded() && hasJSON && (jsonTag == "" || strings.HasPrefix(jsonTag, ",")) {
			t := deref(f.Type())
			for _, o := range origins {
				a.report(o, inlineProblem(o, typeString(t), owner.Name()))
			}
			if n, ok := t.(*types.Named); ok {
				a.members(n, visiting, out)
			}
			continue
		}
		name := f.Name()
		opts := strings.Split(tag.Get("json"), ",")
		if tag.Get("json") != "" {
			name = opts[0]
		}
		if name == "" || name == "-" {
			a.reportAll(origins, problem{
				fmt.Sprintf("not published: the field has no JSON name (json:%q), so it has no OpenAPI property", jsonTag),
				"give the field a JSON name, or remove the marker",
			})
			continue
		}
		*out = append(*out, property{
			name:     name,
			field:    f,
			owner:    owner,
			origins:  origins,
			comments: comments,
			asString: len(opts) > 1 && opts[1] == "string",
			required: requiredProperty(comments, opts[1:]),
		})
	}
}

// requiredProperty reports whether openapi-gen makes a property required,
// as its isOptional does: +required or +optional on the field, else
// required unless the JSON tag has omitempty.
func requiredProperty(comments, jsonOpts []string) bool {
	switch {
	case tagValues(comments, "required") != nil:
		return true
	case tagValues(comments, "optional") != nil:
		return false
	}
	return !slices.Contains(jsonOpts, "omitempty")
}

// fieldMarkers returns the immutability markers and the doc comment lines of
// a struct field declared in owner.
func (a *analyzer) fieldMarkers(owner *types.TypeName, f *types.Var, tag reflect.StructTag) ([]markers.Origin, []string) {
	info, idx := a.fieldInfo(f)
	if info == nil {
		return nil, nil
	}
	comments := docLines(info.RawField.Doc)
	var out []markers.Origin
	fset := idx.pkg.Fset
	decl := fset.Position(info.RawField.Pos())
	jsonName, _, _ := strings.Cut(tag.Get("json"), ",")
	for _, m := range immutables(info.Markers) {
		o := markers.Origin{
			Keys:     m.Keys(),
			Once:     m.Once(),
			Type:     owner.Pkg().Path() + "." + owner.Name(),
			Field:    f.Name(),
			JSONName: jsonName,
			DeclPos:  decl,
			Message:  message(info.Markers),
		}
		o.Pos = markerPos(fset, decl, m.String(), info.RawField.Doc)
		out = append(out, o)
	}
	return out, comments
}

func (a *analyzer) report(o markers.Origin, p problem) {
	a.reportAt(o, "", p)
}

func (a *analyzer) reportAll(origins []markers.Origin, p problem) {
	for _, o := range origins {
		a.report(o, p)
	}
}

// reportAt reports an error for the marker o; where names the schema node
// when the marker is on a type and the problem is about one of its uses.
func (a *analyzer) reportAt(o markers.Origin, where string, p problem) {
	a.handled[idOf(o)] = true
	a.diagAt(o, where, diag.Error, p)
}

// diagAt adds a diagnostic about the marker o.
func (a *analyzer) diagAt(o markers.Origin, where string, sev diag.Severity, p problem) {
	subject := fmt.Sprintf("%s on %s", o.Marker(), o.Where())
	if o.Field == "" && where != "" {
		subject += ", used at " + where
	}
	a.diags = append(a.diags, diag.Diagnostic{Pos: o.Pos, Severity: sev, Subject: subject, Message: p.msg, Fix: p.fix})
}

// resolve follows t the way openapi-gen does (resolveAliasAndPtrType):
// through aliases, pointers and named types that are not structs, and
// collects the type-level markers of those named types, which belong to the
// node where t is used. It stops at a type openapi-gen publishes as a simple
// type, a named struct (a reference to its definition), or an unnamed slice,
// map, struct or interface.
func (a *analyzer) resolve(t types.Type) ([]markers.Origin, types.Type) {
	var origins []markers.Origin
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

// immutableType reports whether every use of t is immutable by a type-level
// +immutable, on t or on the struct it refers to.
func (a *analyzer) immutableType(t types.Type) bool {
	origins, base := a.resolve(t)
	if named, ok := base.(*types.Named); ok {
		if _, isStruct := named.Underlying().(*types.Struct); isStruct {
			origins = append(origins, a.typeOrigins(named.Obj())...)
		}
	}
	return hasImmutable(origins)
}

func hasImmutable(origins []markers.Origin) bool {
	return slices.ContainsFunc(origins, func(o markers.Origin) bool { return !o.Keys })
}

// shapeOf returns the shape of the node openapi-gen publishes for a resolved
// type (see resolve).
func shapeOf(base types.Type) shape {
	if s := simpleType(base); s != "" {
		return shape{kind: scalarKind, scalar: s}
	}
	switch base.Underlying().(type) {
	case *types.Struct:
		return shape{kind: structKind}
	case *types.Slice, *types.Array:
		return shape{kind: listKind}
	case *types.Map:
		return shape{kind: mapKind}
	case *types.Interface:
		return shape{kind: scalarKind, scalar: "free-form"}
	}
	return shape{kind: scalarKind}
}

// walk builds the patches of one definition.
type walk struct {
	a   *analyzer
	def *definition
	// display names the definition in messages: `v1.GadgetSpec`.
	display string
}

// above is what the nodes above a node (within one definition) imply for
// markers on it.
type above struct {
	// immutable is the path of the nearest immutable node above, if any.
	immutable string
	// onceOnly is set when that node is immutable by +immutable=once only.
	onceOnly bool
	// set is the path of the +listType=set list whose items the node is
	// in, if any.
	set string
	// elem is what the node is when it is not a property: "items" for list
	// items, "values" for map values.
	elem string
	// required is set on a property openapi-gen lists as required.
	required bool
}

// node handles the schema node at pointer (path in messages) for a value of
// Go type t; fieldOrigins and comments are the field's when the node is a
// property.
func (w *walk) node(pointer, path string, t types.Type, fieldOrigins []markers.Origin, comments []string, asString bool, up above) {
	typeOrigins, base := w.a.resolve(t)
	origins := append(slices.Clip(fieldOrigins), typeOrigins...)
	s := shapeOf(base)
	if asString {
		s = shape{kind: scalarKind, scalar: "string"}
	}
	s.listType = tagValue(comments, "listType")
	s.mapType = tagValue(comments, "mapType")
	if s.kind == listKind && s.listType == "" {
		s.typeListType, s.typeName = w.a.typeListType(t)
	}
	where := w.display + "." + path

	// A type marker on a struct goes on its definition (see definition),
	// but +immutable=once acts where the struct is used: check the use.
	var structOrigins []markers.Origin
	if named, ok := base.(*types.Named); ok && s.kind == structKind && !asString {
		structOrigins = w.a.typeOrigins(named.Obj())
	}
	checked := origins
	if slices.ContainsFunc(origins, isOnce) || slices.ContainsFunc(structOrigins, isOnce) {
		checked = append(slices.Clip(origins), structOrigins...)
	}
	for i, p := range exclusiveProblem(checked) {
		w.a.reportAt(checked[i], where, p)
	}
	if w.onceProblems(path, where, checked, up) {
		origins = slices.DeleteFunc(slices.Clone(origins), isOnce)
	}
	for _, o := range origins {
		if !o.Keys {
			continue
		}
		if p := keysProblem(s); p != nil {
			w.a.reportAt(o, where, *p)
			continue
		}
		if s.kind == listKind && s.listType == "map" {
			itemImmutable, keys := w.a.listMapKeys(base, tagValues(comments, "listMapKey"))
			for _, p := range listMapKeyProblems(itemImmutable, keys) {
				w.a.reportAt(o, where, p)
			}
		}
	}
	// Rules 5 and 6: redundant markers are notes, markers inside the items
	// of a set are warnings.
	for _, o := range origins {
		switch {
		case up.immutable != "":
			note := ""
			if up.onceOnly {
				note = validation.OnceAncestorNote
			}
			w.a.diagAt(o, where, diag.Note, problem{fmt.Sprintf("redundant: %s is already immutable as part of %s%s", path, up.immutable, note), ""})
		case up.set != "":
			w.a.diagAt(o, where, diag.Warning, problem{
				fmt.Sprintf("has no effect inside the items of the +listType=set list %s: set items are identities, they are added or removed, never changed", up.set),
				fmt.Sprintf("mark the set %s itself with +immutable to forbid any change", up.set),
			})
		}
		w.add(pointer, o)
	}
	if s.kind != listKind && s.kind != mapKind {
		return
	}
	if up.immutable == "" && hasImmutable(origins) {
		up.immutable = path
		up.onceOnly = !slices.ContainsFunc(origins, func(o markers.Origin) bool { return !o.Keys && !o.Once })
	}
	up.required = false
	switch x := base.Underlying().(type) {
	case *types.Slice:
		if s.listType == "set" {
			up.set = path
		}
		up.elem = "items"
		w.node(pointer+"/items", path+"[*]", x.Elem(), nil, nil, false, up)
	case *types.Array:
		if s.listType == "set" {
			up.set = path
		}
		up.elem = "items"
		w.node(pointer+"/items", path+"[*]", x.Elem(), nil, nil, false, up)
	case *types.Map:
		up.elem = "values"
		w.node(pointer+"/additionalProperties", path+"[*]", x.Elem(), nil, nil, false, up)
	}
}

func isOnce(o markers.Origin) bool { return o.Once }

// onceProblems checks the +immutable=once markers among the origins of the
// node at path, as the CRD path does (package validation): an error on list
// items and map values, a note on a required property. It reports whether
// the node's +immutable=once markers were refused.
func (w *walk) onceProblems(path, where string, origins []markers.Origin, up above) (refused bool) {
	for _, o := range origins {
		if !o.Once {
			continue
		}
		switch up.elem {
		case "items":
			p := validation.OnceOnItems(path)
			w.a.reportAt(o, where, problem{p.Message, p.Fix})
			refused = true
		case "values":
			p := validation.OnceOnValues(path)
			w.a.reportAt(o, where, problem{p.Message, p.Fix})
			refused = true
		default:
			if up.required {
				w.a.diagAt(o, where, diag.Note, problem{validation.OnceRequired(path), ""})
			}
		}
	}
	return refused
}

// listMapKeys describes the key fields of a list map of type list for rule 4.
func (a *analyzer) listMapKeys(list types.Type, names []string) (itemImmutable bool, keys []keyField) {
	var elem types.Type
	switch x := list.Underlying().(type) {
	case *types.Slice:
		elem = x.Elem()
	case *types.Array:
		elem = x.Elem()
	default:
		return false, nil
	}
	if a.immutableType(elem) {
		return true, nil
	}
	_, base := a.resolve(elem)
	named, ok := base.(*types.Named)
	if !ok {
		return false, nil
	}
	props := a.properties(named)
	for _, name := range names {
		k := keyField{json: name}
		for _, p := range props {
			if p.name != name {
				continue
			}
			k.goName = p.owner.Name() + "." + p.field.Name()
			if info, idx := a.fieldInfo(p.field); info != nil {
				k.pos = idx.pkg.Fset.Position(info.RawField.Pos()).String()
			}
			k.immutable = hasImmutable(p.origins) || a.immutableType(p.field.Type())
		}
		keys = append(keys, k)
	}
	return false, keys
}

func (w *walk) add(pointer string, o markers.Origin) {
	w.a.handled[idOf(o)] = true
	if o.Message != "" && !w.a.noted[idOf(o)] {
		w.a.noted[idOf(o)] = true
		w.a.diagAt(o, "", diag.Note, problem{
			"its +immutable:message is not carried: the extensions have no place for it, and the immutable-gen runtime reports `field is immutable`; only the CRD output's CEL rules use it",
			""})
	}
	for _, p := range w.def.patches {
		if p.pointer == pointer && p.form == formOf(o) {
			if !slices.ContainsFunc(p.origins, func(x markers.Origin) bool { return idOf(x) == idOf(o) }) {
				p.origins = append(p.origins, o)
			}
			return
		}
	}
	w.def.patches = append(w.def.patches, &patch{pointer: pointer, form: formOf(o), origins: []markers.Origin{o}})
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

// escapePointer escapes a JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// loaderErrors turns the errors of controller-tools' marker collector (such
// as an invalid +immutable value) into diagnostics at their positions.
func loaderErrors(fset *token.FileSet, err error) diag.List {
	var errs []error
	if !errors.As(err, (*loader.ErrList)(&errs)) {
		errs = []error{err}
	}
	var out diag.List
	for _, e := range errs {
		d := diag.Diagnostic{Severity: diag.Error, Message: e.Error()}
		var pe loader.PositionedError
		if errors.As(e, &pe) {
			d.Pos = fset.Position(pe.Pos)
		}
		out = append(out, d)
	}
	return out
}
