package runtime

import "bytes"

// rawValue is an array or object that the check compares whole (immutable,
// or immutable once set) as DecodeObject keeps it: its JSON, whose syntax
// and nesting the decoder checked, and its nesting level in the document.
//
// The API server serialises the old and the new object the same way, so an
// unchanged value has the same bytes on both sides, and equal bytes are
// equal values: a document decodes one way. Only where the bytes differ is
// the value decoded and compared by the equality of docs/semantics.md 2.3,
// under which keys in another order, 1.0 for 1, escaped characters and a
// reordered set change nothing.
type rawValue struct {
	data  []byte
	depth int
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
	full, err := d.value(nil, fullMode, r.depth, nil)
	if err != nil {
		// Unreachable: DecodeObject checked these bytes. The rawValue is
		// not JSON to the comparison, so it equals nothing and is
		// reported rather than let through.
		return v
	}
	return full
}
