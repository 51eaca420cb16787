package validators

import (
	"bytes"
	"fmt"
	"go/types"

	"github.com/immutable-gen/immutable-gen/schema"
)

// knownTypes are the types with their own JSON encoding that package
// immutable compares as their JSON compares (Same<name>), by package path
// and type name.
var knownTypes = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "Time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "MicroTime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "Duration",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "Quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "IntOrString",
}

// known returns the name of t in knownTypes, or "".
func known(t types.Type) string {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return knownTypes[n.Obj().Pkg().Path()+"."+n.Obj().Name()]
}

// equal renders a boolean expression: a and b (addressable expressions of
// type t) are equal as JSON values at node n (nil: no schema), as the
// runtime compares them: null equals only null, lists in order except
// listType=set, maps and structs by their properties.
func (e *emitter) equal(t types.Type, n *schema.Node, a, b string) string {
	if k := known(t); k != "" {
		return fmt.Sprintf("%s.Same%s(%s, %s)", e.pkg(immutablePkg), k, addr(a), addr(b))
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		if k := known(p.Elem()); k == "Time" || k == "MicroTime" {
			// nil and a zero time are both null.
			return fmt.Sprintf("%s.Same%s(%s, %s)", e.pkg(immutablePkg), k, a, b)
		}
		if special(p.Elem()) && known(p.Elem()) == "" && hasMethod(p.Elem(), "MarshalJSON") {
			// nil is null, and so may be what MarshalJSON writes.
			return fmt.Sprintf("%s.SameMarshaled(%s, %s)", e.pkg(immutablePkg), a, b)
		}
	}
	if special(t) {
		if hasMethod(t, "MarshalJSON") {
			// Its JSON is what its MarshalJSON writes: compared as JSON.
			return fmt.Sprintf("%s.SameMarshaled(%s, %s)", e.pkg(immutablePkg), addr(a), addr(b))
		}
		e.fail(n, t, "its JSON is the string its MarshalText writes, which the typed validators do not compare")
		return "false"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&(types.IsString|types.IsBoolean|types.IsInteger|types.IsFloat) == 0 || u.Kind() == types.Uintptr {
			break
		}
		return a + " == " + b
	case *types.Pointer:
		return fmt.Sprintf("((%s == nil) == (%s == nil) && (%s == nil || %s))", a, b, a, e.equal(u.Elem(), n, "(*"+a+")", "(*"+b+")"))
	case *types.Slice:
		if eb, ok := u.Elem().Underlying().(*types.Basic); ok && eb.Kind() == types.Uint8 {
			// []byte is a base64 string, or null when nil.
			return fmt.Sprintf("((%s == nil) == (%s == nil) && string(%s) == string(%s))", a, b, a, b)
		}
		return fmt.Sprintf("%s(%s, %s)", e.equalFunc(t, n), addr(a), addr(b))
	case *types.Map, *types.Struct, *types.Array:
		return fmt.Sprintf("%s(%s, %s)", e.equalFunc(t, n), addr(a), addr(b))
	}
	e.fail(n, t, "no JSON value of this Go type can be compared")
	return "false"
}

// equalFunc returns the equality function of t at node n:
// func(a, b *T) bool.
func (e *emitter) equalFunc(t types.Type, n *schema.Node) string {
	ts := e.typeString(t)
	key, base := "equal|"+ts+"|"+codeSignature(n, false), "equal"+e.typeName(t)
	if e.unordered && n != nil && n.HasListMap() {
		// +immutable:ignoreOrder: the list maps below compare by key.
		key, base = key+"|unordered", base+"AnyOrder"
	}
	name, b, isNew := e.newFunc(key, base)
	if !isNew {
		return name
	}
	var body bytes.Buffer
	switch u := t.Underlying().(type) {
	case *types.Struct:
		fields, err := jsonFields(u, e.local)
		if err != nil {
			e.fail(n, t, "%v", err)
			break
		}
		for _, f := range fields {
			var c *schema.Node
			if n != nil {
				c = n.Properties[f.name]
			}
			pa, pb := e.presence(f, "a", c), e.presence(f, "b", c)
			eq := e.equal(f.typ, c, f.access("a"), f.access("b"))
			if pa == "true" && pb == "true" {
				fmt.Fprintf(&body, "if !(%s) {\nreturn false\n}\n", eq)
				continue
			}
			fmt.Fprintf(&body, "if pa, pb := %s, %s; pa != pb || pa && !(%s) {\nreturn false\n}\n", pa, pb, eq)
		}
		body.WriteString("return true\n")
	case *types.Slice:
		var items *schema.Node
		set := false
		if n != nil {
			items, set = n.Items, n.ListType() == "set"
		}
		fmt.Fprintf(&body, "if (*a == nil) != (*b == nil) || len(*a) != len(*b) {\nreturn false\n}\n")
		if set {
			if !plainComparable(u.Elem()) {
				e.fail(n, t, "a set whose items are not strings, numbers or booleans")
				body.WriteString("return false\n")
				break
			}
			fmt.Fprintf(&body, "return %s.SameMultiset(*a, *b)\n", e.pkg(immutablePkg))
			break
		}
		if e.unordered && n != nil && n.ListType() == "map" {
			e.unorderedListMap(&body, t, n)
			break
		}
		fmt.Fprintf(&body, "for i := range *a {\nif !(%s) {\nreturn false\n}\n}\nreturn true\n", e.equal(u.Elem(), items, "(*a)[i]", "(*b)[i]"))
	case *types.Array:
		e.equalArray(&body, u, n)
	case *types.Map:
		if !isStringKind(u.Key()) {
			e.fail(n, t, "map keys that are not strings")
			body.WriteString("return false\n")
			break
		}
		var values *schema.Node
		if n != nil {
			values = n.Values
		}
		fmt.Fprintf(&body, "if (*a == nil) != (*b == nil) || len(*a) != len(*b) {\nreturn false\n}\n")
		fmt.Fprintf(&body, "for k, av := range *a {\nbv, ok := (*b)[k]\nif !ok || !(%s) {\nreturn false\n}\n}\nreturn true\n", e.equal(u.Elem(), values, "av", "bv"))
	}
	fmt.Fprintf(b, "func %s(a, b *%s) bool {\n", name, ts)
	b.Write(body.Bytes())
	b.WriteString("}\n\n")
	return name
}

// unorderedListMap writes the body of the equality of list maps *a and *b
// (of the same length, both nil or neither) of Go type t at node n under
// +immutable:ignoreOrder: the same items in any order, compared as
// multisets as the runtime compares them (with unique keys, which the API
// server ensures, that is the same items under the same keys: CEL's ==).
// Items equal in order need nothing more, and nothing is allocated when
// nothing changed; after the longest equal prefix, each remaining item
// takes an equal one out of the rest.
func (e *emitter) unorderedListMap(body *bytes.Buffer, t types.Type, n *schema.Node) {
	elem := t.Underlying().(*types.Slice).Elem()
	fmt.Fprintf(body, "i := 0\nfor i < len(*a) && (%s) {\ni++\n}\nif i == len(*a) {\nreturn true\n}\n", e.equal(elem, n.Items, "(*a)[i]", "(*b)[i]"))
	fmt.Fprintf(body, "used := make([]bool, len(*b)-i)\nfor x := i; x < len(*a); x++ {\nfound := false\nfor y := range used {\nif !used[y] && (%s) {\nused[y], found = true, true\nbreak\n}\n}\nif !found {\nreturn false\n}\n}\nreturn true\n", e.equal(elem, n.Items, "(*a)[x]", "(*b)[i+y]"))
}

// plainComparable reports whether Go's == on t is JSON equality: strings,
// numbers and booleans.
func plainComparable(t types.Type) bool {
	if special(t) {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsString|types.IsBoolean|types.IsInteger|types.IsFloat) != 0 && b.Kind() != types.Uintptr
}
