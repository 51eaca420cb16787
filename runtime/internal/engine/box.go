package engine

import "unsafe"

// The decoder boxes the strings and integers it builds as interface
// values without an allocation each: Go boxes a string or an int64 by
// copying it to the heap (16 and 8 bytes), one allocation per value,
// which on a list map of 28 ports keyed by name and protocol is most of
// what DecodeObject allocated. The decoder instead copies each value into
// a slab of its type, a few allocations per document, and makes the
// interface value point at the slab's element, as the runtime's own
// boxing makes it point at its copy. A slab is only appended to within
// its capacity and never written again where it holds a value, so each
// boxed value is as immutable as the runtime's copy would be.

// eface is the layout of an interface{} value: its dynamic type and a
// pointer to its value (for a string or an int64, which are not pointers).
type eface struct {
	typ, data unsafe.Pointer
}

// typeWord returns the type word of v's interface value.
func typeWord(v interface{}) unsafe.Pointer {
	return (*eface)(unsafe.Pointer(&v)).typ
}

// stringType and int64Type are the type words of a string and an int64,
// set once when the package is initialised and never changed.
var (
	stringType = typeWord("")
	int64Type  = typeWord(int64(0))
)

// boxAt returns the interface value of type typ whose value is at p.
func boxAt(typ, p unsafe.Pointer) interface{} {
	var v interface{}
	*(*eface)(unsafe.Pointer(&v)) = eface{typ: typ, data: p}
	return v
}

// slab sizes: each slab holds twice the last one's values, from 64 to
// 256 (the rawValues of decode.go from 8), so that a document of a few
// hundred values allocates one or two and a large one a few per thousand
// values.
const (
	minSlab = 64
	maxSlab = 256
)

// boxString returns s as an interface value, its header kept in the
// decoder's slab of strings.
func (d *decoder) boxString(s string) interface{} {
	if s == "" {
		return "" // the runtime boxes an empty string without allocating
	}
	if len(d.strSlab) == cap(d.strSlab) {
		d.strSlab = make([]string, 0, min(max(2*cap(d.strSlab), minSlab), maxSlab))
	}
	d.strSlab = append(d.strSlab, s)
	return boxAt(stringType, unsafe.Pointer(&d.strSlab[len(d.strSlab)-1]))
}

// boxInt returns i as an interface value, kept in the decoder's slab of
// integers.
func (d *decoder) boxInt(i int64) interface{} {
	if i >= 0 && i < 256 {
		return i // the runtime boxes a small integer without allocating
	}
	if len(d.intSlab) == cap(d.intSlab) {
		d.intSlab = make([]int64, 0, min(max(2*cap(d.intSlab), minSlab), maxSlab))
	}
	d.intSlab = append(d.intSlab, i)
	return boxAt(int64Type, unsafe.Pointer(&d.intSlab[len(d.intSlab)-1]))
}
