package validators

import (
	"bytes"
	"fmt"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/when"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Conditional immutability (+immutable:when) in the typed validators
// (docs/semantics.md, "Conditions in the typed validators"). The CRD
// generator lowers a conditional marker on property p into one root rule,
//
//	!(cond) || !has(<each object above p> in self) || … in oldSelf … || (p's constraint)
//
// and the generated code gives that rule's verdict on the two objects: the
// walk checks the nodes below p as if p were unmarked (the CEL lowering
// does the same); at the root, where every object above p is present in
// both objects, p's own constraint (its presence and value, or its keys)
// is checked alone, and only where it is violated is the condition
// evaluated — compiled here into Go over the typed values with CEL's
// semantics on their JSON. True: the violations of the unconditional form;
// false: nothing; an error: the API server's refusal of a rule that errs.
//
// The condition is parsed by runtime/when (the one definition of the
// subset; its refusals are IG048, at the user's text) and compiled from its
// syntax tree. What the typed code cannot give CEL's value exactly (a
// string of format date-time that is not a metav1.Time, a duration of
// format duration, an int-or-string ordered, null, == on list maps and
// objects, …) is refused with IG047, naming the construct: never compiled
// approximately.

// The IDs of the typed validators' findings on conditions.
const (
	// IDWhenUncompiled: a construct of a condition the typed validators
	// cannot compile into Go with CEL's semantics exactly.
	IDWhenUncompiled diag.ID = "IG047"
	// IDWhenSubset: a condition runtime/when's parser refuses (outside the
	// subset the enforcers evaluate, or not CEL).
	IDWhenSubset diag.ID = "IG048"
)

// whenChecks writes the function that checks the conditional markers of
// kind t (schema root) and returns its name, "" when there are none. Under
// validators:conditional=skip it reports each (IG052) and returns "".
func (e *emitter) whenChecks(t *types.Named, root *schema.Node) string {
	var conds []*schema.Node
	root.Walk(func(n *schema.Node) {
		if n.Edge == schema.Property && n.When() != "" && n.ThroughProperties() {
			conds = append(conds, n)
		}
	})
	if len(conds) == 0 {
		return ""
	}
	if e.skipConditional {
		for _, c := range conds {
			e.skip(c)
		}
		return ""
	}
	messages, refused := whenMessages(root)
	imm := e.pkg(immutablePkg)
	name := e.free("when"+t.Obj().Name(), "")
	b := &bytes.Buffer{}
	e.funcs = append(e.funcs, b)
	fmt.Fprintf(b, "// %s checks the conditional markers (+immutable:when) of %s: where\n// a marked field changed, its condition decides.\nfunc %s(w *%s.Walk, in, old *%s) {\n", name, t.Obj().Name(), name, imm, e.typeString(t))
	for _, p := range conds {
		if r, ok := refused[p]; ok {
			e.whenFail(p, IDWhenUncompiled, 0, "the CRD's CEL lowering refuses the marker: "+r)
			continue
		}
		e.whenCheck(b, t, root, p, messages[p])
	}
	b.WriteString("}\n\n")
	return name
}

// whenMessages lowers the markers of root as the crd generator does
// (schema.EmitCEL, on the model, which the validators generator owns for
// the run and reads no rules of) and returns the message of each
// conditional marker's root rule, the text of the API server's error when
// the condition errs; and the lowering's refusals of conditional markers.
func whenMessages(root *schema.Node) (map[*schema.Node]string, map[*schema.Node]string) {
	res := schema.EmitCEL(root)
	rules := root.Rules()
	messages := map[*schema.Node]string{}
	for _, em := range root.Emitted {
		if em.Reads != nil && em.Reads.When() != "" && em.Index < len(rules) {
			messages[em.Reads] = rules[em.Index].Message
		}
	}
	refused := map[*schema.Node]string{}
	for _, in := range res.Inexpressible {
		if in.Node.When() != "" {
			refused[in.Node] = in.Reason
		}
	}
	return messages, refused
}

// whenFail reports the condition of p refused (id), at column col of the
// condition (in characters; 0: the condition as a whole).
func (e *emitter) whenFail(p *schema.Node, id diag.ID, col int, msg string) {
	var o schema.Origin
	for _, x := range p.Origins {
		if x.When != "" {
			o = x
			break
		}
	}
	fix := "write the condition with the constructs the typed validators compile (docs/semantics.md, \"Conditions in the typed validators\"), or generate with validators:conditional=skip to leave this field to the CRD's CEL rule on the API server"
	if id == IDWhenSubset {
		fix = "write the condition in the subset every enforcer evaluates (docs/semantics.md, \"The condition subset\"), or generate with validators:conditional=skip to leave this field to the CRD's CEL rule on the API server"
	}
	e.diags = append(e.diags, diag.Diagnostic{
		ID:       id,
		Severity: diag.Error,
		Pos:      o.WhenCharPosition(col),
		Marker:   "+" + markers.WhenName,
		CRD:      e.crd,
		Version:  e.version,
		Path:     p.Path(),
		Message:  fmt.Sprintf("the typed validators cannot check %s under its condition `%s`: %s", p.Path(), o.When, msg),
		Fix:      fix,
	})
	e.failed[p] = true
}

// whenCheck writes the check of the conditional property p into the body
// of the kind's when function.
func (e *emitter) whenCheck(b *bytes.Buffer, t *types.Named, root, p *schema.Node, message string) {
	cond, ok := e.compileWhen(t, root, p)
	if !ok {
		return
	}
	imm := e.pkg(immutablePkg)
	var chain []*schema.Node
	for c := p; c.Parent != nil; c = c.Parent {
		chain = append([]*schema.Node{c}, chain...)
	}
	fmt.Fprintf(b, "// %s, while %s\n{\n", p.Path(), strings.ReplaceAll(p.When(), "\n", " "))
	var st types.Type = t
	nv, ov := "in", "old"
	closes := 1
	for _, a := range chain[:len(chain)-1] {
		s := structOf(st)
		f := e.fieldOf(s, a.Name)
		if s == nil || f == nil || special(st) {
			e.whenFail(p, IDWhenUncompiled, 0, fmt.Sprintf("the object %s above it is not a Go struct with a field %q", a.Parent.Path(), a.Name))
			return
		}
		next := f.typ
		ptr := false
		if pt, ok := types.Unalias(next).Underlying().(*types.Pointer); ok {
			next, ptr = pt.Elem(), true
			if !f.omitEmpty && !f.omitZero {
				e.whenFail(p, IDWhenUncompiled, 0, fmt.Sprintf("the object %s above it is a pointer without omitempty, null in its JSON when nil, which the lowered rule reads as an error", a.Path()))
				return
			}
		}
		if structOf(next) == nil || special(next) {
			e.whenFail(p, IDWhenUncompiled, 0, fmt.Sprintf("the object %s above it is not a Go struct", a.Path()))
			return
		}
		pin, pold := e.presence(f, nv, a), e.presence(f, ov, a)
		n1, o1 := e.v("n"), e.v("o")
		get := func(x string) string {
			if ptr {
				return f.access(x)
			}
			return "&" + f.access(x)
		}
		switch {
		case pin == "true" && pold == "true":
			b.WriteString("{\n")
		default:
			fmt.Fprintf(b, "if %s && %s {\n", pin, pold)
		}
		fmt.Fprintf(b, "%s, %s := %s, %s\n", n1, o1, get(nv), get(ov))
		closes++
		nv, ov, st = n1, o1, next
	}
	own := e.whenOwn(st, p)
	if own == "" {
		return
	}
	fmt.Fprintf(b, "var q %s.Walk\n%s(&q, %s, %s)\nif q.Found() {\n", imm, own, nv, ov)
	fmt.Fprintf(b, "if ok, err := %s(in, old); err != nil {\nif w.Violation() {\nw.Add(%s.WhenError(err, %s))\n}\n} else if ok {\n%s(w, %s, %s)\n}\nif w.Done() {\nreturn\n}\n}\n", cond, imm, strconv.Quote(message), own, nv, ov)
	b.WriteString(strings.Repeat("}\n", closes))
}

// fieldOf is the JSON property name of struct s, nil when it has none.
func (e *emitter) fieldOf(s *types.Struct, name string) *jsonField {
	if s == nil {
		return nil
	}
	fields, err := jsonFields(s, e.local)
	if err != nil {
		return nil
	}
	for _, f := range fields {
		if f.name == name {
			return f
		}
	}
	return nil
}

// whenOwn writes the check of p's own constraint (its presence and value,
// or its keys; the markers below it are the walk's) on the struct of Go
// type st that holds it: func(w *immutable.Walk, in, old *S), paths from
// the object's root.
func (e *emitter) whenOwn(st types.Type, p *schema.Node) string {
	f := e.fieldOf(structOf(st), p.Name)
	if f == nil {
		e.whenFail(p, IDWhenUncompiled, 0, fmt.Sprintf("no Go field of %s serializes as %q", e.typeString(st), p.Name))
		return ""
	}
	name, b, isNew := e.newFunc("whenOwn|"+p.Path()+"|"+e.typeString(st)+"|"+e.crd+"|"+e.version, "whenOwn"+e.typeName(st)+upper(p.Name))
	if !isNew {
		return name
	}
	var body bytes.Buffer
	e.property(&body, ownView(p), f, p.Name, strconv.Quote(p.Path()))
	fmt.Fprintf(b, "func %s(w *%s.Walk, in, old *%s) {\n", name, e.pkg(immutablePkg), e.typeString(st))
	b.Write(body.Bytes())
	b.WriteString("}\n\n")
	return name
}

// ownView is p with its own markers and none below: the constraint of its
// conditional rule.
func ownView(p *schema.Node) *schema.Node {
	v := *p
	v.Properties, v.Items, v.Values = strip(p.Properties), stripNode(p.Items), stripNode(p.Values)
	return &v
}

// unmarkedView is p without its own markers: what the walk checks of a
// conditional property (the markers below it hold on their own).
func unmarkedView(p *schema.Node) *schema.Node {
	v := *p
	v.Origins = nil
	return &v
}

func strip(props map[string]*schema.Node) map[string]*schema.Node {
	if props == nil {
		return nil
	}
	out := make(map[string]*schema.Node, len(props))
	for k, c := range props {
		out[k] = stripNode(c)
	}
	return out
}

func stripNode(n *schema.Node) *schema.Node {
	if n == nil {
		return nil
	}
	v := *n
	v.Origins = nil
	v.Properties, v.Items, v.Values = strip(n.Properties), stripNode(n.Items), stripNode(n.Values)
	return &v
}

// The compiler of a condition into Go.

// wkind is the CEL type of a compiled value.
type wkind int

const (
	wBool wkind = iota
	wInt
	wUint
	wDouble
	wString
	wTime   // a timestamp: time.Time
	wObject // an object with properties: a pointer to its Go struct
	wList   // the Go slice
	wMap    // the Go map (string keys)
	wLitList
	wDyn // an int-or-string: intstr.IntOrString, an int or a string by its JSON
)

var wkindNames = [...]string{"bool", "int", "uint", "double", "string", "timestamp", "object", "list", "map", "list", "int-or-string"}

// wtype is a compiled value's type: its CEL kind and, for objects, lists
// and maps, the Go type of its representation and its schema.
type wtype struct {
	kind wkind
	gt   types.Type
	node *schema.Node
	// meta is the root's metadata, of which CEL reads name and
	// generateName only.
	meta bool
}

func (t wtype) scalar() bool { return t.kind <= wTime }
func (t wtype) number() bool { return t.kind == wInt || t.kind == wUint || t.kind == wDouble }

// wval is a compiled value: Go expressions of its value (meaningful where
// the error is nil) and of its error ("nil" when it cannot fail).
type wval struct {
	t    wtype
	v, e string
	lits []wval
	// lit is set on a literal, whose v is a Go constant.
	lit bool
}

// refusal is a construct the compiler refuses, at its column.
type refusal struct {
	col int
	msg string
}

type scope struct {
	name string
	val  wval
	next *scope
}

func (s *scope) lookup(name string) (wval, bool) {
	for ; s != nil; s = s.next {
		if s.name == name {
			return s.val, true
		}
	}
	return wval{}, false
}

// whenCompiler compiles one condition; b receives the statements.
type whenCompiler struct {
	e       *emitter
	b       *bytes.Buffer
	refused *refusal
}

// compileWhen writes func(self, oldSelf *T) (bool, error), the condition
// of p with CEL's verdict on the JSON of the objects, and returns its
// name; false when it is refused (reported).
func (e *emitter) compileWhen(t *types.Named, root, p *schema.Node) (string, bool) {
	expr, err := when.Parse(p.When())
	if err != nil {
		col := 0
		if se, ok := err.(*when.SyntaxError); ok {
			col = se.Column
			err = fmt.Errorf("%s", se.Msg)
		}
		e.whenFail(p, IDWhenSubset, col, err.Error())
		return "", false
	}
	c := &whenCompiler{e: e, b: &bytes.Buffer{}}
	rt := wtype{kind: wObject, gt: types.NewPointer(t), node: root}
	env := &scope{name: "self", val: wval{t: rt, v: "self", e: "nil"}, next: &scope{name: "oldSelf", val: wval{t: rt, v: "oldSelf", e: "nil"}}}
	syn := expr.Syntax()
	v := c.compile(syn, env)
	if c.refused == nil && v.t.kind != wBool {
		c.refused = &refusal{col: syn.Column, msg: fmt.Sprintf("the condition must be a bool; it is a %s", wkindNames[v.t.kind])}
	}
	if c.refused != nil {
		e.whenFail(p, IDWhenUncompiled, c.refused.col, c.refused.msg)
		return "", false
	}
	name, b, isNew := e.newFunc("whenCond|"+p.Path()+"|"+e.crd+"|"+e.version+"|"+p.When(), "whenCond"+t.Obj().Name()+upper(p.Name))
	if !isNew {
		return name, true
	}
	fmt.Fprintf(b, "// %s is the condition of %s: %s\nfunc %s(self, oldSelf *%s) (bool, error) {\n", name, p.Path(), strings.ReplaceAll(p.When(), "\n", " "), name, e.typeString(t))
	b.Write(c.b.Bytes())
	fmt.Fprintf(b, "return %s, %s\n}\n\n", v.v, v.e)
	return name, true
}

func (c *whenCompiler) refuse(s *when.Syntax, format string, args ...any) wval {
	if c.refused == nil {
		c.refused = &refusal{col: s.Column, msg: fmt.Sprintf(format, args...)}
	}
	return wval{t: wtype{kind: wBool}, v: "false", e: "nil"}
}

func (c *whenCompiler) w(format string, args ...any) { fmt.Fprintf(c.b, format, args...) }

// goType renders the Go type of a value of type t.
func (c *whenCompiler) goType(t wtype) string {
	switch t.kind {
	case wBool:
		return "bool"
	case wInt:
		return "int64"
	case wUint:
		return "uint64"
	case wDouble:
		return "float64"
	case wString:
		return "string"
	case wTime:
		return c.e.pkg("time") + ".Time"
	}
	return c.e.typeString(t.gt)
}

// declare writes the variables of a value of type t and returns them: its
// error variable only where it can fail.
func (c *whenCompiler) declare(t wtype, fail bool) wval {
	v := c.e.v("v")
	c.w("var %s %s\n", v, c.goType(t))
	if !fail {
		return wval{t: t, v: v, e: "nil"}
	}
	e := c.e.v("e")
	c.w("var %s error\n", e)
	return wval{t: t, v: v, e: e}
}

// fails reports whether any of xs can be an error.
func fails(xs ...wval) bool {
	for _, x := range xs {
		if x.e != "nil" {
			return true
		}
	}
	return false
}

// guard renders `if x.e != nil { out.e = x.e } else ` for each operand that
// can fail, in order: CEL's strict operators return the first error.
func guard(out wval, xs ...wval) string {
	var b strings.Builder
	for _, x := range xs {
		if x.e != "nil" {
			fmt.Fprintf(&b, "if %s != nil {\n%s = %s\n} else ", x.e, out.e, x.e)
		}
	}
	return b.String()
}

func (c *whenCompiler) compile(s *when.Syntax, env *scope) wval {
	if c.refused != nil {
		return wval{t: wtype{kind: wBool}, v: "false", e: "nil"}
	}
	switch s.Op {
	case "literal":
		switch v := s.Literal.(type) {
		case bool:
			return wval{t: wtype{kind: wBool}, v: strconv.FormatBool(v), e: "nil", lit: true}
		case int64:
			return wval{t: wtype{kind: wInt}, v: fmt.Sprintf("int64(%d)", v), e: "nil", lit: true}
		case uint64:
			return wval{t: wtype{kind: wUint}, v: fmt.Sprintf("uint64(%d)", v), e: "nil", lit: true}
		case float64:
			return wval{t: wtype{kind: wDouble}, v: "float64(" + strconv.FormatFloat(v, 'g', -1, 64) + ")", e: "nil", lit: true}
		case string:
			return wval{t: wtype{kind: wString}, v: strconv.Quote(v), e: "nil", lit: true}
		}
		return c.refuse(s, "null: the typed validators read no nullable values")
	case "ident":
		v, ok := env.lookup(s.Name)
		if !ok {
			return c.refuse(s, "undeclared reference to %q", s.Name)
		}
		return v
	case "select", "has":
		return c.selectField(s, env)
	case "index":
		return c.index(s, env)
	case "list":
		var lits []wval
		for _, a := range s.Args {
			x := c.compile(a, env)
			if !x.t.scalar() {
				return c.refuse(a, "a list literal of %ss: the typed validators take list literals of scalars only, on the right of in", wkindNames[x.t.kind])
			}
			lits = append(lits, x)
		}
		return wval{t: wtype{kind: wLitList}, lits: lits, e: "nil"}
	case "!":
		x := c.compile(s.Args[0], env)
		if x.t.kind != wBool {
			return c.refuse(s, "! of a %s does not type-check", wkindNames[x.t.kind])
		}
		out := c.declare(wtype{kind: wBool}, fails(x))
		c.w("%s{\n%s = !%s\n}\n", guard(out, x), out.v, x.v)
		return out
	case "&&", "||":
		return c.logic(s, env)
	case "?:":
		return c.ternary(s, env)
	case "==", "!=", "<", "<=", ">", ">=":
		return c.relation(s, env)
	case "in":
		return c.in(s, env)
	case "size":
		x := c.compile(s.Args[0], env)
		out := c.declare(wtype{kind: wInt}, fails(x))
		switch x.t.kind {
		case wString:
			c.w("%s{\n%s = %s.RuneCount(%s)\n}\n", guard(out, x), out.v, c.e.pkg(immutablePkg), x.v)
		case wList, wMap:
			c.w("%s{\n%s = int64(len(%s))\n}\n", guard(out, x), out.v, x.v)
		default:
			return c.refuse(s, "size() of a %s", wkindNames[x.t.kind])
		}
		return out
	case "startsWith", "endsWith", "contains":
		x := c.compile(s.Args[0], env)
		a := c.compile(s.Args[1], env)
		if x.t.kind != wString || a.t.kind != wString {
			return c.refuse(s, "%s() on a %s with a %s does not type-check", s.Op, wkindNames[x.t.kind], wkindNames[a.t.kind])
		}
		fn := map[string]string{"startsWith": "HasPrefix", "endsWith": "HasSuffix", "contains": "Contains"}[s.Op]
		out := c.declare(wtype{kind: wBool}, fails(x, a))
		c.w("%s{\n%s = %s.%s(%s, %s)\n}\n", guard(out, x, a), out.v, c.e.pkg("strings"), fn, x.v, a.v)
		return out
	case "exists", "all", "exists_one":
		return c.macro(s, env)
	}
	return c.refuse(s, "the construct %s", s.Op)
}

// typeOf is the CEL type of a value of Go type gt with schema n, as the
// API server's CEL reads its JSON, or the reason it is refused.
func (c *whenCompiler) typeOf(gt types.Type, n *schema.Node) (wtype, string) {
	gt = types.Unalias(gt)
	if pt, ok := gt.Underlying().(*types.Pointer); ok {
		if _, ok := types.Unalias(pt.Elem()).Underlying().(*types.Pointer); ok {
			return wtype{}, "a pointer to a pointer"
		}
		// The pointee's value where not nil (nil is JSON null).
		return c.typeOf(pt.Elem(), n)
	}
	switch {
	case n == nil:
		return wtype{}, "a value the schema does not describe"
	case isMeta(gt, "Time") && n.Type() == "string" && n.Format() == "date-time" && !n.Nullable():
		return wtype{kind: wTime}, ""
	case isMeta(gt, "Duration") && n.Type() == "string" && n.Format() == "" && !n.Nullable():
		// Its JSON is the duration's String form, a plain string to CEL.
		return wtype{kind: wString}, ""
	case n.Nullable():
		return wtype{}, "a nullable value (CEL null)"
	case isIntOrString(gt) && n.ExtensionTrue(extension.IntOrString):
		return wtype{kind: wDyn, gt: gt}, ""
	case n.ExtensionTrue(extension.IntOrString):
		return wtype{}, "an int-or-string value that is not an intstr.IntOrString"
	case n.ExtensionTrue(extension.PreserveUnknownFields), n.EmbeddedResource():
		return wtype{}, "a value with x-kubernetes-preserve-unknown-fields or an embedded resource"
	case n.Type() == "string" && (n.Format() == "date-time" || n.Format() == "date"):
		return wtype{}, "a timestamp (a string of format " + n.Format() + ")"
	case n.Type() == "string" && n.Format() == "duration":
		return wtype{}, "a duration (a string of format duration)"
	case n.Type() == "string" && n.Format() == "byte":
		return wtype{}, "bytes (a string of format byte)"
	case special(gt):
		return wtype{}, fmt.Sprintf("a value of Go type %s, whose JSON is its own MarshalJSON's", c.e.typeString(gt))
	}
	switch u := gt.Underlying().(type) {
	case *types.Basic:
		want := ""
		var k wkind
		switch {
		case u.Info()&types.IsString != 0:
			want, k = "string", wString
		case u.Info()&types.IsBoolean != 0:
			want, k = "boolean", wBool
		case u.Kind() == types.Float64:
			want, k = "number", wDouble
		case u.Info()&types.IsInteger != 0 && u.Kind() != types.Uint && u.Kind() != types.Uint64 && u.Kind() != types.Uintptr:
			want, k = "integer", wInt
		default:
			return wtype{}, fmt.Sprintf("a value of Go type %s (its JSON may not be the CEL value's)", c.e.typeString(gt))
		}
		if n.Type() != want {
			return wtype{}, fmt.Sprintf("a Go %s whose schema is of type %q", c.e.typeString(gt), n.Type())
		}
		return wtype{kind: k}, ""
	case *types.Struct:
		if n.Type() != "object" || n.Properties == nil {
			return wtype{}, "a Go struct whose schema is not an object with properties"
		}
		return wtype{kind: wObject, gt: types.NewPointer(gt), node: n}, ""
	case *types.Slice:
		if !n.IsList() || n.Items == nil {
			return wtype{}, "a Go slice whose schema is not a list"
		}
		return wtype{kind: wList, gt: gt, node: n}, ""
	case *types.Map:
		if !isStringKind(u.Key()) || n.Values == nil {
			return wtype{}, "a Go map whose keys are not strings or whose schema is not a map"
		}
		return wtype{kind: wMap, gt: gt, node: n}, ""
	}
	return wtype{}, fmt.Sprintf("a value of Go type %s", c.e.typeString(gt))
}

// assign writes the statements that set out (of type t, from typeOf) to the
// value of Go expression g (addressable, of Go type gt), or its error.
func (c *whenCompiler) assign(out wval, g string, gt types.Type) {
	c.assignValue(out, g, gt, false)
}

// assignValue is assign; present says g is known not to be null (a
// property read where present: a null one is absent).
func (c *whenCompiler) assignValue(out wval, g string, gt types.Type, present bool) {
	gt = types.Unalias(gt)
	switch {
	case isIntOrString(gt):
		c.w("%s = %s\n", out.v, g)
		return
	case isMeta(gt, "Time"):
		c.w("%s, %s = %s.TimeValue(%s)\n", out.v, out.e, c.e.pkg(immutablePkg), g)
		return
	case isMeta(gt, "Duration"):
		c.w("%s = %s.Duration.String()\n", out.v, g)
		return
	}
	switch u := gt.Underlying().(type) {
	case *types.Pointer:
		if !present {
			c.w("if %s == nil {\n%s = %s.ErrNull\n} else {\n", g, out.e, c.e.pkg(immutablePkg))
		}
		if out.t.kind == wObject {
			c.w("%s = %s\n", out.v, g)
		} else {
			c.assignValue(out, "(*"+g+")", u.Elem(), present)
		}
		if !present {
			c.w("}\n")
		}
	case *types.Slice, *types.Map:
		if present {
			c.w("%s = %s\n", out.v, g)
			return
		}
		c.w("if %s == nil {\n%s = %s.ErrNull\n} else {\n%s = %s\n}\n", g, out.e, c.e.pkg(immutablePkg), out.v, g)
	case *types.Struct:
		c.w("%s = &%s\n", out.v, g)
	default:
		c.w("%s = %s(%s)\n", out.v, c.goType(out.t), g)
	}
}

// notNull renders the test that field f of the struct at x, present in
// its JSON, is not null there; "" where it never is (omitempty and
// omitzero leave a nil pointer, slice or map out).
func notNull(f *jsonField, x string) string {
	g, gt := f.access(x), types.Unalias(f.typ)
	omit := f.omitEmpty || f.omitZero
	switch u := gt.Underlying().(type) {
	case *types.Pointer:
		switch {
		case isMeta(types.Unalias(u.Elem()), "Time") && omit:
			return "!" + g + ".IsZero()"
		case isMeta(types.Unalias(u.Elem()), "Time"):
			return g + " != nil && !" + g + ".IsZero()"
		case omit:
			return ""
		}
		return g + " != nil"
	case *types.Slice, *types.Map:
		if omit {
			return ""
		}
		return g + " != nil"
	}
	if isMeta(gt, "Time") {
		return "!" + g + ".IsZero()"
	}
	return ""
}

// derefType is the pointee of a pointer type, else t.
func derefType(t types.Type) types.Type {
	if p, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// assignFails reports whether assign can set an error for a value of Go
// type gt: JSON null, or a time its JSON cannot hold.
func assignFails(gt types.Type) bool {
	return canFail(gt) || isMeta(types.Unalias(gt), "Time")
}

// canFail reports whether a value of Go type gt can be JSON null.
func canFail(gt types.Type) bool {
	switch types.Unalias(gt).Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map:
		return true
	}
	return false
}

// selectField compiles x.f and has(x.f).
func (c *whenCompiler) selectField(s *when.Syntax, env *scope) wval {
	x := c.compile(s.Args[0], env)
	if c.refused != nil {
		return x
	}
	imm := c.e.pkg(immutablePkg)
	has := s.Op == "has"
	switch x.t.kind {
	case wMap:
		mt := types.Unalias(x.t.gt).Underlying().(*types.Map)
		key := fmt.Sprintf("%s(%q)", c.e.typeString(mt.Key()), s.Name)
		if has {
			out := c.declare(wtype{kind: wBool}, fails(x))
			c.w("%s{\n_, %s = %s[%s]\n}\n", guard(out, x), out.v, x.v, key)
			return out
		}
		vt, why := c.typeOf(mt.Elem(), x.t.node.Values)
		if why != "" {
			return c.refuse(s, "%s, the values of %s", why, x.t.node.Path())
		}
		out := c.declare(vt, true)
		mv := c.e.v("mv")
		c.w("%s{\nif %s, ok := %s[%s]; !ok {\n%s = %s.NoSuchKey(%q)\n} else {\n", guard(out, x), mv, x.v, key, out.e, imm, s.Name)
		c.assign(out, mv, mt.Elem())
		c.w("}\n}\n")
		return out
	case wObject:
	default:
		return c.refuse(s, "field selection .%s on a %s does not type-check", s.Name, wkindNames[x.t.kind])
	}
	if x.t.meta && s.Name != "name" && s.Name != "generateName" {
		return c.refuse(s, "metadata.%s: CEL reads only name and generateName of the object's metadata", s.Name)
	}
	if strings.Contains(s.Name, "__") {
		return c.refuse(s, "the escaped property name %s", s.Name)
	}
	st := types.Unalias(x.t.gt).Underlying().(*types.Pointer).Elem()
	node := x.t.node.Properties[s.Name]
	if node == nil && !x.t.meta {
		return c.refuse(s, "%s has no property %q", x.t.node.Path(), s.Name)
	}
	f := c.e.fieldOf(structOf(st), s.Name)
	if f == nil {
		return c.refuse(s, "no Go field of %s serializes as %q", c.e.typeString(st), s.Name)
	}
	presence := c.e.presence(f, x.v, node)
	if nn := notNull(f, x.v); nn != "" {
		// The API server's CEL reads a null property of an object as
		// absent.
		if presence == "true" {
			presence = nn
		} else {
			presence = "(" + presence + " && " + nn + ")"
		}
	}
	if has {
		out := c.declare(wtype{kind: wBool}, fails(x))
		if presence == "true" {
			// Always in the JSON (a struct without omitzero): x is read
			// for its error only.
			c.w("%s{\n_ = %s\n%s = true\n}\n", guard(out, x), x.v, out.v)
			return out
		}
		c.w("%s{\n%s = %s\n}\n", guard(out, x), out.v, presence)
		return out
	}
	var ft wtype
	if x.t.meta {
		ft = wtype{kind: wString}
		if !isStringKind(f.typ) {
			return c.refuse(s, "metadata.%s is not a string", s.Name)
		}
	} else if x.t.node.Parent == nil && s.Name == "metadata" {
		ft = wtype{kind: wObject, gt: types.NewPointer(types.Unalias(f.typ)), node: node, meta: true}
		if structOf(f.typ) == nil {
			return c.refuse(s, "metadata is not a Go struct")
		}
	} else {
		var why string
		if ft, why = c.typeOf(f.typ, node); why != "" {
			return c.refuse(s, "%s: %s", node.Path(), why)
		}
	}
	out := c.declare(ft, fails(x) || presence != "true" || (!ft.meta && isMeta(types.Unalias(derefType(f.typ)), "Time")))
	if presence == "true" {
		c.w("%s{\n", guard(out, x))
	} else {
		c.w("%sif %s {\n%s = %s.NoSuchKey(%q)\n} else {\n", guard(out, x), negate(presence), out.e, imm, s.Name)
	}
	if ft.meta {
		c.w("%s = &%s\n", out.v, f.access(x.v))
	} else {
		c.assignValue(out, f.access(x.v), f.typ, true)
	}
	c.w("}\n")
	return out
}

// index compiles x[i] on a list (by int) or a map (by string).
func (c *whenCompiler) index(s *when.Syntax, env *scope) wval {
	x := c.compile(s.Args[0], env)
	i := c.compile(s.Args[1], env)
	if c.refused != nil {
		return x
	}
	imm := c.e.pkg(immutablePkg)
	switch {
	case x.t.kind == wList && i.t.kind == wInt:
		et := types.Unalias(x.t.gt).Underlying().(*types.Slice).Elem()
		vt, why := c.typeOf(et, x.t.node.Items)
		if why != "" {
			return c.refuse(s, "%s, the items of %s", why, x.t.node.Path())
		}
		out := c.declare(vt, true)
		c.w("%sif %s < 0 || %s >= int64(len(%s)) {\n%s = %s.IndexOutOfBounds(%s)\n} else {\n", guard(out, x, i), i.v, i.v, x.v, out.e, imm, i.v)
		c.assign(out, x.v+"["+i.v+"]", et)
		c.w("}\n")
		return out
	case x.t.kind == wMap && i.t.kind == wString:
		mt := types.Unalias(x.t.gt).Underlying().(*types.Map)
		vt, why := c.typeOf(mt.Elem(), x.t.node.Values)
		if why != "" {
			return c.refuse(s, "%s, the values of %s", why, x.t.node.Path())
		}
		out := c.declare(vt, true)
		mv := c.e.v("mv")
		c.w("%s{\nif %s, ok := %s[%s(%s)]; !ok {\n%s = %s.NoSuchKey(%s)\n} else {\n", guard(out, x, i), mv, x.v, c.e.typeString(mt.Key()), i.v, out.e, imm, i.v)
		c.assign(out, mv, mt.Elem())
		c.w("}\n}\n")
		return out
	}
	return c.refuse(s, "indexing a %s by a %s", wkindNames[x.t.kind], wkindNames[i.t.kind])
}

// logic compiles && and ||: a term that decides (false for &&, true for
// ||) decides whatever the others are, errors included; else the first
// error; else the other value. Terms after a deciding one are not
// evaluated (they cannot change the result).
func (c *whenCompiler) logic(s *when.Syntax, env *scope) wval {
	decide := s.Op == "||"
	out := c.declare(wtype{kind: wBool}, true)
	not := "!"
	if decide {
		not = ""
	}
	for k, a := range s.Args {
		x := c.compile(a, env)
		if c.refused != nil {
			return out
		}
		if x.t.kind != wBool {
			return c.refuse(a, "%s of a %s does not type-check", s.Op, wkindNames[x.t.kind])
		}
		if x.e == "nil" {
			c.w("if %s%s {\n%s, %s = %t, nil\n} else {\n", not, x.v, out.v, out.e, decide)
		} else {
			c.w("if %s == nil && %s%s {\n%s, %s = %t, nil\n} else {\n", x.e, not, x.v, out.v, out.e, decide)
			if k == 0 {
				c.w("%s = %s\n", out.e, x.e)
			} else {
				c.w("if %s == nil {\n%s = %s\n}\n", out.e, out.e, x.e)
			}
		}
	}
	c.w("if %s == nil {\n%s = %t\n}\n", out.e, out.v, !decide)
	c.w("%s", strings.Repeat("}\n", len(s.Args)))
	return out
}

// ternary compiles c ? a : b, of scalars of one type.
func (c *whenCompiler) ternary(s *when.Syntax, env *scope) wval {
	cond := c.compile(s.Args[0], env)
	if c.refused != nil {
		return cond
	}
	if cond.t.kind != wBool {
		return c.refuse(s, "?: on a %s does not type-check", wkindNames[cond.t.kind])
	}
	// The branches' types are known only once compiled: compile each into
	// its own buffer, then write them in place.
	outer := c.b
	var bufs [2]bytes.Buffer
	var vals [2]wval
	for k := range 2 {
		c.b = &bufs[k]
		vals[k] = c.compile(s.Args[1+k], env)
	}
	c.b = outer
	if c.refused != nil {
		return cond
	}
	if vals[0].t.kind != vals[1].t.kind || !vals[0].t.scalar() {
		return c.refuse(s, "?: with branches of type %s and %s: the typed validators take scalars of one type", wkindNames[vals[0].t.kind], wkindNames[vals[1].t.kind])
	}
	out := c.declare(vals[0].t, fails(cond, vals[0], vals[1]))
	set := func(x wval) string {
		if out.e == "nil" {
			return fmt.Sprintf("%s = %s\n", out.v, x.v)
		}
		return fmt.Sprintf("%s, %s = %s, %s\n", out.v, out.e, x.v, x.e)
	}
	c.w("%sif %s {\n", guard(out, cond), cond.v)
	c.b.Write(bufs[0].Bytes())
	c.w("%s} else {\n", set(vals[0]))
	c.b.Write(bufs[1].Bytes())
	c.w("%s}\n", set(vals[1]))
	return out
}

// operand returns x, a literal held in a variable: the generated code
// never compares constants (go vet and staticcheck flag such code).
func (c *whenCompiler) operand(x wval) wval {
	if !x.lit {
		return x
	}
	v := c.e.v("l")
	c.w("%s := %s\n", v, x.v)
	x.v, x.lit = v, false
	return x
}

// cmp renders the comparison of scalars l and r as an int (-1, 0, 1), or
// "" where the result is Go's own operator on the values (same type).
func (c *whenCompiler) cmp(l, r wval) (string, bool) {
	imm := c.e.pkg(immutablePkg)
	if l.t.kind == r.t.kind {
		switch l.t.kind {
		case wBool:
			return fmt.Sprintf("%s.CompareBools(%s, %s)", imm, l.v, r.v), true
		case wTime:
			return fmt.Sprintf("%s.CompareTimes(%s, %s)", imm, l.v, r.v), true
		}
		return "", true
	}
	pair := func(fn, a, b string, neg bool) (string, bool) {
		if neg {
			return fmt.Sprintf("-%s.%s(%s, %s)", imm, fn, a, b), true
		}
		return fmt.Sprintf("%s.%s(%s, %s)", imm, fn, a, b), true
	}
	switch [2]wkind{l.t.kind, r.t.kind} {
	case [2]wkind{wInt, wUint}:
		return pair("CompareIntUint", l.v, r.v, false)
	case [2]wkind{wUint, wInt}:
		return pair("CompareIntUint", r.v, l.v, true)
	case [2]wkind{wInt, wDouble}:
		return pair("CompareIntDouble", l.v, r.v, false)
	case [2]wkind{wDouble, wInt}:
		return pair("CompareIntDouble", r.v, l.v, true)
	case [2]wkind{wUint, wDouble}:
		return pair("CompareUintDouble", l.v, r.v, false)
	case [2]wkind{wDouble, wUint}:
		return pair("CompareUintDouble", r.v, l.v, true)
	}
	return "", false
}

// equal renders l == r of scalars, as a Go bool expression.
func (c *whenCompiler) equal(l, r wval) (string, bool) {
	if l.t.kind == wDyn || r.t.kind == wDyn {
		return c.dynEqual(l, r)
	}
	if l.t.kind == wTime && r.t.kind == wTime {
		return l.v + ".Equal(" + r.v + ")", true
	}
	if l.t.kind == r.t.kind && l.t.scalar() {
		return l.v + " == " + r.v, true
	}
	if l.t.number() && r.t.number() {
		x, _ := c.cmp(l, r)
		return x + " == 0", true
	}
	return "", false
}

func (c *whenCompiler) relation(s *when.Syntax, env *scope) wval {
	l := c.compile(s.Args[0], env)
	r := c.compile(s.Args[1], env)
	if c.refused != nil {
		return l
	}
	if l.lit && r.lit {
		l = c.operand(l)
	}
	if (s.Op == "==" || s.Op == "!=") && (l.t.kind == wList || l.t.kind == wMap) && r.t.kind == l.t.kind {
		return c.collectionEqual(s, l, r)
	}
	if l.t.kind == wDyn || r.t.kind == wDyn {
		if s.Op != "==" && s.Op != "!=" {
			return c.refuse(s, "%s on an int-or-string (an error where its JSON is not of the other side's type)", s.Op)
		}
		eq, ok := c.equal(l, r)
		if !ok {
			return c.refuse(s, "%s on a %s and a %s", s.Op, wkindNames[l.t.kind], wkindNames[r.t.kind])
		}
		if s.Op == "!=" {
			eq = "!(" + eq + ")"
		}
		out := c.declare(wtype{kind: wBool}, fails(l, r))
		c.w("%s{\n%s = %s\n}\n", guard(out, l, r), out.v, eq)
		return out
	}
	if !l.t.scalar() || !r.t.scalar() {
		if s.Op == "==" || s.Op == "!=" {
			return c.refuse(s, "%s on a %s and a %s: the typed validators compare scalars only (compare the fields inside)", s.Op, wkindNames[l.t.kind], wkindNames[r.t.kind])
		}
		return c.refuse(s, "%s on a %s and a %s does not type-check", s.Op, wkindNames[l.t.kind], wkindNames[r.t.kind])
	}
	var expr string
	switch s.Op {
	case "==", "!=":
		eq, ok := c.equal(l, r)
		if !ok {
			return c.refuse(s, "%s on a %s and a %s does not type-check", s.Op, wkindNames[l.t.kind], wkindNames[r.t.kind])
		}
		expr = eq
		if s.Op == "!=" {
			expr = "!(" + eq + ")"
		}
	default:
		x, ok := c.cmp(l, r)
		if !ok {
			return c.refuse(s, "%s on a %s and a %s does not type-check", s.Op, wkindNames[l.t.kind], wkindNames[r.t.kind])
		}
		if x == "" {
			// Go's order of same-typed values is CEL's (doubles from
			// JSON and literals are never NaN).
			expr = l.v + " " + s.Op + " " + r.v
		} else {
			expr = x + " " + s.Op + " 0"
		}
	}
	out := c.declare(wtype{kind: wBool}, fails(l, r))
	c.w("%s{\n%s = %s\n}\n", guard(out, l, r), out.v, expr)
	return out
}

// in compiles x in list (a literal or a list of scalars) and x in map.
func (c *whenCompiler) in(s *when.Syntax, env *scope) wval {
	l := c.compile(s.Args[0], env)
	r := c.compile(s.Args[1], env)
	if c.refused != nil {
		return l
	}
	if !l.t.scalar() && !(l.t.kind == wDyn && r.t.kind == wLitList) {
		return c.refuse(s, "in with a %s on the left: the typed validators take scalars (an int-or-string: in a list literal)", wkindNames[l.t.kind])
	}
	switch r.t.kind {
	case wLitList:
		l = c.operand(l)
		var terms []string
		for _, x := range r.lits {
			eq, ok := c.equal(l, x)
			if !ok {
				return c.refuse(s, "in: a %s against a list literal of %ss does not type-check", wkindNames[l.t.kind], wkindNames[x.t.kind])
			}
			if !slices.Contains(terms, "("+eq+")") {
				terms = append(terms, "("+eq+")")
			}
		}
		if len(terms) == 0 {
			terms = []string{"false"}
		}
		out := c.declare(wtype{kind: wBool}, fails(append([]wval{l}, r.lits...)...))
		c.w("%s{\n%s = %s\n}\n", guard(out, append([]wval{l}, r.lits...)...), out.v, strings.Join(terms, " || "))
		return out
	case wMap:
		if l.t.kind != wString {
			return c.refuse(s, "in: a %s as a map key does not type-check", wkindNames[l.t.kind])
		}
		mt := types.Unalias(r.t.gt).Underlying().(*types.Map)
		out := c.declare(wtype{kind: wBool}, fails(l, r) || assignFails(mt.Elem()))
		mv := c.e.v("mv")
		c.w("%s{\nif %s, ok := %s[%s(%s)]; ok {\n", guard(out, l, r), mv, r.v, c.e.typeString(mt.Key()), l.v)
		if assignFails(mt.Elem()) {
			// A value that is JSON null is CEL's error.
			vt, why := c.typeOf(mt.Elem(), r.t.node.Values)
			if why != "" {
				return c.refuse(s, "%s, the values of %s", why, r.t.node.Path())
			}
			x := c.declare(vt, true)
			c.assign(x, mv, mt.Elem())
			c.w("if %s != nil {\n%s = %s\n} else {\n%s = true\n}\n", x.e, out.e, x.e, out.v)
			c.w("_ = %s\n", x.v)
		} else {
			c.w("_ = %s\n%s = true\n", mv, out.v)
		}
		c.w("}\n}\n")
		return out
	case wList:
		et := types.Unalias(r.t.gt).Underlying().(*types.Slice).Elem()
		vt, why := c.typeOf(et, r.t.node.Items)
		if why != "" {
			return c.refuse(s, "%s, the items of %s", why, r.t.node.Path())
		}
		if !vt.scalar() {
			return c.refuse(s, "in on a list of %ss: the typed validators take lists of scalars", wkindNames[vt.kind])
		}
		out := c.declare(wtype{kind: wBool}, fails(l, r) || assignFails(et))
		i := c.e.v("i")
		c.w("%s{\n%s = false\nfor %s := range %s {\n", guard(out, l, r), out.v, i, r.v)
		x := c.declare(vt, assignFails(et))
		c.assign(x, r.v+"["+i+"]", et)
		eq, ok := c.equal(x, l)
		if !ok {
			return c.refuse(s, "in: a %s in a list of %ss does not type-check", wkindNames[l.t.kind], wkindNames[vt.kind])
		}
		found := out.v + " = true"
		if assignFails(et) {
			c.w("if %s != nil {\nif %s == nil {\n%s = %s\n}\ncontinue\n}\n", x.e, out.e, out.e, x.e)
			found = fmt.Sprintf("%s, %s = true, nil", out.v, out.e)
		}
		c.w("if %s {\n%s\nbreak\n}\n}\n}\n", eq, found)
		return out
	}
	return c.refuse(s, "in on a %s", wkindNames[r.t.kind])
}

// macro compiles exists, all and exists_one over a list's items or a
// map's keys.
func (c *whenCompiler) macro(s *when.Syntax, env *scope) wval {
	r := c.compile(s.Args[0], env)
	if c.refused != nil {
		return r
	}
	out := c.declare(wtype{kind: wBool}, true)
	var elem wval
	switch r.t.kind {
	case wList:
		et := types.Unalias(r.t.gt).Underlying().(*types.Slice).Elem()
		vt, why := c.typeOf(et, r.t.node.Items)
		if why != "" {
			return c.refuse(s, "%s, the items of %s", why, r.t.node.Path())
		}
		i := c.e.v("i")
		c.w("%s{\n", guard(out, r))
		if s.Op == "exists_one" {
			c.w("count := 0\n")
		} else {
			c.w("found := false\n")
		}
		c.w("for %s := range %s {\n", i, r.v)
		elem = c.declare(vt, assignFails(et))
		c.assign(elem, r.v+"["+i+"]", et)
		if assignFails(et) {
			c.w("_, _ = %s, %s\n", elem.v, elem.e)
		} else {
			c.w("_ = %s\n", elem.v)
		}
	case wMap:
		k := c.e.v("k")
		c.w("%s{\n", guard(out, r))
		if s.Op == "exists_one" {
			c.w("count := 0\n")
		} else {
			c.w("found := false\n")
		}
		c.w("for %s := range %s {\n_ = %s\n", k, r.v, k)
		elem = wval{t: wtype{kind: wString}, v: "string(" + k + ")", e: "nil"}
	default:
		return c.refuse(s, "%s() over a %s", s.Op, wkindNames[r.t.kind])
	}
	body := c.compile(s.Args[1], &scope{name: s.Name, val: elem, next: env})
	if c.refused != nil {
		return out
	}
	if body.t.kind != wBool {
		return c.refuse(s.Args[1], "the predicate of %s() must be a bool; it is a %s", s.Op, wkindNames[body.t.kind])
	}
	switch s.Op {
	case "exists", "all":
		not := ""
		if s.Op == "all" {
			not = "!"
		}
		if body.e == "nil" {
			c.w("if %s%s {\nfound = true\nbreak\n}\n", not, body.v)
		} else {
			c.w("if %s == nil && %s%s {\nfound = true\nbreak\n}\nif %s != nil && %s == nil {\n%s = %s\n}\n", body.e, not, body.v, body.e, out.e, out.e, body.e)
		}
		c.w("}\n")
		c.w("if found {\n%s, %s = %t, nil\n} else if %s == nil {\n%s = %t\n}\n}\n", out.v, out.e, s.Op == "exists", out.e, out.v, s.Op == "all")
	default:
		if body.e == "nil" {
			c.w("if %s {\ncount++\n}\n", body.v)
		} else {
			c.w("if %s != nil {\n%s = %s\n} else if %s {\ncount++\n}\n", body.e, out.e, body.e, body.v)
		}
		c.w("}\nif %s == nil {\n%s = count == 1\n}\n}\n", out.e, out.v)
	}
	return out
}

// collectionEqual compiles == and != on two lists or two maps of scalars
// of one Go type: atomic lists item by item in order, sets as CEL compares
// them (the same size, and the same distinct items), maps by key.
func (c *whenCompiler) collectionEqual(s *when.Syntax, l, r wval) wval {
	if !types.Identical(l.t.gt, r.t.gt) {
		return c.refuse(s, "%s on two %ss of different Go types (%s, %s)", s.Op, wkindNames[l.t.kind], c.e.typeString(l.t.gt), c.e.typeString(r.t.gt))
	}
	imm := c.e.pkg(immutablePkg)
	var elem types.Type
	var node *schema.Node
	var fn string
	switch u := types.Unalias(l.t.gt).Underlying().(type) {
	case *types.Slice:
		elem, node = u.Elem(), l.t.node.Items
		if l.t.node.ListType() != r.t.node.ListType() {
			return c.refuse(s, "%s on a list of type %q and one of type %q (CEL compares by the left one's type)", s.Op, l.t.node.ListType(), r.t.node.ListType())
		}
		switch l.t.node.ListType() {
		case "set":
			fn = imm + ".SameSet"
		case "map":
			return c.refuse(s, "%s on list maps (CEL compares them ignoring order, by key)", s.Op)
		default:
			fn = c.e.pkg("slices") + ".Equal"
		}
	case *types.Map:
		elem, node, fn = u.Elem(), l.t.node.Values, c.e.pkg("maps")+".Equal"
	}
	et, why := c.typeOf(elem, node)
	if why != "" || canFail(elem) || !et.scalar() || et.kind == wTime || et.kind == wDouble || isMeta(types.Unalias(elem), "Duration") {
		return c.refuse(s, "%s on %ss whose items are not strings, ints or bools held as such in Go", s.Op, wkindNames[l.t.kind])
	}
	out := c.declare(wtype{kind: wBool}, fails(l, r))
	not := ""
	if s.Op == "!=" {
		not = "!"
	}
	c.w("%s{\n%s = %s%s(%s, %s)\n}\n", guard(out, l, r), out.v, not, fn, l.v, r.v)
	return out
}

// isMeta reports whether t is the type name of package metav1.
func isMeta(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "k8s.io/apimachinery/pkg/apis/meta/v1"
}

// negate renders the negation of the Go boolean expression x: without a
// double negation where x is one negated operand (staticcheck's SA4013).
func negate(x string) string {
	if strings.HasPrefix(x, "!") && !strings.ContainsAny(x, " (") {
		return x[1:]
	}
	if strings.HasPrefix(x, "!") && !strings.Contains(x, " ") && strings.HasSuffix(x, ")") && strings.Count(x, "(") == 1 {
		return x[1:]
	}
	return "!(" + x + ")"
}

// dynEqual renders CEL's == of an int-or-string (its value is an int or a
// string by its JSON) and an int, uint, double, string or another
// int-or-string: heterogeneous equality, false across types.
func (c *whenCompiler) dynEqual(l, r wval) (string, bool) {
	d, o := l, r
	if d.t.kind != wDyn {
		d, o = r, l
	}
	ip := c.e.pkg("k8s.io/apimachinery/pkg/util/intstr")
	imm := c.e.pkg(immutablePkg)
	isInt := fmt.Sprintf("%s.Type == %s.Int", d.v, ip)
	switch o.t.kind {
	case wDyn:
		a, b := c.operand(d), c.operand(o)
		return fmt.Sprintf("%s.SameIntOrString(&%s, &%s)", imm, a.v, b.v), true
	case wInt:
		return fmt.Sprintf("(%s && int64(%s.IntVal) == %s)", isInt, d.v, o.v), true
	case wUint:
		return fmt.Sprintf("(%s && %s.CompareIntUint(int64(%s.IntVal), %s) == 0)", isInt, imm, d.v, o.v), true
	case wDouble:
		return fmt.Sprintf("(%s && %s.CompareIntDouble(int64(%s.IntVal), %s) == 0)", isInt, imm, d.v, o.v), true
	case wString:
		return fmt.Sprintf("(%s.Type == %s.String && %s.StrVal == %s)", d.v, ip, d.v, o.v), true
	}
	return "", false
}

// isIntOrString reports whether t is intstr.IntOrString.
func isIntOrString(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "IntOrString" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "k8s.io/apimachinery/pkg/util/intstr"
}
