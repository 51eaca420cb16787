// Package markers defines immutable-gen's Go markers, `+immutable`,
// `+immutable=keys`, `+immutable=once`, `+immutable:message` and
// `+immutable:ignoreOrder`, registers
// them with controller-tools' marker registry, and carries each marker's Go
// position through controller-tools' CRD schema generation so that later
// stages can report errors at the marker.
//
// A marker is valid on struct fields and on named types:
//
//	// +immutable          the node (and its whole subtree) never changes
//	// +immutable=keys     the map's keys or the list map's key tuples never change
//	// +immutable=once     once set, the value never changes nor goes away (beyond the KEP)
//	// +immutable:message="…"  the message of the CEL rules enforcing the form beside it
//	// +immutable:ignoreOrder  beside +immutable or =once: list maps in the value compare by key, order ignored
//
// Any other value is an error; near-miss spellings are reported by Lint.
//
// validation-gen's declarative update tags (+k8s:update, +k8s:eachVal) are
// read too, on fields of the user's own packages, and carried as the form
// with the same verdicts (upstream.go).
package markers

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/jsontag"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Name is the marker's name as registered (without the leading `+`).
const Name = "immutable"

// MessageName is the name of the message marker.
const MessageName = Name + ":message"

// IgnoreOrderName is the name of the marker that makes the value compared
// whole ignore the order of its list maps.
const IgnoreOrderName = Name + ":ignoreOrder"

// Immutable is the parsed value of one `+immutable`, `+immutable=keys` or
// `+immutable=once` marker comment.
type Immutable struct {
	// keys is true for `+immutable=keys`, once for `+immutable=once`.
	// (Unexported, so that controller-tools' help shows the marker as
	// `+immutable` rather than deriving an argument from it.)
	keys, once bool

	// id makes every parsed marker comment distinct, so that ApplyToSchema can
	// find which field or type it was written on.
	id *occurrence
}

// occurrence has a non-zero size so that every allocation has its own address.
type occurrence struct{ _ byte }

// ParseMarker implements controller-tools' custom marker parsing: the only
// accepted forms are `+immutable`, `+immutable=keys` and `+immutable=once`.
func (m *Immutable) ParseMarker(_ string, anonymousName string, rest string) error {
	m.id = &occurrence{}
	if anonymousName != "" && anonymousName != Name {
		// controller-tools falls back to +immutable for an unknown
		// +immutable:<something>=…
		return fmt.Errorf("unknown marker +%s: the only forms are +immutable, +immutable=keys, +immutable=once and +%s=\"…\"", anonymousName, MessageName)
	}
	switch rest {
	case "":
		return nil
	case "keys":
		m.keys = true
		return nil
	case "once":
		m.once = true
		return nil
	}
	hint := ""
	for _, v := range []string{"keys", "once"} {
		if strings.EqualFold(strings.TrimSpace(strings.Trim(rest, `"'`)), v) {
			hint = fmt.Sprintf("; did you mean +%s=%s? (marker values are case-sensitive and unquoted)", Name, v)
		}
	}
	return fmt.Errorf("invalid marker +%s=%s: the only forms are +immutable, +immutable=keys and +immutable=once%s", Name, rest, hint)
}

// Keys reports whether the marker is `+immutable=keys`.
func (m Immutable) Keys() bool { return m.keys }

// Once reports whether the marker is `+immutable=once`.
func (m Immutable) Once() bool { return m.once }

// String renders the marker as written.
func (m Immutable) String() string { return m.origin0().Marker() }

// origin0 is the origin of the marker's form, without a place.
func (m Immutable) origin0() schema.Origin { return schema.Origin{Keys: m.keys, Once: m.once} }

// Message is the parsed value of one `+immutable:message="…"` marker: the
// message of the CEL rules that enforce the immutability marker written on
// the same field or type.
type Message struct {
	text string
	id   *occurrence
}

// ParseMarker accepts a quoted Go string (or bare text) that is not empty.
func (m *Message) ParseMarker(_ string, _ string, rest string) error {
	m.id = &occurrence{}
	text, err := oneLine(MessageName, "message", `"name may not change once set"`, rest)
	m.text = text
	return err
}

// oneLine parses the value of marker name, a text (what) of one line that
// is not empty: a quoted Go string (example shows one), or bare text.
func oneLine(name, what, example, rest string) (string, error) {
	text := strings.TrimSpace(rest)
	if strings.HasPrefix(text, `"`) || strings.HasPrefix(text, "`") {
		u, err := strconv.Unquote(text)
		if err != nil {
			return "", fmt.Errorf("invalid marker +%s=%s: the %s must be a quoted string, e.g. +%s=%s", name, rest, what, name, example)
		}
		text = u
	}
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("invalid marker +%s: the %s is empty", name, what)
	}
	if strings.ContainsAny(text, "\r\n") {
		return "", fmt.Errorf("invalid marker +%s=%s: the %s may not contain line breaks", name, rest, what)
	}
	return text, nil
}

// Text is the message.
func (m Message) Text() string { return m.text }

// IgnoreOrder is the parsed value of one `+immutable:ignoreOrder` marker:
// beside +immutable or +immutable=once on the same field or type, the list
// maps in the value compare by key, their order ignored (beyond the KEP).
type IgnoreOrder struct {
	id *occurrence
}

// ParseMarker accepts the marker without a value.
func (m *IgnoreOrder) ParseMarker(_ string, _ string, rest string) error {
	m.id = &occurrence{}
	switch strings.TrimSpace(rest) {
	case "", "true":
		return nil
	}
	return fmt.Errorf("invalid marker +%s=%s: the marker takes no value; write +%s", IgnoreOrderName, rest, IgnoreOrderName)
}

// ApplyToSchema checks that the marker stands beside +immutable or
// +immutable=once on the same field or type (that marker carries it to the
// schema), so that it never goes silently unused.
func (m IgnoreOrder) ApplyToSchema(ctx *crdmarkers.SchemaContext, _ *apiext.JSONSchemaProps) error {
	if ctx == nil || ctx.TypeInfo == nil {
		return fmt.Errorf("+%s: internal error: no type context", IgnoreOrderName)
	}
	check := func(vals markers.MarkerValues, where string) (bool, error) {
		mine := false
		for _, v := range vals[IgnoreOrderName] {
			if x, ok := v.(IgnoreOrder); ok && x.id == m.id {
				mine = true
			}
		}
		if !mine {
			return false, nil
		}
		return true, ignoreOrderBeside(vals, where)
	}
	if mine, err := check(ctx.TypeInfo.Markers, "type "+ctx.TypeInfo.Name); mine {
		return err
	}
	for _, f := range ctx.TypeInfo.Fields {
		if mine, err := check(f.Markers, "field "+ctx.TypeInfo.Name+"."+fieldName(f.RawField)); mine {
			return err
		}
	}
	return nil
}

// ignoreOrderBeside checks the immutability markers beside
// +immutable:ignoreOrder on one field or type.
func ignoreOrderBeside(vals markers.MarkerValues, where string) error {
	whole := false
	for _, v := range vals[Name] {
		if im, ok := v.(Immutable); ok && !im.keys {
			whole = true
		}
	}
	cs, _ := updatesOf(vals)
	if len(cs) > 0 {
		if o, ok := updateForm(cs); ok && o.Form().Change == form.NoChange {
			whole = true
		}
	}
	if whole {
		return nil
	}
	if len(cs) > 0 {
		return fmt.Errorf("+%s on %s stands beside %s, which compares no value whole (there is no order to ignore); use it beside +immutable or +immutable=once, or remove it", IgnoreOrderName, where, spelling(cs))
	}
	if len(vals[Name]) > 0 {
		return fmt.Errorf("+%s on %s stands beside +immutable=keys, which compares key sets (they have no order); use it beside +immutable or +immutable=once, or remove it", IgnoreOrderName, where)
	}
	return fmt.Errorf("+%s on %s has no immutability marker beside it; add +immutable or +immutable=once to the %s, or remove it", IgnoreOrderName, where, strings.Fields(where)[0])
}

// Register adds the marker for fields and for named types to reg, and
// validation-gen's update tags (+k8s:update, +k8s:eachVal) for fields.
func Register(reg *markers.Registry) error {
	if err := registerUpstream(reg); err != nil {
		return err
	}
	if err := registerWhen(reg); err != nil {
		return err
	}
	for _, target := range []markers.TargetType{markers.DescribesField, markers.DescribesType} {
		if err := define(reg, Name, target, Immutable{}, help(target)); err != nil {
			return err
		}
		if err := define(reg, MessageName, target, Message{}, &markers.DefinitionHelp{
			Category: "Immutability",
			DetailedHelp: markers.DetailedHelp{
				Summary: "the message of the CEL rules that enforce the +immutable, +immutable=keys or +immutable=once marker on the same " + map[markers.TargetType]string{markers.DescribesField: "field.", markers.DescribesType: "type."}[target],
				Details: "+immutable:message=\"…\" stands beside one immutability marker on the same field or type; the generated rules report it instead of `field is immutable`. It goes beyond the KEP.",
			},
			FieldHelp: map[string]markers.DetailedHelp{},
		}); err != nil {
			return err
		}
		if err := define(reg, IgnoreOrderName, target, IgnoreOrder{}, &markers.DefinitionHelp{
			Category: "Immutability",
			DetailedHelp: markers.DetailedHelp{
				Summary: "beside +immutable or +immutable=once on the same " + map[markers.TargetType]string{markers.DescribesField: "field", markers.DescribesType: "type"}[target] + ": the +listType=map lists in the value compare by key, their order ignored.",
				Details: "+immutable:ignoreOrder needs a list map at or under the marked node. Its CEL rule is self == oldSelf (CEL compares list maps by key), which needs no MaxItems; in extensions mode it is x-immutable-gen-ignore-order. It goes beyond the KEP, which compares list maps in order.",
			},
			FieldHelp: map[string]markers.DetailedHelp{},
		}); err != nil {
			return err
		}
	}
	return nil
}

// define registers the marker name on target, its value parsed into v's
// type, with its help.
func define(reg *markers.Registry, name string, target markers.TargetType, v any, h *markers.DefinitionHelp) error {
	def, err := markers.MakeDefinition(name, target, v)
	if err != nil {
		return err
	}
	if err := reg.Register(def); err != nil {
		return err
	}
	reg.AddHelp(def, h)
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
			Summary: fmt.Sprintf("marks this %s as immutable after creation (x-kubernetes-immutable); =keys makes only the keys of a map or list map immutable (x-kubernetes-immutable-keys); =once lets it be set once, then fixed.", what),
			Details: markerDetails(),
		},
		FieldHelp: map[string]markers.DetailedHelp{},
	}
}

// markerDetails says what each form with a marker of ours means, from the
// form table.
func markerDetails() string {
	var parts []string
	for _, k := range form.Kinds() {
		if k.Marker != "" {
			parts = append(parts, k.Marker+": "+k.Means+".")
		}
	}
	return strings.Join(parts, " ")
}

// ApplyToSchema records the marker on the schema node controller-tools
// generates for the field or type, as a carrier rule that the schema package
// turns into the immutability model (and removes) after generation.
func (m Immutable) ApplyToSchema(ctx *crdmarkers.SchemaContext, s *apiext.JSONSchemaProps) error {
	o, err := m.locate(ctx)
	if err != nil {
		return err
	}
	s.XValidations = append(s.XValidations, apiext.ValidationRule{Rule: o.Carrier()})
	return nil
}

// locate finds the field or type the marker was written on.
func (m Immutable) locate(ctx *crdmarkers.SchemaContext) (schema.Origin, error) {
	if ctx == nil || ctx.TypeInfo == nil || ctx.Package == nil {
		return schema.Origin{}, fmt.Errorf("%s: internal error: no type context", m)
	}
	info := ctx.TypeInfo
	if m.in(info.Markers) {
		return m.origin(ctx.Package, info, nil)
	}
	for i := range info.Fields {
		f := &info.Fields[i]
		if !m.in(f.Markers) {
			continue
		}
		o, err := m.origin(ctx.Package, info, f)
		if err != nil {
			return o, err
		}
		if tag, ok := jsontag.Lookup(f.Tag); ok && tag.Inline() {
			return o, fmt.Errorf("%s is not allowed on the embedded (inline) field %s: its properties belong to %s; mark the fields of the embedded type, or the type itself with +immutable", m, o.Field, info.Name)
		}
		return o, nil
	}
	return schema.Origin{}, fmt.Errorf("%s: internal error: cannot find the marker on type %s", m, info.Name)
}

// TypeOrigins returns where each immutability marker written on the type
// declaration info of pkg stands, in the order written. The error is the
// first invalid combination (two +immutable:message markers); the origins
// are complete nonetheless.
func TypeOrigins(pkg *loader.Package, info *markers.TypeInfo) ([]schema.Origin, error) {
	return origins(pkg, info, nil)
}

// FieldOrigins returns where each immutability marker written on the field
// f of the struct type info of pkg stands, in the order written.
func FieldOrigins(pkg *loader.Package, info *markers.TypeInfo, f *markers.FieldInfo) ([]schema.Origin, error) {
	return origins(pkg, info, f)
}

func origins(pkg *loader.Package, info *markers.TypeInfo, f *markers.FieldInfo) ([]schema.Origin, error) {
	vals := info.Markers
	if f != nil {
		vals = f.Markers
	}
	var out []schema.Origin
	var first error
	for _, v := range vals[Name] {
		m, ok := v.(Immutable)
		if !ok {
			continue
		}
		o, err := m.origin(pkg, info, f)
		out = append(out, o)
		if first == nil {
			first = err
		}
	}
	if len(vals[ImmutableTagName]) > 0 && len(vals[Name]) == 0 && len(vals[UpdateName]) == 0 && userPackage(pkg) {
		// validation-gen's +k8s:immutable: +immutable.
		o, err := Immutable{}.origin(pkg, info, f)
		o.Spelling = "+" + ImmutableTagName
		out = append(out, o)
		if first == nil {
			first = err
		}
	}
	if cs, _ := updatesOf(vals); f != nil && len(cs) > 0 && userPackage(pkg) {
		// validation-gen's +k8s:update tags on the field, as the form
		// they mean (an invalid combination is reported on the crd path).
		if tag, ok := updateForm(cs); ok {
			o, err := Immutable{keys: tag.Keys, once: tag.Once}.origin(pkg, info, f)
			o.NoModify, o.NoSet, o.NoUnset, o.Spelling = tag.NoModify, tag.NoSet, tag.NoUnset, spelling(cs)
			o.Pos = tagPos(pkg.Fset, o.DeclPos, "+"+UpdateName, f.RawField.Doc)
			out = append(out, o)
			if first == nil {
				first = err
			}
		}
	}
	return out, first
}

// origin is where m stands: on the type declaration info of pkg, or on its
// field f when f is not nil. It is the one place a marker's Go position,
// message, Go and JSON names and list map item fields are read.
func (m Immutable) origin(pkg *loader.Package, info *markers.TypeInfo, f *markers.FieldInfo) (schema.Origin, error) {
	fset := pkg.Fset
	o := schema.Origin{Keys: m.keys, Once: m.once, Type: pkg.PkgPath + "." + info.Name}
	vals := info.Markers
	var t types.Type
	docs := []*ast.CommentGroup{info.RawSpec.Doc, info.RawDecl.Doc}
	if f == nil {
		o.DeclPos = fset.Position(info.RawSpec.Pos())
		o.Pos = markerPos(fset, o.DeclPos, m.String(), docs...)
		if m.keys && pkg.TypesInfo != nil {
			if obj := pkg.TypesInfo.Defs[info.RawSpec.Name]; obj != nil {
				t = obj.Type()
			}
		}
	} else {
		vals = f.Markers
		docs = []*ast.CommentGroup{f.RawField.Doc}
		o.Field = fieldName(f.RawField)
		o.DeclPos = fset.Position(f.RawField.Pos())
		o.Pos = markerPos(fset, o.DeclPos, m.String(), docs...)
		if tag, ok := jsontag.Lookup(f.Tag); ok {
			o.JSONName = tag.Name
		}
		if m.keys && pkg.TypesInfo != nil {
			t = pkg.TypesInfo.TypeOf(f.RawField.Type)
		}
	}
	if t != nil {
		o.ItemFields = itemFields(fset, t)
	}
	msg, err := messageOf(vals)
	o.Message = msg
	when, werr := whenOf(vals)
	o.When = when
	if when != "" {
		whenAt(fset, &o, docs...)
	}
	if err == nil {
		err = werr
	}
	if len(vals[IgnoreOrderName]) > 0 && !m.keys {
		o.IgnoreOrder = true
	}
	return o, err
}

// messageOf returns the text of the +immutable:message marker among vals,
// "" when there is none, and an error when there are several.
func messageOf(vals markers.MarkerValues) (string, error) {
	var texts []string
	for _, v := range vals[MessageName] {
		if m, ok := v.(Message); ok {
			texts = append(texts, m.text)
		}
	}
	if len(texts) > 1 {
		return "", fmt.Errorf("+%s is written %d times on one field or type; keep one", MessageName, len(texts))
	}
	if len(texts) == 0 {
		return "", nil
	}
	return texts[0], nil
}

// ApplyToSchema checks that the message stands beside an immutability
// marker on the same field or type (the marker itself carries the text to
// the schema), so that a message never goes silently unused.
func (m Message) ApplyToSchema(ctx *crdmarkers.SchemaContext, _ *apiext.JSONSchemaProps) error {
	if ctx == nil || ctx.TypeInfo == nil {
		return fmt.Errorf("+%s: internal error: no type context", MessageName)
	}
	has := func(vals markers.MarkerValues) (mine, marked bool) {
		for _, v := range vals[MessageName] {
			if x, ok := v.(Message); ok && x.id == m.id {
				mine = true
			}
		}
		return mine, len(vals[Name]) > 0 || len(vals[UpdateName]) > 0
	}
	if mine, marked := has(ctx.TypeInfo.Markers); mine {
		if !marked {
			return fmt.Errorf("+%s on type %s has no immutability marker beside it; add +immutable, +immutable=keys or +immutable=once to the type, or remove the message", MessageName, ctx.TypeInfo.Name)
		}
		return nil
	}
	for _, f := range ctx.TypeInfo.Fields {
		if mine, marked := has(f.Markers); mine && !marked {
			return fmt.Errorf("+%s on field %s.%s has no immutability marker beside it; add +immutable, +immutable=keys or +immutable=once to the field, or remove the message", MessageName, ctx.TypeInfo.Name, fieldName(f.RawField))
		}
	}
	return nil
}

func (m Immutable) in(vals markers.MarkerValues) bool {
	for _, v := range vals[Name] {
		if im, ok := v.(Immutable); ok && im.id == m.id {
			return true
		}
	}
	return false
}

// markerPos returns the position of the comment holding the marker written
// as want (`+immutable`, `+immutable=keys`, `+immutable=once`) in the first
// doc group that has one; else of any +immutable form; else decl (markers
// may also stand in a comment group before the doc comment).
func markerPos(fset *token.FileSet, decl token.Position, want string, docs ...*ast.CommentGroup) token.Position {
	for _, exact := range []bool{true, false} {
		for _, doc := range docs {
			if doc == nil {
				continue
			}
			for _, c := range doc.List {
				if text, ok := strings.CutPrefix(c.Text, "//"); ok && isImmutableMarker(strings.TrimSpace(text), want, exact) {
					return fset.Position(c.Pos())
				}
			}
		}
	}
	return decl
}

// whenAt records in o where its +immutable:when condition's text starts in
// the doc comments (the first such marker; whenOf refuses two), and the
// marker's value as written when it is a Go string with escapes, so that
// an error in the condition is reported at its own line and column.
func whenAt(fset *token.FileSet, o *schema.Origin, docs ...*ast.CommentGroup) {
	prefix := "+" + WhenName + "="
	for _, doc := range docs {
		if doc == nil {
			continue
		}
		for _, c := range doc.List {
			i := strings.Index(c.Text, prefix)
			if i < 0 || strings.TrimSpace(strings.TrimPrefix(c.Text[:i], "//")) != "" {
				continue
			}
			value := strings.TrimSpace(c.Text[i+len(prefix):])
			start := i + len(prefix) + strings.Index(c.Text[i+len(prefix):], value)
			p := fset.Position(c.Pos())
			o.WhenLine, o.WhenColumn = p.Line, p.Column+start
			switch {
			case strings.HasPrefix(value, `"`):
				o.WhenColumn++
				if strings.Contains(value, `\`) {
					o.WhenQuoted = value
				}
			case strings.HasPrefix(value, "`"):
				o.WhenColumn++
			}
			return
		}
	}
}

func isImmutableMarker(text, want string, exact bool) bool {
	if !exact {
		want = "+" + Name
	}
	rest, ok := strings.CutPrefix(text, want)
	if !ok {
		return false
	}
	if exact {
		return rest == "" || rest[0] == ' ' || rest[0] == '\t'
	}
	return rest == "" || rest[0] == '=' || rest[0] == ' '
}

// fieldName is the Go name of a struct field: its name, or the type name of
// an embedded field, as go/types names it.
func fieldName(f *ast.Field) string {
	if len(f.Names) > 0 {
		return f.Names[0].Name
	}
	t := f.Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			return x.Sel.Name
		default:
			return ""
		}
	}
}

// itemFields lists the JSON-named fields of t's item struct when t is a
// slice of structs (inline embedded structs flattened), else nil.
func itemFields(fset *token.FileSet, t types.Type) []schema.ItemField {
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

func structFields(fset *token.FileSet, t types.Type, depth int) []schema.ItemField {
	st, ok := t.Underlying().(*types.Struct)
	if !ok || depth > 8 {
		return nil
	}
	typeName := types.TypeString(t, func(p *types.Package) string { return p.Name() })
	var out []schema.ItemField
	for i := range st.NumFields() {
		f := st.Field(i)
		tag, ok := jsontag.Lookup(reflect.StructTag(st.Tag(i)))
		if !ok || tag.Ignored() {
			continue
		}
		if f.Embedded() && tag.Inline() {
			out = append(out, structFields(fset, f.Type(), depth+1)...)
			continue
		}
		name := tag.Name
		out = append(out, schema.ItemField{JSON: name, Go: f.Name(), Type: typeName, Pos: fset.Position(f.Pos())})
	}
	return out
}
