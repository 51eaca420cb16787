package validators

import (
	"bytes"
	"fmt"
	"go/types"
	"strconv"
	"strings"

	"github.com/immutable-gen/immutable-gen/schema"
)

// keys writes the check of the key set of a map or list map with
// +immutable=keys; it reports whether the walk may descend (the values are
// not null).
func (e *emitter) keys(b *bytes.Buffer, t types.Type, n *schema.Node, nv, ov, path string, aligned *string) bool {
	imm := e.pkg(immutablePkg)
	c := e.v("c")
	switch u := t.Underlying().(type) {
	case *types.Map:
		if !isStringKind(u.Key()) {
			e.fail(n, t, "map keys that are not strings")
			return false
		}
		fmt.Fprintf(b, "if (%s == nil) != (%s == nil) {\nif w.Violation() {\nw.Add(%s.ChangedAt(%s, %s))\n}\nif w.Done() {\nreturn\n}\n", nv, ov, imm, path, nv)
		fmt.Fprintf(b, "} else if %s != nil && !%s.SameKeys(%s, %s) {\nif w.Violation() {\nfor _, %s := range %s.MapKeyChanges(%s, %s) {\n", nv, imm, nv, ov, c, imm, nv, ov)
		fmt.Fprintf(b, "w.Add(%s.KeyChangedAt(%s, %s.QuoteKey(string(%s.Key)), %s.Added))\n}\n}\nif w.Done() {\nreturn\n}\n}\n", imm, path, imm, c, c)
		return true
	case *types.Slice:
		if n.ListType() != "map" {
			break
		}
		key, ok := e.listKey(t, n)
		if !ok {
			return false
		}
		cs := e.v("cs")
		m := e.alignedPrefix(b, key, nv, ov)
		*aligned = m
		fmt.Fprintf(b, "if (%s == nil) != (%s == nil) {\nif w.Violation() {\nw.Add(%s.ChangedAt(%s, %s))\n}\nif w.Done() {\nreturn\n}\n", nv, ov, imm, path, nv)
		fmt.Fprintf(b, "} else if %s != nil && (len(%s) != len(%s) || %s != len(%s)) {\n", nv, nv, ov, m, nv)
		fmt.Fprintf(b, "if %s := %s.ListKeyChanges(%s, %s, %s); len(%s) > 0 && w.Violation() {\nfor _, %s := range %s {\n", cs, imm, nv, ov, key.fn, cs, c, cs)
		fmt.Fprintf(b, "w.Add(%s.KeyChangedAt(%s, %s(%s.Key), %s.Added))\n}\n}\nif w.Done() {\nreturn\n}\n}\n", imm, path, e.format(key), c, c)
		return true
	}
	e.fail(n, t, "+immutable=keys on a value that is neither a map nor a list map")
	return false
}

// alignedPrefix writes the computation of the longest common prefix of
// list maps nv and ov in which items correlate by position (both have the
// same key, or neither has one; within it, position pairing is the pairing
// by key) and returns the variable holding its length. Inline, with direct
// calls of the key function: the common case is the whole list.
func (e *emitter) alignedPrefix(b *bytes.Buffer, key listKeyFuncs, nv, ov string) string {
	m, i := e.v("m"), e.v("i")
	fmt.Fprintf(b, "%s := min(len(%s), len(%s))\nfor %s := 0; %s < %s; %s++ {\n", m, nv, ov, i, i, m, i)
	fmt.Fprintf(b, "kn, hn := %s(&%s[%s])\nko, ho := %s(&%s[%s])\n", key.fn, nv, i, key.fn, ov, i)
	fmt.Fprintf(b, "if hn != ho || (hn && kn != ko) {\n%s = %s\nbreak\n}\n}\n", m, i)
	return m
}

// listKeyFuncs names the generated key type and functions of a list map.
type listKeyFuncs struct {
	typ, fn string
	names   []string
}

// format returns the function rendering key k for a message (generated
// once, where a key change is reported).
func (e *emitter) format(k listKeyFuncs) string {
	name, b, isNew := e.newFunc("format|"+k.typ, "format"+upper(k.typ))
	if !isNew {
		return name
	}
	imm := e.pkg(immutablePkg)
	quoted := make([]string, len(k.names))
	var values strings.Builder
	for i, n := range k.names {
		quoted[i] = strconv.Quote(n)
		fmt.Fprintf(&values, ", %s.FormatScalar(k.k%d)", imm, i)
	}
	fmt.Fprintf(b, "func %s(k %s) string {\nreturn %s.FormatKey([]string{%s}%s)\n}\n\n", name, k.typ, imm, strings.Join(quoted, ", "), values.String())
	return name
}

// listKey generates the key type of list map n of Go type t (a slice of
// structs), its KeyFunc and its message rendering.
func (e *emitter) listKey(t types.Type, n *schema.Node) (listKeyFuncs, bool) {
	u := t.Underlying().(*types.Slice)
	item := u.Elem()
	// Items are structs, or pointers to structs (nil is a null item, which
	// has no key).
	elem, expr := item, "e"
	if p, ok := item.Underlying().(*types.Pointer); ok {
		elem, expr = p.Elem(), "(*e)"
	}
	st := structOf(elem)
	if st == nil || special(elem) {
		e.fail(n, t, "a list map whose items are not structs")
		return listKeyFuncs{}, false
	}
	names := n.ListMapKeys()
	base := e.typeName(elem)
	fkey := "key|" + e.typeString(item) + "|" + strings.Join(names, ",")
	if keyName, ok := e.names[fkey]; ok {
		return listKeyFuncs{typ: keyName, fn: keyName + "Of", names: names}, true
	}
	keyName := e.free("key"+base, "Of")
	e.names[fkey] = keyName
	b := &bytes.Buffer{}
	e.funcs = append(e.funcs, b)
	res := listKeyFuncs{typ: keyName, fn: keyName + "Of", names: names}
	fields, err := jsonFields(st, e.local)
	if err != nil {
		e.fail(n, t, "%v", err)
		return res, false
	}
	byName := map[string]*jsonField{}
	for _, f := range fields {
		byName[f.name] = f
	}
	var decl, conds, values strings.Builder
	for i, k := range names {
		f := byName[k]
		if f == nil {
			e.fail(n, t, "no field of the item struct serializes as the list map key %q", k)
			return res, false
		}
		ft := f.typ
		x := f.access(expr)
		var nonNull string
		if p, ok := ft.Underlying().(*types.Pointer); ok {
			nonNull = x + " != nil"
			ft, x = p.Elem(), "*"+x
		}
		bt, ok := ft.Underlying().(*types.Basic)
		if !ok || special(ft) {
			e.fail(n, t, "the list map key %q is not a string, number or boolean", k)
			return res, false
		}
		var goType string
		switch {
		case bt.Info()&types.IsString != 0:
			goType = "string"
		case bt.Info()&types.IsBoolean != 0:
			goType = "bool"
		case bt.Info()&types.IsUnsigned != 0:
			goType = "uint64"
		case bt.Info()&types.IsInteger != 0:
			goType = "int64"
		case bt.Kind() == types.Float32:
			goType = "float32"
		case bt.Kind() == types.Float64:
			goType = "float64"
		default:
			e.fail(n, t, "the list map key %q is not a string, number or boolean", k)
			return res, false
		}
		fmt.Fprintf(&decl, "k%d %s\n", i, goType)
		if p := e.presence(f, expr, n); p != "true" {
			conds.WriteString(" && " + p)
		}
		if nonNull != "" {
			conds.WriteString(" && " + nonNull)
		}
		if types.Identical(ft, types.Universe.Lookup(goType).Type()) {
			fmt.Fprintf(&values, "k%d: %s,\n", i, x)
		} else {
			fmt.Fprintf(&values, "k%d: %s(%s),\n", i, goType, x)
		}
	}
	ts := e.typeString(item)
	fmt.Fprintf(b, "// %s is the key of a %s item in a list map.\ntype %s struct {\n%s}\n\n", keyName, ts, keyName, decl.String())
	fmt.Fprintf(b, "func %s(e *%s) (%s, bool) {\n", res.fn, ts, keyName)
	c := conds.String()
	if expr != "e" {
		c = " && *e != nil" + c
	}
	if c = strings.TrimPrefix(c, " && "); c != "" {
		fmt.Fprintf(b, "if !(%s) {\nreturn %s{}, false\n}\n", c, keyName)
	}
	fmt.Fprintf(b, "return %s{\n%s}, true\n}\n\n", keyName, values.String())
	return res, true
}
