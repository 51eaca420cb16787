package validators

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
)

// listShape says how a slice field is keyed: the Go names of a list map's
// key fields, or set for a listType=set. Fields not named are atomic lists.
type listShape struct {
	keys []string
	set  bool
}

// shapes holds the list shapes of one API, by "GoType.Field" of the field
// holding the slice (the same facts the +listType markers state; the
// generators read them from the markers, this test from this table).
type shapes map[string]listShape

// gen builds random typed objects and random mutations of them from small
// value domains, so that old and new often agree and changes are small.
type gen struct {
	r      *rand.Rand
	shapes shapes
}

func newGen(seed uint64, s shapes) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), shapes: s}
}

var (
	stringDomain = []string{"", "a", "b", "c"}
	keyDomain    = []string{"a", "b", "c", "d"}
)

// fill sets v (addressable) to a random value of its type.
func (g *gen) fill(v reflect.Value, key bool) {
	switch v.Kind() {
	case reflect.String:
		if key {
			v.SetString(keyDomain[g.r.IntN(len(keyDomain))])
		} else {
			v.SetString(stringDomain[g.r.IntN(len(stringDomain))])
		}
	case reflect.Int32, reflect.Int64:
		v.SetInt(int64(g.r.IntN(4)))
	case reflect.Bool:
		v.SetBool(g.r.IntN(2) == 1)
	case reflect.Pointer:
		if g.r.IntN(4) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		g.fill(p.Elem(), key)
		v.Set(p)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				continue // TypeMeta, ObjectMeta: set by the caller
			}
			g.fillField(v, f)
		}
	case reflect.Slice:
		g.fillSlice(v, listShape{})
	case reflect.Map:
		switch g.r.IntN(8) {
		case 0:
			v.SetZero()
			return
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
			return
		}
		m := reflect.MakeMap(v.Type())
		for range 1 + g.r.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			g.fill(k, true)
			e := reflect.New(v.Type().Elem()).Elem()
			g.fill(e, false)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

func (g *gen) fillField(parent reflect.Value, f reflect.StructField) {
	v := parent.Field(f.Index[0])
	if v.Kind() == reflect.Slice {
		g.fillSlice(v, g.shapes[parent.Type().Name()+"."+f.Name])
		return
	}
	g.fill(v, false)
}

func (g *gen) fillSlice(v reflect.Value, shape listShape) {
	switch g.r.IntN(8) {
	case 0:
		v.SetZero()
		return
	case 1:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	n := 1 + g.r.IntN(3)
	s := reflect.MakeSlice(v.Type(), n, n)
	for i := range n {
		g.fill(s.Index(i), shape.set)
		g.fillKeys(s.Index(i), shape)
	}
	v.Set(s)
	dedupe(v, shape)
}

// fillKeys gives list-map key fields values from the key domain, so that
// items of old and new correlate often.
func (g *gen) fillKeys(item reflect.Value, shape listShape) {
	for _, k := range shape.keys {
		g.fill(item.FieldByName(k), true)
	}
}

// dedupe drops the later items of a set or list map that repeat an item
// (set) or a key (list map): the API server refuses duplicates, and both
// validators report them, which is not what this test compares.
func dedupe(v reflect.Value, shape listShape) {
	if !shape.set && len(shape.keys) == 0 {
		return
	}
	var seen []reflect.Value
	out := reflect.MakeSlice(v.Type(), 0, v.Len())
	for i := range v.Len() {
		item := v.Index(i)
		id := item
		if !shape.set {
			id = keyOf(item, shape.keys)
		}
		if slices.ContainsFunc(seen, func(s reflect.Value) bool { return reflect.DeepEqual(s.Interface(), id.Interface()) }) {
			continue
		}
		seen = append(seen, id)
		out = reflect.Append(out, item)
	}
	v.Set(out)
}

func keyOf(item reflect.Value, keys []string) reflect.Value {
	parts := make([]interface{}, len(keys))
	for i, k := range keys {
		parts[i] = item.FieldByName(k).Interface()
	}
	return reflect.ValueOf(parts)
}

// site is one place of an object a mutation can change.
type site struct {
	path   string
	mutate func(g *gen)
}

// sites lists every place below v (addressable) that a mutation can change.
func (g *gen) sites(v reflect.Value, path string, shape listShape, out []site) []site {
	switch v.Kind() {
	case reflect.String, reflect.Int32, reflect.Int64, reflect.Bool:
		out = append(out, site{path, func(g *gen) { g.change(v, shape.set) }})
	case reflect.Pointer:
		out = append(out, site{path, func(g *gen) {
			if v.IsNil() {
				g.fill(v, false)
				if v.IsNil() {
					v.Set(reflect.New(v.Type().Elem()))
				}
			} else {
				v.SetZero()
			}
		}})
		if !v.IsNil() {
			out = g.sites(v.Elem(), path, shape, out)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				continue
			}
			out = g.sites(v.Field(i), path+"."+f.Name, g.shapes[t.Name()+"."+f.Name], out)
		}
	case reflect.Slice:
		out = append(out, site{path, func(g *gen) { g.mutateSlice(v, shape) }})
		if shape.set {
			break // a set item changes by removal and addition
		}
		for i := range v.Len() {
			n := len(out)
			out = g.sites(v.Index(i), path+"[]", listShape{}, out)
			if len(shape.keys) == 0 {
				continue
			}
			for j := n; j < len(out); j++ {
				// A changed key may repeat another item's key: drop the
				// repeat, as for an added item.
				m := out[j].mutate
				out[j].mutate = func(g *gen) { m(g); dedupe(v, shape) }
			}
		}
	case reflect.Map:
		out = append(out, site{path, func(g *gen) { g.mutateMap(v) }})
	}
	return out
}

// change sets a scalar to another value of its domain.
func (g *gen) change(v reflect.Value, key bool) {
	old := v.Interface()
	for range 8 {
		g.fill(v, key)
		if v.Interface() != old {
			return
		}
	}
}

func (g *gen) mutateSlice(v reflect.Value, shape listShape) {
	switch op := g.r.IntN(6); {
	case op == 0: // nil ↔ empty
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		} else if v.Len() == 0 {
			v.SetZero()
		} else {
			v.Set(v.Slice(0, v.Len()-1)) // remove the last item
		}
	case op == 1 && v.Len() >= 2: // reorder
		s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(s, v)
		for i, j := 0, s.Len()-1; i < j; i, j = i+1, j-1 {
			a, b := s.Index(i).Interface(), s.Index(j).Interface()
			s.Index(i).Set(reflect.ValueOf(b))
			s.Index(j).Set(reflect.ValueOf(a))
		}
		v.Set(s)
	case op == 2 && v.Len() >= 1: // remove a random item
		i := g.r.IntN(v.Len())
		s := reflect.MakeSlice(v.Type(), 0, v.Len()-1)
		s = reflect.AppendSlice(s, v.Slice(0, i))
		s = reflect.AppendSlice(s, v.Slice(i+1, v.Len()))
		v.Set(s)
	default: // append an item
		item := reflect.New(v.Type().Elem()).Elem()
		g.fill(item, shape.set)
		g.fillKeys(item, shape)
		s := reflect.MakeSlice(v.Type(), 0, v.Len()+1)
		s = reflect.AppendSlice(s, v)
		v.Set(reflect.Append(s, item))
		dedupe(v, shape)
	}
}

func (g *gen) mutateMap(v reflect.Value) {
	m := reflect.MakeMap(v.Type())
	if !v.IsNil() {
		iter := v.MapRange()
		for iter.Next() {
			m.SetMapIndex(iter.Key(), iter.Value())
		}
	}
	keys := m.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	switch op := g.r.IntN(4); {
	case op == 0: // nil ↔ empty
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		} else if v.Len() == 0 {
			v.SetZero()
		} else {
			m.SetMapIndex(keys[0], reflect.Value{})
			v.Set(m)
		}
	case op == 1 && len(keys) > 0: // change a value
		e := reflect.New(v.Type().Elem()).Elem()
		e.Set(m.MapIndex(keys[g.r.IntN(len(keys))]))
		g.change(e, false)
		m.SetMapIndex(keys[g.r.IntN(len(keys))], e)
		v.Set(m)
	case op == 2 && len(keys) > 0: // remove a key
		m.SetMapIndex(keys[g.r.IntN(len(keys))], reflect.Value{})
		v.Set(m)
	default: // add a key
		k := reflect.New(v.Type().Key()).Elem()
		g.fill(k, true)
		e := reflect.New(v.Type().Elem()).Elem()
		g.fill(e, false)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// mutate applies n random mutations to obj (a pointer to a struct) and
// returns the paths it touched.
func (g *gen) mutate(obj interface{}, n int) []string {
	var touched []string
	for range n {
		all := g.sites(reflect.ValueOf(obj).Elem(), "", listShape{}, nil)
		s := all[g.r.IntN(len(all))]
		s.mutate(g)
		touched = append(touched, s.path)
	}
	return touched
}

// reflectValue is the struct a pointer points to, addressable.
func reflectValue(ptr interface{}) reflect.Value { return reflect.ValueOf(ptr).Elem() }

// structField is the field name of the struct ptr points to.
func structField(ptr interface{}, name string) reflect.StructField {
	f, ok := reflect.TypeOf(ptr).Elem().FieldByName(name)
	if !ok {
		panic("no field " + name)
	}
	return f
}
