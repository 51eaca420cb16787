package engine

import (
	"bytes"
	"unicode/utf8"
)

// rawValue is an array or object that the check compares whole (immutable,
// or immutable once set) as DecodeObject keeps it: its JSON, whose syntax
// and nesting the decoder checked, and its nesting level in the document.
//
// The API server serialises the old and the new object the same way, so an
// unchanged value has the same bytes on both sides, and equal bytes are
// equal values: a document decodes one way. Where the bytes differ and a
// set is below, canonical bytes are compared (rawequal.go); only where
// they cannot decide is the value decoded and compared by the equality of
// docs/semantics.md 2.3, under which keys in another order, 1.0 for 1,
// escaped characters and a reordered set change nothing.
type rawValue struct {
	data []byte
	// depth fits in 32 bits: the decoder refuses nesting beyond
	// maxNesting.
	depth int32
	// canon: the decoder found data canonical (canonical) as it read it,
	// which canonical then need not scan again. False says nothing.
	canon bool
	// keys, for an item of a list map that is an object, holds the values
	// of its key properties as DecodeObject builds them, in
	// x-kubernetes-list-map-keys order (nil where one is absent), to
	// correlate it (listmap.go); nil for anything else.
	keys []interface{}
}

// sameBytes reports whether a and b are both rawValues with the same bytes.
// It reports false for anything else, which may still be equal.
func sameBytes(a, b interface{}) bool {
	ra, ok := a.(*rawValue)
	if !ok {
		return false
	}
	rb, ok := b.(*rawValue)
	return ok && bytes.Equal(ra.data, rb.data)
}

// bothRaw reports whether a and b are both rawValues.
func bothRaw(a, b interface{}) bool {
	_, ra := a.(*rawValue)
	_, rb := b.(*rawValue)
	return ra && rb
}

// decoded returns v decoded in full if it is a rawValue, else v.
func decoded(v interface{}) interface{} {
	r, ok := v.(*rawValue)
	if !ok {
		return v
	}
	// Its strings share the memory of one copy of its bytes.
	d := decoder{data: r.data, text: string(r.data)}
	full, err := d.value(nil, fullMode, int(r.depth), nil)
	if err != nil {
		// Unreachable: DecodeObject checked these bytes. The rawValue is
		// not JSON to the comparison, so it equals nothing and is
		// reported rather than let through.
		return v
	}
	return full
}

// verdict is what compareText can tell of two values.
type verdict uint8

const (
	unsure verdict = iota // it cannot tell without decoding (duplicate keys)
	same
	differ
)

// maxDistinctCheck bounds the members of an object whose keys compareText
// checks for duplicates pair by pair; a larger object is left unsure, so
// that the comparison stays linear.
const maxDistinctCheck = 32

// compareText compares v, a value decoded in full, with the JSON of r,
// which it does not build, by the equality of eqPlain (no sets below):
// null only equals null, numbers by value, strings and booleans when
// identical, objects by key, arrays in order. Duplicate keys, where the
// last one wins, make it unsure unless they cannot matter.
func compareText(v interface{}, r *rawValue) verdict {
	d := decoder{data: r.data}
	return d.compare(v, int(r.depth))
}

// compare compares v with the value at d.pos and moves past that value,
// unless it answers unsure.
func (d *decoder) compare(v interface{}, depth int) verdict {
	start := d.pos
	if d.pos >= len(d.data) {
		return unsure
	}
	// skipped moves past the value and answers vd.
	skipped := func(vd verdict) verdict {
		d.pos = start
		if _, err := d.value(nil, skipMode, depth, nil); err != nil {
			return unsure // unreachable: the bytes were checked
		}
		return vd
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		m, ok := v.(map[string]interface{})
		if !ok || m == nil {
			return skipped(differ)
		}
		return d.compareObject(m, depth)
	case c == '[':
		l, ok := v.([]interface{})
		if !ok || l == nil {
			return skipped(differ)
		}
		return d.compareArray(l, depth)
	case c == '"':
		s, ok := v.(string)
		if !ok {
			return skipped(differ)
		}
		plain, err := d.skipString()
		if err != nil {
			return unsure
		}
		if raw := d.data[start+1 : d.pos-1]; plain || (bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)) {
			return sameIf(string(raw) == s)
		}
		t, err := d.unquote(start, d.pos, false)
		if err != nil {
			return unsure
		}
		return sameIf(t == s)
	default:
		x, err := d.value(nil, fullMode, depth, nil)
		if err != nil {
			return unsure
		}
		return sameIf(eqPlain(v, x, depth))
	}
}

func sameIf(b bool) verdict {
	if b {
		return same
	}
	return differ
}

// compareObject compares m with the object at d.pos.
func (d *decoder) compareObject(m map[string]interface{}, depth int) verdict {
	start := d.pos
	var keys [maxDistinctCheck][2]int // the members' key spans, for duplicates
	members := 0
	differing := -1 // the member whose value differs, if any
	d.pos++         // '{'
	for {
		d.skipSpace()
		if d.data[d.pos] == '}' {
			d.pos++
			break
		}
		if d.data[d.pos] == ',' {
			d.pos++
			d.skipSpace()
		}
		ks := d.pos
		plain, err := d.skipString()
		if err != nil {
			return unsure
		}
		ke := d.pos
		d.skipSpace()
		d.pos++ // ':'
		d.skipSpace()
		if members < maxDistinctCheck {
			keys[members] = [2]int{ks, ke}
		}
		members++
		if differing >= 0 {
			// After a differing member: only a duplicate of its key could
			// hide the difference.
			if d.sameKey(keys[differing], ks, ke) {
				return unsure
			}
			if _, err := d.value(nil, skipMode, depth+1, nil); err != nil {
				return unsure
			}
			continue
		}
		key, err := d.unquote(ks, ke, plain)
		if err != nil {
			return unsure
		}
		nv, ok := m[key]
		if !ok {
			// The key is in the decoded object, not in m.
			d.pos = start
			if _, err := d.value(nil, skipMode, depth, nil); err != nil {
				return unsure
			}
			return differ
		}
		switch d.compare(nv, depth+1) {
		case unsure:
			return unsure
		case differ:
			if members > maxDistinctCheck {
				return unsure
			}
			differing = members - 1
		}
	}
	if differing >= 0 {
		return differ
	}
	// Every member's key is in m with an equal value: equal when the keys
	// are distinct and as many as m's.
	if members > maxDistinctCheck || members > len(m) {
		return unsure
	}
	for i := 0; i < members; i++ {
		for j := i + 1; j < members; j++ {
			if d.sameKey(keys[i], keys[j][0], keys[j][1]) {
				return unsure
			}
		}
	}
	return sameIf(members == len(m))
}

// sameKey reports whether the quoted keys at span a and at [start, end)
// may be the same key: the same bytes, or bytes whose decoding could make
// them the same.
func (d *decoder) sameKey(a [2]int, start, end int) bool {
	x, y := d.data[a[0]:a[1]], d.data[start:end]
	if bytes.IndexByte(x, '\\') >= 0 || bytes.IndexByte(y, '\\') >= 0 || !utf8.Valid(x) || !utf8.Valid(y) {
		// Escapes, or invalid UTF-8 that decodes to U+FFFD.
		return true
	}
	return bytes.Equal(x, y)
}

// compareArray compares l with the array at d.pos, item by item in order.
func (d *decoder) compareArray(l []interface{}, depth int) verdict {
	n := 0
	d.pos++ // '['
	for {
		d.skipSpace()
		if d.data[d.pos] == ']' {
			d.pos++
			return sameIf(n == len(l))
		}
		if d.data[d.pos] == ',' {
			d.pos++
			d.skipSpace()
		}
		if n >= len(l) {
			break
		}
		switch d.compare(l[n], depth+1) {
		case unsure:
			return unsure
		case differ:
			// Arrays have no duplicates: the difference stands. Move past
			// the rest (not the whole array again: that would be
			// quadratic in the nesting).
			return d.skipItems(depth)
		}
		n++
	}
	// More items than l: move past them from the first extra one.
	return d.skipItems(depth)
}

// skipItems moves past the rest of an array whose items are at depth+1,
// from an item or the ',' or ']' after one, and answers differ.
func (d *decoder) skipItems(depth int) verdict {
	for {
		d.skipSpace()
		switch d.data[d.pos] {
		case ']':
			d.pos++
			return differ
		case ',':
			d.pos++
			d.skipSpace()
		}
		if _, err := d.value(nil, skipMode, depth+1, nil); err != nil {
			return unsure
		}
	}
}
