package engine

import (
	"bytes"
	"slices"
	"unsafe"
)

// DecodeUpdate decodes the new object raw and the old object oldRaw of an
// update for ValidateUpdate: obj is DecodeObject(raw) (DecodeTrusted with
// trusted), old is DecodeOldObject(oldRaw, obj) (DecodeOldTrusted), with
// the same results, verdicts and errors. errNew is the new object's error;
// the old object is decoded only if the new one decodes without error (to
// null, too), and errOld is its error.
//
// Where an object or list that the walk enters in the old object has,
// at the same place and depth, exactly the bytes of the new object's
// value, the old result holds the new one's value (the same map or slice)
// instead of decoding those bytes again: equal bytes decode to equal
// values, and the new object's were checked as the old one's would be
// (the same syntax checks, the same nesting limit at the same depth). So
// an unchanged object costs the old object's decoding one comparison of
// its bytes. The new object's decoding records the byte span of each
// object and list it builds for the walk in a table pooled by the
// Checker, which the old object's decoding looks its peers up in; the
// results never refer to the table.
func (c *Checker) DecodeUpdate(raw, oldRaw []byte, trusted bool) (obj, old map[string]interface{}, errNew, errOld error) {
	var t *spanTable
	if c != nil {
		t, _ = c.shares.Get().(*spanTable)
		if t == nil {
			t = &spanTable{}
		}
		t.data = raw
	}
	obj, errNew = c.decodeWith(raw, nil, trusted, false, t, nil)
	if errNew == nil {
		if t != nil {
			t.sort()
		}
		old, errOld = c.decodeWith(oldRaw, obj, trusted, true, nil, t)
	}
	if t != nil {
		t.reset()
		c.shares.Put(t)
	}
	return obj, old, errNew, errOld
}

// spanTable holds the byte spans, in data (the new object of an update),
// of the objects and lists DecodeObject built for the walk, to be found by
// the value built (spanOf): the old object's decoding shares a value whose
// bytes are the same.
type spanTable struct {
	data  []byte
	spans []builtSpan
	// compared counts the bytes the old object's decoding compared with
	// the new one's, at most (the spans it compared): maxShareDepth keeps
	// it linear in the old object's size.
	compared int
}

// builtSpan is where the value whose map or slice array is at id lies in the
// new object: data[start:end], at nesting level depth.
type builtSpan struct {
	id         uintptr
	start, end int
	depth      int
}

// maxPooledBuilt bounds the spans a pooled table keeps room for, so that a
// huge object does not keep its table's memory alive in the pool.
const maxPooledBuilt = 1 << 12

// add records the span of v, an object or list built from
// t.data[start:end] at depth. An empty list is not recorded: empty
// slices may share their array.
func (t *spanTable) add(v interface{}, start, end, depth int) {
	if id := identity(v); id != 0 {
		t.spans = append(t.spans, builtSpan{id: id, start: start, end: end, depth: depth})
	}
}

// sort orders the spans by id, for find.
func (t *spanTable) sort() {
	slices.SortFunc(t.spans, func(a, b builtSpan) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
}

// find returns the bytes of the recorded value v if it was built at depth
// (BinarySearchFunc finds the first of equal ids).
func (t *spanTable) find(v interface{}, depth int) ([]byte, bool) {
	id := identity(v)
	if id == 0 || len(t.spans) == 0 {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(t.spans, id, func(s builtSpan, id uintptr) int {
		switch {
		case s.id < id:
			return -1
		case s.id > id:
			return 1
		}
		return 0
	})
	if !ok || t.spans[i].depth != depth || (i+1 < len(t.spans) && t.spans[i+1].id == id) {
		// Not recorded, or recorded twice: a value the decoder built and
		// dropped (the first of duplicate keys) may have been collected
		// during the decoding and its memory given to a later one, so
		// an address recorded twice says nothing.
		return nil, false
	}
	return t.data[t.spans[i].start:t.spans[i].end], true
}

// reset empties t for the pool: it refers to no object.
func (t *spanTable) reset() {
	t.data, t.compared = nil, 0
	if cap(t.spans) > maxPooledBuilt {
		t.spans = nil
	}
	t.spans = t.spans[:0]
}

// identity is the address of v's map, of its slice's array or of the
// lazyValue it is (lazy.go), which tells the values DecodeObject built
// apart while they are in use; 0 for anything else, a nil map and an
// empty slice.
func identity(v interface{}) uintptr {
	switch x := v.(type) {
	case map[string]interface{}:
		if x == nil {
			return 0
		}
		return uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&x)))
	case []interface{}:
		if len(x) == 0 {
			return 0
		}
		return uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	case *lazyValue:
		return uintptr(unsafe.Pointer(x))
	}
	return 0
}

// maxShareDepth bounds the nesting level of the values the old object's
// decoding tries to share (shared). Each try compares bytes up to the
// first difference, which a try at each level of a nest of walked objects
// (a recursive schema's, as deep as the object goes) would compare again
// and again, quadratic in the nesting; bounded, each byte of the old
// object is compared at most maxShareDepth times, so the decoding stays
// linear. The values of real objects that the walk enters are far
// shallower.
const maxShareDepth = 32

// shared returns peer, the new object's value at the place of the old
// object's value at d.pos, if the old value's bytes are the peer's, and
// moves past them.
func (d *decoder) shared(peer interface{}, depth int) (interface{}, bool) {
	if d.peers == nil || depth > maxShareDepth {
		return nil, false
	}
	b, ok := d.peers.find(peer, depth)
	if !ok {
		return nil, false
	}
	d.peers.compared += len(b)
	if !bytes.HasPrefix(d.data[d.pos:], b) {
		return nil, false
	}
	d.pos += len(b)
	return peer, true
}

// container reads the object or list at d.pos that the walk enters, in
// mode m (walkMode, or fullMode for one built in full), sharing the new
// object's value where the bytes are the same (shared) and recording the
// span of what it builds for the old object's decoding (spanTable).
func (d *decoder) container(n *node, m mode, depth int, peer interface{}, keys *structure) (interface{}, error) {
	if v, ok := d.shared(peer, depth); ok {
		return v, nil
	}
	if l, ok := peer.(*lazyValue); ok {
		// The new object's value kept as bytes (lazy.go), which differ
		// from these: read now, so that its members and items share
		// where they are the same.
		peer = l.value()
	}
	start := d.pos
	var v interface{}
	var err error
	if d.data[d.pos] == '{' {
		v, err = d.object(n, m, depth, peer, keys)
	} else {
		v, err = d.array(n, m, depth, peer)
	}
	if err == nil && d.record != nil {
		d.record.add(v, start, d.pos, depth)
	}
	return v, err
}
