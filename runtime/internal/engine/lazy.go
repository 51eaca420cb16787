package engine

// A list map whose items are compared whole is, in the new object of an
// update decoded by DecodeUpdate in trusted mode, not read item by item
// for the items' keys: it is skipped and kept as its bytes (lazyList).
// The old object's decoding then compares its own list's bytes with
// those and, where they are the same, holds the same lazyList, which the
// walk passes by: a value beside itself reports nothing (the argument of
// Unchanged, for one value; the walk's depth limit is checked first).
// Where the old list's bytes differ, or where the walk meets the lazyList
// beside anything else, the list is read as DecodeObject reads it
// (lazyList.value), once, and the update is checked as usual. The
// verdicts are those of the objects decoded on their own: on valid JSON
// the skip fails exactly where the reading would (nesting beyond
// maxNesting, a number beyond float64), and the reading of bytes that
// skipped without error succeeds.

// lazyList is a list map of whole items in the new object of an update,
// kept as its bytes until the walk needs its items.
type lazyList struct {
	data  []byte
	depth int
	n     *node
	// list is the list as DecodeObject reads it, once read (value); nil
	// before.
	list interface{}
	read bool
}

// lazy reports whether the new object's value at d.pos, a list at node n
// in walkMode, is kept as a lazyList: in trusted mode, for DecodeUpdate
// (d.record, which the old object's decoding shares values through), a
// list map whose items are objects compared whole, whose items item reads
// for their keys only.
func (d *decoder) lazy(n *node) bool {
	if d.record == nil || !d.valid || d.data[d.pos] != '[' {
		return false
	}
	s := n.structure
	return s.listType == listMap && s.walkItems && s.items.whole() && !s.items.immutableKeys && s.items.structure != nil
}

// lazyList skips the list at d.pos, at depth, checking what trusted mode
// checks (skipTrusted), and returns it as a lazyList recorded for the old
// object's decoding.
func (d *decoder) lazyList(n *node, depth int) (interface{}, error) {
	start := d.pos
	if err := d.skipTrusted(depth); err != nil {
		return nil, err
	}
	l := &lazyList{data: d.data[start:d.pos], depth: depth, n: n}
	d.record.add(l, start, d.pos, depth)
	return l, nil
}

// value returns the list as DecodeObject reads it in walkMode, reading it
// the first time: the items kept as bytes with their keys, which the old
// object's decoding shares where its items have the same bytes. Bytes
// that do not read (not JSON: trusted mode's input is) give nil, which
// the walk takes as a list absent from the new object's place.
func (l *lazyList) value() interface{} {
	if !l.read {
		l.read = true
		d := decoder{data: l.data, valid: true}
		if v, err := d.value(l.n, walkMode, l.depth, nil); err == nil && d.pos == len(d.data) {
			l.list = v
		}
	}
	return l.list
}
