// Package markers defines immutable-gen's Go markers, `+immutable` and
// `+immutable=keys`, registers them with controller-tools' marker registry,
// and carries each marker's Go position through controller-tools' CRD schema
// generation so that later stages can report errors at the marker.
//
// A marker is valid on struct fields and on named types:
//
//	// +immutable          the node (and its whole subtree) never changes
//	// +immutable=keys     the map's keys or the list map's key tuples never change
//
// Any other value is an error; near-miss spellings are reported by Lint.
package markers

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/markers"
)

// Name is the marker's name as registered (without the leading `+`).
const Name = "immutable"

// Immutable is the parsed value of one `+immutable` or `+immutable=keys`
// marker comment.
type Immutable struct {
	// keys is true for `+immutable=keys`. (Unexported, so that
	// controller-tools' help shows the marker as `+immutable` rather than
	// deriving an argument from it.)
	keys bool

	// id makes every parsed marker comment distinct, so that ApplyToSchema can
	// find which field or type it was written on.
	id *occurrence
}

// occurrence has a non-zero size so that every allocation has its own address.
type occurrence struct{ _ byte }

// ParseMarker implements controller-tools' custom marker parsing: the only
// accepted forms are `+immutable` and `+immutable=keys`.
func (m *Immutable) ParseMarker(_ string, _ string, rest string) error {
	m.id = &occurrence{}
	switch rest {
	case "":
		return nil
	case "keys":
		m.keys = true
		return nil
	}
	return fmt.Errorf("invalid marker +%s=%s: the only forms are +immutable and +immutable=keys", Name, rest)
}

// Keys reports whether the marker is `+immutable=keys`.
func (m Immutable) Keys() bool { return m.keys }

// String renders the marker as written.
func (m Immutable) String() string {
	if m.keys {
		return "+immutable=keys"
	}
	return "+immutable"
}

// Register adds the marker for fields and for named types to reg.
func Register(reg *markers.Registry) error {
	for _, target := range []markers.TargetType{markers.DescribesField, markers.DescribesType} {
		def, err := markers.MakeDefinition(Name, target, Immutable{})
		if err != nil {
			return err
		}
		if err := reg.Register(def); err != nil {
			return err
		}
		reg.AddHelp(def, help(target))
	}
	return nil
}

func help(target markers.TargetType) *markers.DefinitionHelp {
	what := "field"
	if target == markers.DescribesType {
		what = "type (every use of it)"
	}
	return &markers.DefinitionHelp{
		Category: "Immutability",
		DetailedHelp: markers.DetailedHelp{
			Summary: fmt.Sprintf("marks this %s as immutable after creation (x-kubernetes-immutable); =keys makes only the keys of a map or list map immutable (x-kubernetes-immutable-keys).", what),
			Details: "+immutable: the value can never change after creation: it cannot be set, removed or modified on update. " +
				"+immutable=keys: keys may not be added or removed, values may change; only on maps and +listType=map lists.",
		},
		FieldHelp: map[string]markers.DetailedHelp{},
	}
}

// ApplyToSchema records the marker on the schema node controller-tools
// generates for the field or type, as a carrier rule that the schema package
// turns into the immutability model (and removes) after generation.
func (m Immutable) ApplyToSchema(ctx *crdmarkers.SchemaContext, s *apiext.JSONSchemaProps) error {
	o, err := m.locate(ctx)
	if err != nil {
		return err
	}
	s.XValidations = append(s.XValidations, o.carrier())
	return nil
}

// locate finds the field or type the marker was written on.
func (m Immutable) locate(ctx *crdmarkers.SchemaContext) (Origin, error) {
	if ctx == nil || ctx.TypeInfo == nil || ctx.Package == nil {
		return Origin{}, fmt.Errorf("%s: internal error: no type context", m)
	}
	info, fset := ctx.TypeInfo, ctx.Package.Fset
	typeName := ctx.Package.PkgPath + "." + info.Name
	if m.in(info.Markers) {
		o := Origin{Keys: m.keys, Type: typeName, DeclPos: fset.Position(info.RawSpec.Pos())}
		o.Pos = markerPos(fset, o.DeclPos, info.RawSpec.Doc, info.RawDecl.Doc)
		if m.keys && ctx.Package.TypesInfo != nil {
			if obj := ctx.Package.TypesInfo.Defs[info.RawSpec.Name]; obj != nil {
				o.ItemFields = itemFields(fset, obj.Type())
			}
		}
		return o, nil
	}
	for _, f := range info.Fields {
		if !m.in(f.Markers) {
			continue
		}
		o := Origin{Keys: m.keys, Type: typeName, Field: fieldName(f.RawField), DeclPos: fset.Position(f.RawField.Pos())}
		o.Pos = markerPos(fset, o.DeclPos, f.RawField.Doc)
		jsonName, inline := jsonName(f)
		o.JSONName = jsonName
		if m.keys && ctx.Package.TypesInfo != nil {
			o.ItemFields = itemFields(fset, ctx.Package.TypesInfo.TypeOf(f.RawField.Type))
		}
		if jsonName == "metadata" && isObjectMeta(ctx, f.RawField) && isKindRoot(ctx, info) {
			return o, fmt.Errorf("%s is not allowed on metadata: the API server owns object metadata (KEP: forbidden at the root and inside .metadata); remove the marker", m)
		}
		if inline {
			return o, fmt.Errorf("%s is not allowed on the embedded (inline) field %s: its properties belong to %s; mark the fields of the embedded type, or the type itself with +immutable", m, o.Field, info.Name)
		}
		return o, nil
	}
	return Origin{}, fmt.Errorf("%s: internal error: cannot find the marker on type %s", m, info.Name)
}

func (m Immutable) in(vals markers.MarkerValues) bool {
	for _, v := range vals[Name] {
		if im, ok := v.(Immutable); ok && im.id == m.id {
			return true
		}
	}
	return false
}

// markerPos returns the position of the +immutable comment in the first doc
// group that has one, or decl when none has (markers may also stand in a
// comment group before the doc comment).
func markerPos(fset *token.FileSet, decl token.Position, docs ...*ast.CommentGroup) token.Position {
	for _, doc := range docs {
		if doc == nil {
			continue
		}
		for _, c := range doc.List {
			if text, ok := strings.CutPrefix(c.Text, "//"); ok && isImmutableMarker(strings.TrimSpace(text)) {
				return fset.Position(c.Pos())
			}
		}
	}
	return decl
}

func isImmutableMarker(text string) bool {
	rest, ok := strings.CutPrefix(text, "+"+Name)
	return ok && (rest == "" || rest[0] == '=' || rest[0] == ' ')
}

func fieldName(f *ast.Field) string {
	if len(f.Names) > 0 {
		return f.Names[0].Name
	}
	t := f.Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

// jsonName returns the field's JSON property name and whether it is inlined,
// by the same rules controller-tools applies.
func jsonName(f markers.FieldInfo) (string, bool) {
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return "", false
	}
	opts := strings.Split(tag, ",")
	inline := opts[0] == ""
	for _, o := range opts[1:] {
		if o == "inline" {
			inline = true
		}
	}
	return opts[0], inline
}

// itemFields lists the JSON-named fields of t's item struct when t is a
// slice of structs (inline embedded structs flattened), else nil.
func itemFields(fset *token.FileSet, t types.Type) []ItemField {
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	slice, ok := t.Underlying().(*types.Slice)
	if !ok {
		return nil
	}
	elem := slice.Elem()
	if p, ok := elem.Underlying().(*types.Pointer); ok {
		elem = p.Elem()
	}
	return structFields(fset, elem, 0)
}

func structFields(fset *token.FileSet, t types.Type, depth int) []ItemField {
	st, ok := t.Underlying().(*types.Struct)
	if !ok || depth > 8 {
		return nil
	}
	typeName := types.TypeString(t, func(p *types.Package) string { return p.Name() })
	var out []ItemField
	for i := range st.NumFields() {
		f := st.Field(i)
		tag, ok := reflect.StructTag(st.Tag(i)).Lookup("json")
		if !ok {
			continue
		}
		name, rest, _ := strings.Cut(tag, ",")
		if name == "-" && rest == "" {
			continue
		}
		if f.Embedded() && (name == "" || strings.Contains(","+rest+",", ",inline,")) {
			out = append(out, structFields(fset, f.Type(), depth+1)...)
			continue
		}
		out = append(out, ItemField{JSON: name, Go: f.Name(), Type: typeName, Pos: fset.Position(f.Pos())})
	}
	return out
}

const metav1 = "k8s.io/apimachinery/pkg/apis/meta/v1."

func isObjectMeta(ctx *crdmarkers.SchemaContext, f *ast.Field) bool {
	return isMetav1(ctx, f, "ObjectMeta")
}

// isKindRoot reports whether the struct embeds metav1.TypeMeta, i.e. is the
// root type of a kind (embedded ObjectMeta in templates is ordinary data).
func isKindRoot(ctx *crdmarkers.SchemaContext, info *markers.TypeInfo) bool {
	for _, f := range info.Fields {
		if f.Name == "" && isMetav1(ctx, f.RawField, "TypeMeta") {
			return true
		}
	}
	return false
}

func isMetav1(ctx *crdmarkers.SchemaContext, f *ast.Field, name string) bool {
	if ctx.Package.TypesInfo == nil {
		return false
	}
	t := ctx.Package.TypesInfo.TypeOf(f.Type)
	if t == nil {
		return false
	}
	s := strings.TrimPrefix(t.String(), "*")
	return s == metav1+name
}
