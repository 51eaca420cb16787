package validators

import (
	"bytes"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Import paths the generated code calls.
const (
	fieldPkg     = "k8s.io/apimachinery/pkg/util/validation/field"
	immutablePkg = "github.com/immutable-gen/immutable-gen/runtime/immutable"
)

// emitter writes the validators of one package: for each root kind a
// ValidateImmutableUpdate method, and the functions it calls, one per Go
// type and schema (a walk function where something marked lies below,
// an equality function for what is compared whole).
type emitter struct {
	local   *types.Package
	tracker *namer.DefaultImportTracker
	// crd and version name the CRD version whose kind is being emitted.
	crd, version string

	funcs []*bytes.Buffer
	names map[string]string // function key → name
	used  map[string]bool   // names given
	diags diag.List
	// failed records the nodes already reported, once each.
	failed map[*schema.Node]bool
	// cur is the node compared whole while equality functions are
	// generated, for errors about values the schema does not describe.
	cur *schema.Node
	// unordered is set while the equality of a value under
	// +immutable:ignoreOrder is generated: list maps compare by key.
	unordered bool
	tmp       int
	// skipConditional leaves conditional markers unchecked, with a
	// warning (validators:conditional=skip).
	skipConditional bool
	// fset positions the Go fields of findings (IG053); goLine is the go
	// line of the package's module, which decides whether omitzero counts.
	fset   *token.FileSet
	goLine goLine
}

func newEmitter(local *types.Package, taken []string, tracker *namer.DefaultImportTracker) *emitter {
	e := &emitter{
		local:   local,
		tracker: tracker,
		names:   map[string]string{},
		used:    map[string]bool{},
		failed:  map[*schema.Node]bool{},
	}
	for _, name := range taken {
		e.used[name] = true
	}
	return e
}

// pkg returns the local name of the imported package path.
func (e *emitter) pkg(path string) string {
	e.tracker.AddSymbol(gengotypes.Name{Package: path, Name: "_"})
	return e.tracker.LocalNameOf(path)
}

// typeString renders t in the local package.
func (e *emitter) typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == nil || p.Path() == e.local.Path() {
			return ""
		}
		return e.pkg(p.Path())
	})
}

// fail reports that the generated code cannot check node n of Go type t,
// at the marker that makes it needed.
func (e *emitter) fail(n *schema.Node, t types.Type, format string, args ...any) {
	if n == nil {
		n = e.cur
	}
	if n != nil && e.failed[n] {
		return
	}
	if n != nil {
		e.failed[n] = true
	}
	var o *schema.Origin
	for a := n; a != nil && o == nil; a = a.Parent {
		if len(a.Origins) > 0 {
			o = &a.Origins[0]
		}
	}
	if o == nil && n != nil {
		n.Walk(func(c *schema.Node) {
			if o == nil && len(c.Origins) > 0 {
				o = &c.Origins[0]
			}
		})
	}
	path := "<root>"
	if n != nil {
		path = n.Path()
	}
	d := diag.Diagnostic{
		ID:       IDUncheckable,
		Severity: diag.Error,
		Message:  fmt.Sprintf("the typed validators cannot check %s (Go type %s): %s", path, e.typeString(t), fmt.Sprintf(format, args...)),
		Fix:      "change the Go type, or check this API with the immutable-gen runtime on unstructured objects",
	}
	if o != nil {
		d.Pos = o.Pos
		d.Marker, d.Path = o.Marker(), path
	}
	d.CRD, d.Version = e.crd, e.version
	e.diags = append(e.diags, d)
}

// skip reports the conditional markers at and below c that the typed
// validator leaves unchecked (validators:conditional=skip).
func (e *emitter) skip(c *schema.Node) {
	if e.failed[c] {
		return
	}
	e.failed[c] = true
	for _, o := range c.Origins {
		if o.When == "" {
			continue
		}
		e.diags = append(e.diags, diag.Diagnostic{
			ID:       IDConditionalSkipped,
			Severity: diag.Warning,
			Pos:      o.Pos,
			Marker:   o.Marker(),
			CRD:      e.crd,
			Version:  e.version,
			Path:     c.Path(),
			Message:  fmt.Sprintf("%s is conditional (+immutable:when=%q): the typed validator does not check it (validators:conditional=skip); the CRD's CEL rule does, on the API server", c.Path(), o.When),
			Fix:      "drop validators:conditional=skip: the typed validators compile +immutable:when conditions (one they cannot compile is refused at its text); where the CRD is installed with its CEL rules, the API server checks it meanwhile",
		})
	}
}

// newFunc reserves a function name for key, from base; it reports false if
// the function exists already.
func (e *emitter) newFunc(key, base string) (string, *bytes.Buffer, bool) {
	if name, ok := e.names[key]; ok {
		return name, nil, false
	}
	name := e.free(base, "")
	e.names[key] = name
	b := &bytes.Buffer{}
	e.funcs = append(e.funcs, b)
	return name, b, true
}

// free reserves and returns the first name from base (base, base_2, …)
// that is free, also with suffix appended.
func (e *emitter) free(base, suffix string) string {
	name := base
	for i := 2; e.used[name] || e.used[name+suffix]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	e.used[name], e.used[name+suffix] = true, true
	return name
}

func (e *emitter) v(prefix string) string {
	e.tmp++
	return prefix + strconv.Itoa(e.tmp)
}

// typeName names t for function names: Widget, Corev1Probe, SliceString.
func (e *emitter) typeName(t types.Type) string {
	switch t := t.(type) {
	case *types.Named:
		name := t.Obj().Name()
		if p := t.Obj().Pkg(); p != nil && p.Path() != e.local.Path() {
			name = upper(e.pkg(p.Path())) + name
		}
		return name
	case *types.Alias:
		return e.typeName(types.Unalias(t))
	case *types.Basic:
		return upper(t.Name())
	case *types.Pointer:
		return "Ptr" + e.typeName(t.Elem())
	case *types.Slice:
		return "Slice" + e.typeName(t.Elem())
	case *types.Map:
		return "Map" + e.typeName(t.Key()) + e.typeName(t.Elem())
	case *types.Struct:
		return "Struct"
	}
	return "Value"
}

func upper(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// walks reports whether the walk must visit n: n carries a marker, or a
// node below it that the walk reaches does (the items of a set are never
// correlated, so never reached).
func walks(n *schema.Node) bool {
	if n == nil {
		return false
	}
	if n.Fixed() || n.ImmutableKeys() || n.PresenceOnly() {
		return true
	}
	for _, c := range n.Properties {
		if walks(c) {
			return true
		}
	}
	if n.Items != nil && n.ListType() != "set" && walks(n.Items) {
		return true
	}
	return walks(n.Values)
}

// codeSignature renders what of n the code generated for it depends on: the marks
// (walk) and the list types, keys and structure below.
func codeSignature(n *schema.Node, marks bool) string {
	if n == nil {
		return "-"
	}
	var b strings.Builder
	if marks {
		switch {
		case n.Immutable():
			b.WriteString("I")
		case n.ImmutableOnce():
			b.WriteString("O")
		case n.NoModify():
			b.WriteString("M")
		}
		if add, remove := n.Presence(); add || remove {
			fmt.Fprintf(&b, "P%v%v", add, remove)
		}
		if n.ImmutableKeys() {
			b.WriteString("K")
		}
		if n.When() != "" {
			b.WriteString("W")
		}
		if n.Fixed() {
			// Compared whole: only what equality depends on matters below.
			b.WriteString(codeSignature(n, false))
			return b.String()
		}
	}
	if n.IsList() {
		b.WriteString(n.ListType())
		if n.ListType() == "map" {
			b.WriteString("(" + strings.Join(n.ListMapKeys(), ",") + ")")
		}
	}
	b.WriteString("{")
	for _, k := range slices.Sorted(maps.Keys(n.Properties)) {
		b.WriteString(strconv.Quote(k) + ":" + codeSignature(n.Properties[k], marks) + ",")
	}
	b.WriteString("}")
	if n.Items != nil {
		b.WriteString("[" + codeSignature(n.Items, marks) + "]")
	}
	if n.Values != nil {
		b.WriteString("<" + codeSignature(n.Values, marks) + ">")
	}
	return b.String()
}

// structOf returns the struct type under t (named or literal), or nil.
func structOf(t types.Type) *types.Struct {
	s, _ := t.Underlying().(*types.Struct)
	return s
}

// special is a type whose JSON comes from its own MarshalJSON.
func special(t types.Type) bool {
	if _, ok := types.Unalias(t).(*types.Named); ok {
		return marshals(t)
	}
	return false
}

// root writes the ValidateImmutableUpdate method of kind t at the model's
// root.
func (e *emitter) root(t *types.Named, n *schema.Node) {
	name := t.Obj().Name()
	b := &bytes.Buffer{}
	e.funcs = append(e.funcs, b)
	field := e.pkg(fieldPkg)
	fmt.Fprintf(b, `// ValidateImmutableUpdate checks the update of old to in against the
// immutability markers of %[1]s, as the immutable-gen runtime checks the
// JSON of the two objects with the schema of the %[2]s CRD:
// one error per violation, paths from the object's root. It does not
// allocate when nothing marked changed. A nil in or old is an absent object:
// nothing is compared.
func (in *%[1]s) ValidateImmutableUpdate(old *%[1]s) %[3]s.ErrorList {
`, name, e.crd+" "+e.version, field)
	if !walks(n) {
		fmt.Fprintf(b, "\t// No field of %s carries an immutability marker.\n\treturn nil\n}\n\n", name)
		return
	}
	walk := e.walkStruct(t, n)
	imm := e.pkg(immutablePkg)
	// The conditional markers' checks, after the walk's (when.go).
	cond := func(string) string { return "" }
	if when := e.whenChecks(t, n); when != "" {
		cond = func(w string) string { return fmt.Sprintf("\n\t%s(%s, in, old)", when, w) }
	}
	fmt.Fprintf(b, `	if in == nil || old == nil {
		return nil
	}
	var probe %[1]s.Walk
	%[2]s(&probe, in, old, "")`+cond("&probe")+`
	if !probe.Found() {
		return nil
	}
	w := %[1]s.Walk{Report: true}
	%[2]s(&w, in, old, "")`+cond("&w")+`
	return w.Errors()
}

`, imm, walk)
}

// callWalk writes the call of the walk function of struct type t at node n
// on pointers nv and ov. On the second walk, a subtree without a violation
// is skipped before its path is built (dirty: a first walk of the subtree
// alone), so that reporting one violation allocates only what it reports.
func (e *emitter) callWalk(b *bytes.Buffer, t types.Type, n *schema.Node, nv, ov, path string) {
	walk := e.walkStruct(t, n)
	dirty := e.names["dirty|"+walk]
	if dirty == "" {
		dirty = e.free("dirty"+strings.TrimPrefix(walk, "walk"), "")
		e.names["dirty|"+walk] = dirty
		fb := &bytes.Buffer{}
		e.funcs = append(e.funcs, fb)
		fmt.Fprintf(fb, "func %s(in, old *%s) bool {\nvar q %s.Walk\n%s(&q, in, old, \"\")\nreturn q.Found()\n}\n\n", dirty, e.typeString(t), e.pkg(immutablePkg), walk)
	}
	fmt.Fprintf(b, "if !w.Report || %s(%s, %s) {\n%s(w, %s, %s, %s)\nif w.Done() {\nreturn\n}\n}\n", dirty, nv, ov, walk, nv, ov, path)
}

// walkStruct returns the walk function of struct type t at node n:
// func(w *immutable.Walk, in, old *T, p string), p the path of the struct
// as field.Path renders it ("" at the root and on the first walk).
func (e *emitter) walkStruct(t types.Type, n *schema.Node) string {
	ts := e.typeString(t)
	name, b, isNew := e.newFunc("walk|"+ts+"|"+codeSignature(n, true), "walk"+e.typeName(t))
	if !isNew {
		return name
	}
	fields, err := jsonFields(structOf(t), e.local)
	if err != nil {
		e.fail(n, t, "%v", err)
		return name
	}
	byName := map[string]*jsonField{}
	for _, f := range fields {
		byName[f.name] = f
	}
	var body bytes.Buffer
	for _, prop := range slices.Sorted(maps.Keys(n.Properties)) {
		c := n.Properties[prop]
		if c.When() != "" {
			// Its own constraint is checked at the root, under its
			// condition (whenChecks); the markers below hold on their own.
			c = unmarkedView(c)
		}
		if !walks(c) {
			continue
		}
		f := byName[prop]
		if f == nil {
			e.fail(c, t, "the schema has a property %q that no Go field of the struct serializes as", prop)
			continue
		}
		e.property(&body, c, f, prop, fmt.Sprintf("w.Child(p, %q)", prop))
	}
	fmt.Fprintf(b, "func %s(w *%s.Walk, in, old *%s, p string) {\n", name, e.pkg(immutablePkg), ts)
	b.Write(body.Bytes())
	b.WriteString("}\n\n")
	return name
}

// property writes the check of property prop of struct type t, at node c,
// Go field f, path the expression of its path: its presence as its
// markers say, then its value where present in both objects.
func (e *emitter) property(body *bytes.Buffer, c *schema.Node, f *jsonField, prop, path string) {
	pin, pold := e.presence(f, "in", c), e.presence(f, "old", c)
	nv, ov := f.access("in"), f.access("old")
	if pin == "true" && pold == "true" {
		e.walkValue(body, f.typ, c, nv, ov, path)
		return
	}
	imm := e.pkg(immutablePkg)
	fmt.Fprintf(body, "if nOK, oOK := %s, %s; nOK && oOK {\n", pin, pold)
	e.walkValue(body, f.typ, c, nv, ov, path)
	// The runtime's form of the presence violation.
	add, remove := c.Presence()
	form := "Keys"
	switch {
	case c.Immutable():
		form = "Whole"
	case c.ImmutableOnce(), remove && !add && !c.ImmutableKeys():
		form = "Once"
	case !c.ImmutableKeys():
		form = "Whole"
	}
	switch {
	case add && remove:
		fmt.Fprintf(body, "} else if nOK != oOK {\n")
	case remove:
		fmt.Fprintf(body, "} else if oOK && !nOK {\n")
	case add:
		fmt.Fprintf(body, "} else if nOK && !oOK {\n")
	default:
		// No presence constraint (+k8s:update=NoModify alone): it may
		// come and go.
		body.WriteString("}\n")
		return
	}
	fmt.Fprintf(body, "if w.Violation() {\nw.Add(%s.PresenceAt(%s, %q, %s.%s, nOK))\n}\nif w.Done() {\nreturn\n}\n}\n", imm, path, prop, imm, form)
}

// presence renders whether field f of the struct at expr is in its JSON
// (encoding/json's omitempty and omitzero; embedded pointers on the way).
func (e *emitter) presence(f *jsonField, expr string, n *schema.Node) string {
	x := f.access(expr)
	var conds []string
	if f.omitEmpty {
		if c := e.nonEmpty(f.typ, x, n); c != "true" {
			conds = append(conds, c)
		}
	}
	if f.omitZero && e.omitZeroHonoured(f, n) {
		if c := e.nonZero(f.typ, x, n); c != "true" {
			conds = append(conds, c)
		}
	}
	g := f.guards(expr)
	if len(conds) == 0 {
		if g == "" {
			return "true"
		}
		return strings.TrimSuffix(g, " && ")
	}
	return "(" + g + strings.Join(conds, " && ") + ")"
}

// nonEmpty renders encoding/json's "not empty" of x of type t (omitempty).
func (e *emitter) nonEmpty(t types.Type, x string, n *schema.Node) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return x + ` != ""`
		case u.Info()&types.IsBoolean != 0:
			return x
		case u.Info()&types.IsNumeric != 0:
			return x + " != 0"
		}
	case *types.Pointer, *types.Interface:
		return x + " != nil"
	case *types.Slice, *types.Map:
		return "len(" + x + ") != 0"
	case *types.Array:
		if u.Len() == 0 {
			return "false"
		}
		return "true"
	case *types.Struct:
		return "true"
	}
	e.fail(n, t, "encoding/json's omitempty on this type is not modelled")
	return "true"
}

// hasMethod reports whether t or *t has the method name.
func hasMethod(t types.Type, name string) bool {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, name)
	_, ok := obj.(*types.Func)
	return ok
}

// walkValue writes the check of nv and ov, expressions of Go type t present
// in both objects' JSON, at node n; path is the expression of its path,
// a string rendered as field.Path renders it ("" for the root, and on the
// first walk). Expressions are addressable.
func (e *emitter) walkValue(b *bytes.Buffer, t types.Type, n *schema.Node, nv, ov, path string) {
	imm := e.pkg(immutablePkg)
	if n.Fixed() {
		// Values below without a schema node are reported at this one.
		prev, prevUnordered := e.cur, e.unordered
		e.cur, e.unordered = n, n.IgnoreOrder()
		defer func() { e.cur, e.unordered = prev, prevUnordered }()
		fmt.Fprintf(b, "if !(%s) {\nif w.Violation() {\nw.Add(%s.ChangedAt(%s, %s))\n}\nif w.Done() {\nreturn\n}\n}\n", e.equal(t, n, nv, ov), imm, path, nv)
		return
	}
	aligned := "" // the aligned prefix of a list map, once computed
	if n.ImmutableKeys() {
		if !e.keys(b, t, n, nv, ov, path, &aligned) {
			return
		}
	}
	if !walks(n.Items) && !walks(n.Values) && !anyWalks(n.Properties) {
		return
	}
	if special(t) {
		e.fail(n, t, "markers below a type with its own JSON encoding")
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		fmt.Fprintf(b, "if %s != nil && %s != nil {\n", nv, ov)
		if structOf(u.Elem()) != nil && !special(u.Elem()) {
			e.callWalk(b, u.Elem(), n, nv, ov, path)
		} else {
			e.walkValue(b, u.Elem(), n, "(*"+nv+")", "(*"+ov+")", path)
		}
		b.WriteString("}\n")
	case *types.Struct:
		e.callWalk(b, t, n, addr(nv), addr(ov), path)
	case *types.Map:
		if !isStringKind(u.Key()) {
			e.fail(n, t, "map keys that are not strings")
			return
		}
		k, nv1, ov1 := e.v("k"), e.v("nv"), e.v("ov")
		fmt.Fprintf(b, "if %s != nil && %s != nil {\nif w.Report {\n", nv, ov)
		fmt.Fprintf(b, "for _, %s := range %s.SortedKeys(%s) {\nif %s, ok := %s[%s]; ok {\n%s := %s[%s]\n", k, imm, nv, ov1, ov, k, nv1, nv, k)
		e.walkValue(b, u.Elem(), n.Values, nv1, ov1, keyPath(path, "string("+k+")"))
		b.WriteString("}\n}\n} else {\n")
		fmt.Fprintf(b, "for %s, %s := range %s {\nif %s, ok := %s[%s]; ok {\n", k, nv1, nv, ov1, ov, k)
		e.walkValue(b, u.Elem(), n.Values, nv1, ov1, keyPath(path, "string("+k+")"))
		b.WriteString("}\n}\n}\n}\n")
	case *types.Slice:
		switch n.ListType() {
		case "set":
			// Set items are their own identity: nothing to correlate.
		case "map":
			key, ok := e.listKey(t, n)
			if !ok {
				return
			}
			m := aligned
			if m == "" {
				m = e.alignedPrefix(b, key, nv, ov)
			}
			i, pr := e.v("i"), e.v("pr")
			fmt.Fprintf(b, "for %s := 0; %s < %s; %s++ {\nif _, ok := %s(&%s[%s]); ok {\n", i, i, m, i, key.fn, nv, i)
			e.walkValue(b, u.Elem(), n.Items, nv+"["+i+"]", ov+"["+i+"]", indexPath(path, i))
			b.WriteString("}\n}\n")
			fmt.Fprintf(b, "if %s < len(%s) && %s < len(%s) {\nfor _, %s := range %s.PairByKey(%s[%s:], %s[%s:], %s) {\n", m, nv, m, ov, pr, imm, nv, m, ov, m, key.fn)
			e.walkValue(b, u.Elem(), n.Items, fmt.Sprintf("%s[%s+%s.New]", nv, m, pr), fmt.Sprintf("%s[%s+%s.Old]", ov, m, pr), indexPath(path, m+"+"+pr+".New"))
			b.WriteString("}\n}\n")
		default:
			i := e.v("i")
			fmt.Fprintf(b, "for %s := 0; %s < min(len(%s), len(%s)); %s++ {\n", i, i, nv, ov, i)
			e.walkValue(b, u.Elem(), n.Items, nv+"["+i+"]", ov+"["+i+"]", indexPath(path, i))
			b.WriteString("}\n")
		}
	default:
		e.fail(n, t, "markers below a value of this type")
	}
}

// indexPath renders the path of index i below the path expression path:
// one concatenation for a property's item (w.ChildIndex), not two.
func indexPath(path, i string) string {
	if inner, ok := childArgs(path); ok {
		return "w.ChildIndex(" + inner + ", " + i + ")"
	}
	return "w.Index(" + path + ", " + i + ")"
}

// keyPath renders the path of map key k below the path expression path:
// one concatenation for a property's value (w.ChildKey), not two.
func keyPath(path, k string) string {
	if inner, ok := childArgs(path); ok {
		return "w.ChildKey(" + inner + ", " + k + ")"
	}
	return "w.Key(" + path + ", " + k + ")"
}

// childArgs returns the arguments of path if it is a call w.Child(p, name).
func childArgs(path string) (string, bool) {
	const call = "w.Child("
	if strings.HasPrefix(path, call) && strings.HasSuffix(path, ")") {
		return path[len(call) : len(path)-1], true
	}
	return "", false
}

// addr renders the address of addressable expression x: &x, or p for (*p).
func addr(x string) string {
	if strings.HasPrefix(x, "(*") && strings.HasSuffix(x, ")") && !strings.ContainsAny(x[2:len(x)-1], "()") {
		return x[2 : len(x)-1]
	}
	return "&" + x
}

func anyWalks(m map[string]*schema.Node) bool {
	for _, c := range m {
		if walks(c) {
			return true
		}
	}
	return false
}

func isStringKind(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}
