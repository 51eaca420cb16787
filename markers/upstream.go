package markers

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Upstream's declarative update tags (k8s.io/code-generator's
// validation-gen, v0.37), read as input with validation-gen's semantics:
//
//	// +k8s:update=NoSet|NoUnset|NoModify|NoAddItem|NoRemoveItem   one a line, on a field
//	// +k8s:eachVal=+k8s:update=NoModify                            on a list map or map field
//
// Each combination on a field is compiled into the immutable-gen form with
// the same verdicts (docs/guide.md has the table); a combination with no
// such form is an error at the tag, never silently dropped.

// UpdateName and EachValName are the names of the tags.
const (
	UpdateName  = "k8s:update"
	EachValName = "k8s:eachVal"
)

// The constraints of +k8s:update, in validation-gen's order.
var updateConstraints = []string{"NoSet", "NoUnset", "NoModify", "NoAddItem", "NoRemoveItem"}

// Update is one parsed `+k8s:update=<constraint>` tag.
type Update struct {
	constraint string
	id         *occurrence
}

// ParseMarker accepts the five constraints validation-gen knows.
func (m *Update) ParseMarker(_ string, _ string, rest string) error {
	m.id = &occurrence{}
	rest = strings.TrimSpace(rest)
	if !slices.Contains(updateConstraints, rest) {
		return fmt.Errorf("unknown +%s constraint %q: validation-gen accepts %s, one a line", UpdateName, rest, strings.Join(updateConstraints, ", "))
	}
	m.constraint = rest
	return nil
}

// EachVal is one parsed `+k8s:eachVal=<tag>` tag; only the payload
// `+k8s:update=NoModify` is read (validation-gen's other payloads are not
// about immutability).
type EachVal struct {
	payload string
	id      *occurrence
}

// ParseMarker keeps the payload.
func (m *EachVal) ParseMarker(_ string, _ string, rest string) error {
	m.id = &occurrence{}
	m.payload = strings.TrimSpace(rest)
	return nil
}

// eachValNoModify is the one payload of +k8s:eachVal read here.
const eachValNoModify = "+" + UpdateName + "=NoModify"

// registerUpstream adds the tags to reg, for fields (validation-gen's
// +k8s:update scopes are fields, and list items and map values through
// +k8s:eachVal).
func registerUpstream(reg *markers.Registry) error {
	for _, t := range []struct {
		name   string
		target markers.TargetType
		v      any
	}{
		{UpdateName, markers.DescribesField, Update{}},
		{EachValName, markers.DescribesField, EachVal{}},
		{ImmutableTagName, markers.DescribesField, K8sImmutable{}},
		{ImmutableTagName, markers.DescribesType, K8sImmutable{}},
	} {
		name := t.name
		if err := define(reg, name, t.target, t.v, &markers.DefinitionHelp{
			Category:     "Immutability (validation-gen's tags)",
			DetailedHelp: tagHelp(name),
			FieldHelp:    map[string]markers.DetailedHelp{},
		}); err != nil {
			return err
		}
	}
	return nil
}

// tagHelp is the help of validation-gen's tag name: what each of its
// spellings in the form table means.
func tagHelp(name string) markers.DetailedHelp {
	summary := "validation-gen's +" + name + ", compiled by immutable-gen into the immutability form with the same verdicts."
	switch name {
	case ImmutableTagName:
		k, _ := form.Named("immutable")
		return markers.DetailedHelp{
			Summary: summary,
			Details: "+" + ImmutableTagName + " is " + k.Marker + ": " + k.Means + ".",
		}
	case EachValName:
		k, _ := form.Named("immutable")
		return markers.DetailedHelp{
			Summary: summary,
			Details: "+" + EachValName + "=" + eachValNoModify + " (or =+" + ImmutableTagName + ") on a list map or map field is " + k.Marker + " on its items or values: " + k.Means + ". Other payloads are not about immutability and are left to validation-gen.",
		}
	}
	parts := []string{"+" + UpdateName + "=" + strings.Join(updateConstraints, "|") + ", one a line."}
	for _, k := range form.Kinds() {
		for _, t := range k.Tags {
			if !strings.HasPrefix(t, "+"+UpdateName+"=") {
				continue
			}
			what := k.Name
			if k.Marker != "" {
				what = k.Marker
			}
			parts = append(parts, t+" is "+what+": "+k.Means+".")
		}
	}
	return markers.DetailedHelp{Summary: summary, Details: strings.Join(parts, " ")}
}

// updateForm maps a set of +k8s:update constraints onto the form of the
// form table (runtime/form) that lists them among its validation-gen
// spellings: the form with the same verdicts on a CRD (unset: the
// property is absent; for a field with omitempty that is validation-gen's
// zero value). Any other combination has no form: ok is false.
func updateForm(cs []string) (o schema.Origin, ok bool) {
	written := spelling(cs)
	for _, k := range form.Kinds() {
		if slices.Contains(k.Tags, written) {
			return o.WithForm(form.Form{Presence: k.Presence, Change: k.Change}), true
		}
	}
	return o, false
}

// updateSpellings are the +k8s:update spellings of the form table, in
// its order.
func updateSpellings() []string {
	var out []string
	for _, k := range form.Kinds() {
		for _, t := range k.Tags {
			if strings.HasPrefix(t, "+"+UpdateName+"=") {
				out = append(out, t)
			}
		}
	}
	return out
}

// spelling renders constraints as one tag line would list them.
func spelling(cs []string) string {
	return "+" + UpdateName + "=" + strings.Join(cs, ",")
}

// updatesOf returns the constraints of the +k8s:update tags among vals, in
// validation-gen's order, and the first tag.
func updatesOf(vals markers.MarkerValues) ([]string, *occurrence) {
	var cs []string
	var first *occurrence
	for _, v := range vals[UpdateName] {
		if u, ok := v.(Update); ok {
			if first == nil {
				first = u.id
			}
			if !slices.Contains(cs, u.constraint) {
				cs = append(cs, u.constraint)
			}
		}
	}
	slices.SortFunc(cs, func(a, b string) int {
		return slices.Index(updateConstraints, a) - slices.Index(updateConstraints, b)
	})
	return cs, first
}

// ApplyToSchema compiles the +k8s:update tags of the field into the
// carrier of the form they mean (once per field: the first tag does it).
func (m Update) ApplyToSchema(ctx *crdmarkers.SchemaContext, s *apiext.JSONSchemaProps) error {
	info, f := fieldOf(ctx, func(vals markers.MarkerValues) bool {
		for _, v := range vals[UpdateName] {
			if u, ok := v.(Update); ok && u.id == m.id {
				return true
			}
		}
		return false
	})
	if f == nil {
		return fmt.Errorf("+%s: internal error: cannot find the tag", UpdateName)
	}
	cs, first := updatesOf(f.Markers)
	if first != m.id || !userPackage(ctx.Package) {
		return nil
	}
	where := fmt.Sprintf("field %s.%s", info.Name, fieldName(f.RawField))
	tag, ok := updateForm(cs)
	if !ok {
		return fmt.Errorf("%s on %s: immutable-gen has no form with these verdicts; the combinations that have one are %s", spelling(cs), where, strings.Join(updateSpellings(), ", "))
	}
	if compound := compoundField(ctx.Package, f); compound && slices.Contains(cs, "NoModify") {
		return fmt.Errorf("%s on %s: validation-gen refuses NoModify on a list or map field; use +%s=%s for its items or values, or +immutable for the whole value", spelling(cs), where, EachValName, eachValNoModify)
	}
	for _, v := range f.Markers[Name] {
		im, ok := v.(Immutable)
		if !ok {
			continue
		}
		if mine, theirs := tag.Form(), im.origin0().Form(); mine.Presence == theirs.Presence && mine.Change == theirs.Change {
			return nil // the marker beside says the same, and carries it
		}
		return fmt.Errorf("%s on %s stands beside %s, which says something else: keep one of them", spelling(cs), where, im)
	}
	o, err := Immutable{keys: tag.Keys, once: tag.Once}.origin(ctx.Package, info, f)
	if err != nil {
		return err
	}
	o.NoModify, o.NoSet, o.NoUnset, o.Spelling = tag.NoModify, tag.NoSet, tag.NoUnset, spelling(cs)
	o.Pos = tagPos(ctx.Package.Fset, o.DeclPos, "+"+UpdateName, f.RawField.Doc)
	s.XValidations = append(s.XValidations, apiext.ValidationRule{Rule: o.Carrier()})
	return nil
}

// ApplyToSchema compiles `+k8s:eachVal=+k8s:update=NoModify` on a list
// map or map field into +immutable on its items or values.
func (m EachVal) ApplyToSchema(ctx *crdmarkers.SchemaContext, s *apiext.JSONSchemaProps) error {
	if p := strings.ReplaceAll(m.payload, " ", ""); p != eachValNoModify && p != "+"+ImmutableTagName || !userPackage(ctx.Package) {
		return nil // another validation-gen tag, not about immutability; or not the user's
	}
	info, f := fieldOf(ctx, func(vals markers.MarkerValues) bool {
		for _, v := range vals[EachValName] {
			if e, ok := v.(EachVal); ok && e.id == m.id {
				return true
			}
		}
		return false
	})
	if f == nil {
		return fmt.Errorf("+%s: internal error: cannot find the tag", EachValName)
	}
	where := fmt.Sprintf("field %s.%s", info.Name, fieldName(f.RawField))
	var target *apiext.JSONSchemaProps
	switch {
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil:
		if s.XListType == nil || *s.XListType != "map" {
			return fmt.Errorf("+%s=%s on %s: validation-gen requires the list to be a list map (+listType=map): items of other lists have no identity to keep", EachValName, eachValNoModify, where)
		}
		target = s.Items.Schema
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		target = s.AdditionalProperties.Schema
	default:
		return fmt.Errorf("+%s=%s on %s: only list maps and maps have items or values", EachValName, eachValNoModify, where)
	}
	o, err := Immutable{}.origin(ctx.Package, info, f)
	if err != nil {
		return err
	}
	o.Spelling = "+" + EachValName + "=" + strings.ReplaceAll(m.payload, " ", "")
	o.Pos = tagPos(ctx.Package.Fset, o.DeclPos, "+"+EachValName, f.RawField.Doc)
	o.JSONName = "" // the items or values, not the field
	target.XValidations = append(target.XValidations, apiext.ValidationRule{Rule: o.Carrier()})
	return nil
}

// userPackage reports whether pkg is the user's own code, where
// validation-gen's tags are read: not in the module cache, GOROOT or a
// vendor directory. k8s.io/api's own tags state the native types' update
// rules for their API server; a CRD that embeds those types (a Pod
// template) gets no immutability its author did not write, and its CRD
// stays controller-gen's byte for byte.
func userPackage(pkg *loader.Package) bool {
	if pkg == nil || len(pkg.GoFiles) == 0 {
		return true
	}
	file := filepath.ToSlash(pkg.GoFiles[0])
	if strings.Contains(file, "/vendor/") {
		return false
	}
	for _, dir := range []string{os.Getenv("GOMODCACHE"), filepath.Join(build.Default.GOPATH, "pkg", "mod"), build.Default.GOROOT} {
		if dir != "" && strings.HasPrefix(file, filepath.ToSlash(dir)+"/") {
			return false
		}
	}
	return true
}

// fieldOf finds the field of ctx's type whose markers mine says hold the
// tag being applied.
func fieldOf(ctx *crdmarkers.SchemaContext, mine func(markers.MarkerValues) bool) (*markers.TypeInfo, *markers.FieldInfo) {
	if ctx == nil || ctx.TypeInfo == nil || ctx.Package == nil {
		return nil, nil
	}
	for i := range ctx.TypeInfo.Fields {
		if f := &ctx.TypeInfo.Fields[i]; mine(f.Markers) {
			return ctx.TypeInfo, f
		}
	}
	return ctx.TypeInfo, nil
}

// compoundField reports whether f's Go type is a slice or a map (not
// []byte), through pointers.
func compoundField(pkg *loader.Package, f *markers.FieldInfo) bool {
	if pkg.TypesInfo == nil {
		return false
	}
	t := pkg.TypesInfo.TypeOf(f.RawField.Type)
	for t != nil {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			break
		}
		t = p.Elem()
	}
	if t == nil {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Map:
		return true
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return !ok || b.Kind() != types.Byte
	}
	return false
}

// tagPos is the position of the first comment starting with tag in doc,
// else decl.
func tagPos(fset *token.FileSet, decl token.Position, tag string, doc *ast.CommentGroup) token.Position {
	if doc != nil {
		for _, c := range doc.List {
			if text, ok := strings.CutPrefix(c.Text, "//"); ok && strings.HasPrefix(strings.TrimSpace(text), tag) {
				return fset.Position(c.Pos())
			}
		}
	}
	return decl
}

// ImmutableTagName is validation-gen's (and controller-tools') tag name.
const ImmutableTagName = "k8s:immutable"

// K8sImmutable is one parsed `+k8s:immutable` tag. On the user's own fields
// and types it has validation-gen's meaning — the value may not be set,
// removed or changed: +immutable. Elsewhere (k8s.io/api and the like) it
// keeps controller-tools' meaning, whose marker it replaces in the
// registry, so that CRDs of those types stay controller-gen's byte for
// byte.
type K8sImmutable struct {
	id *occurrence
}

// ParseMarker accepts the tag without a value, as validation-gen does.
func (m *K8sImmutable) ParseMarker(_ string, _ string, rest string) error {
	m.id = &occurrence{}
	if r := strings.TrimSpace(rest); r != "" && r != "true" {
		return fmt.Errorf("invalid marker +%s=%s: the tag takes no value", ImmutableTagName, rest)
	}
	return nil
}

// ApplyToSchema carries +immutable for the field or type the tag is on.
func (m K8sImmutable) ApplyToSchema(ctx *crdmarkers.SchemaContext, s *apiext.JSONSchemaProps) error {
	if ctx == nil || !userPackage(ctx.Package) {
		return crdmarkers.Immutable{}.ApplyToSchema(ctx, s)
	}
	mine := func(vals markers.MarkerValues) bool {
		for _, v := range vals[ImmutableTagName] {
			if x, ok := v.(K8sImmutable); ok && x.id == m.id {
				return true
			}
		}
		return false
	}
	info := ctx.TypeInfo
	var f *markers.FieldInfo
	if info == nil || !mine(info.Markers) {
		info, f = fieldOf(ctx, mine)
		if f == nil {
			return fmt.Errorf("+%s: internal error: cannot find the tag", ImmutableTagName)
		}
	}
	vals := info.Markers
	if f != nil {
		vals = f.Markers
	}
	if len(vals[Name]) > 0 || len(vals[UpdateName]) > 0 {
		return nil // the form beside it says it already (+immutable or +k8s:update)
	}
	o, err := Immutable{}.origin(ctx.Package, info, f)
	if err != nil {
		return err
	}
	o.Spelling = "+" + ImmutableTagName
	if f != nil {
		o.Pos = tagPos(ctx.Package.Fset, o.DeclPos, o.Spelling, f.RawField.Doc)
	} else {
		o.Pos = tagPos(ctx.Package.Fset, o.DeclPos, o.Spelling, info.RawSpec.Doc)
		if !o.Pos.IsValid() || o.Pos == o.DeclPos {
			o.Pos = tagPos(ctx.Package.Fset, o.DeclPos, o.Spelling, info.RawDecl.Doc)
		}
	}
	s.XValidations = append(s.XValidations, apiext.ValidationRule{Rule: o.Carrier()})
	return nil
}
