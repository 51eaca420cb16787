package validators

import (
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/jsontag"
)

// The JSON view of Go types: which properties a struct's JSON has, how each
// is reached from the struct value, and when encoding/json leaves it out.
// It follows encoding/json's rules, which is what the API server stores for
// a typed object (sigs.k8s.io/json decodes the same names).

// jsonField is one property of a struct's JSON.
type jsonField struct {
	name string
	// steps are the Go fields from the struct value to the field: embedded
	// structs whose fields are promoted, then the field itself.
	steps []step
	typ   types.Type
	// omitEmpty and omitZero are the json tag options.
	omitEmpty, omitZero bool
	tagged              bool
	field               *types.Var
}

// step is one Go field on the way to a JSON property.
type step struct {
	name string
	// ptr says the field is a pointer: nil leaves every property below it
	// out of the JSON.
	ptr bool
}

// access renders how the field is read from expr (a pointer or an
// addressable struct): expr.A.B.
func (f *jsonField) access(expr string) string {
	var b strings.Builder
	b.WriteString(expr)
	for _, s := range f.steps {
		b.WriteByte('.')
		b.WriteString(s.name)
	}
	return b.String()
}

// guards renders the nil checks of the embedded pointers on the way (empty
// when there are none), each followed by " && ".
func (f *jsonField) guards(expr string) string {
	var b strings.Builder
	cur := expr
	for _, s := range f.steps[:len(f.steps)-1] {
		cur += "." + s.name
		if s.ptr {
			b.WriteString(cur + " != nil && ")
		}
	}
	return b.String()
}

// jsonFields returns the JSON properties of struct st, as encoding/json
// computes them: exported fields by their json tag name or Go name, json:"-"
// skipped, the fields of embedded structs without a tag name promoted, and
// among fields of the same name the shallowest (a tagged one among equals)
// wins; equals otherwise cancel out. local is the package the generated
// code lives in: unexported embedded fields on the way must belong to it.
func jsonFields(st *types.Struct, local *types.Package) ([]*jsonField, error) {
	type cand struct {
		f     *jsonField
		depth int
	}
	var all []cand
	var walk func(st *types.Struct, prefix []step, depth int, seen []*types.Struct) error
	walk = func(st *types.Struct, prefix []step, depth int, seen []*types.Struct) error {
		if slices.Contains(seen, st) {
			return nil
		}
		seen = append(seen, st)
		for i := range st.NumFields() {
			v := st.Field(i)
			tag, _ := jsontag.Lookup(reflect.StructTag(st.Tag(i)))
			if tag.Ignored() {
				continue
			}
			name := tag.Name
			ft := v.Type()
			if v.Embedded() && name == "" {
				t := ft
				ptr := false
				if p, ok := t.(*types.Pointer); ok {
					t, ptr = p.Elem(), true
				}
				if !v.Exported() && !isStruct(t) {
					continue
				}
				if s, ok := t.Underlying().(*types.Struct); ok && !marshals(t) {
					if !v.Exported() && v.Pkg() != local {
						return fmt.Errorf("field %s embeds unexported %s of another package", v.Name(), t)
					}
					if err := walk(s, append(slices.Clone(prefix), step{v.Name(), ptr}), depth+1, seen); err != nil {
						return err
					}
					continue
				}
			}
			if !v.Exported() {
				continue
			}
			if name == "" {
				name = v.Name()
			}
			f := &jsonField{
				name:   name,
				steps:  append(slices.Clone(prefix), step{v.Name(), false}),
				typ:    ft,
				tagged: tag.Name != "",
				field:  v,
			}
			for _, o := range tag.Options {
				switch o {
				case "omitempty":
					f.omitEmpty = true
				case "omitzero":
					f.omitZero = true
				case "string":
					if isBasic(ft) {
						return fmt.Errorf("field %s has the json option \"string\", which the generated validators do not model", v.Name())
					}
				}
			}
			all = append(all, cand{f, depth})
		}
		return nil
	}
	if err := walk(st, nil, 0, nil); err != nil {
		return nil, err
	}
	byName := map[string][]cand{}
	var order []string
	for _, c := range all {
		if _, ok := byName[c.f.name]; !ok {
			order = append(order, c.f.name)
		}
		byName[c.f.name] = append(byName[c.f.name], c)
	}
	var out []*jsonField
	for _, name := range order {
		cs := byName[name]
		minDepth := slices.MinFunc(cs, func(a, b cand) int { return a.depth - b.depth }).depth
		var top []cand
		for _, c := range cs {
			if c.depth == minDepth {
				top = append(top, c)
			}
		}
		if len(top) > 1 {
			var tagged []cand
			for _, c := range top {
				if c.f.tagged {
					tagged = append(tagged, c)
				}
			}
			top = tagged
		}
		if len(top) == 1 {
			out = append(out, top[0].f)
		}
	}
	return out, nil
}

func isStruct(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

func isBasic(t types.Type) bool {
	_, ok := t.Underlying().(*types.Basic)
	return ok
}

// marshals reports whether t or *t has a MarshalJSON or MarshalText method:
// its JSON is then whatever the method writes.
func marshals(t types.Type) bool {
	for _, m := range []string{"MarshalJSON", "MarshalText"} {
		if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, m); obj != nil {
			if _, ok := obj.(*types.Func); ok {
				return true
			}
		}
	}
	return false
}
