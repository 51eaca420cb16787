package engine

// A value of the new object of an update decoded by DecodeUpdate in
// trusted mode whose walk only compares what it holds whole (a list map
// of whole items, an object whose walked members are compared whole) is
// not read member by member or item by item: it is skipped and kept as
// its bytes (lazyValue). The old object's decoding then compares its own
// value's bytes with those and, where they are the same, holds the same
// lazyValue, which the walk passes by: a value beside itself reports
// nothing (the argument of Unchanged, for one value: its members and
// items are compared whole, which a value beside itself passes, and the
// walk's depth limit is checked on the value itself first). Where the old
// value's bytes differ, or where the walk meets the lazyValue beside
// anything else, the value is read as DecodeObject reads it
// (lazyValue.value), once, and the update is checked as usual. The
// verdicts are those of the objects decoded on their own: on valid JSON
// the skip fails exactly where the reading would (nesting beyond
// maxNesting, a number beyond float64), and the reading of bytes that
// skipped without error succeeds.

// lazyValue is a list or an object of the new object of an update, kept
// as its bytes until the walk needs what it holds.
type lazyValue struct {
	data  []byte
	depth int
	n     *node
	// v is the value as DecodeObject reads it, once read (value); nil
	// before.
	v    interface{}
	read bool
}

// lazy reports whether the new object's value at d.pos, a list or an
// object at node n in walkMode, is kept as a lazyValue: in trusted mode,
// for DecodeUpdate (d.record, which the old object's decoding shares
// values through), a list map whose items are objects compared whole, or
// an object whose members the walk visits are all compared whole, below
// the document's top level (depth 1: the object DecodeUpdate returns).
func (d *decoder) lazy(n *node, depth int) bool {
	if d.record == nil || !d.valid || depth < 2 {
		return false
	}
	s := n.structure
	if d.data[d.pos] == '[' {
		return s.listType == listMap && s.walkItems && s.items.whole() && !s.items.immutableKeys && s.items.structure != nil
	}
	if len(s.walkProps) == 0 && !s.walkAdd {
		return false
	}
	for i := range s.walkProps {
		if !s.walkProps[i].node.whole() {
			return false
		}
	}
	return !s.walkAdd || s.additional.whole()
}

// keepLazy skips the list or object at d.pos, at depth, checking what
// trusted mode checks (skipTrusted), and returns it as a lazyValue
// recorded for the old object's decoding.
func (d *decoder) keepLazy(n *node, depth int) (interface{}, error) {
	start := d.pos
	if err := d.skipTrusted(depth); err != nil {
		return nil, err
	}
	l := &lazyValue{data: d.data[start:d.pos], depth: depth, n: n}
	d.record.add(l, start, d.pos, depth)
	return l, nil
}

// value returns the value as DecodeObject reads it in walkMode, reading
// it the first time: a list map's items kept as bytes with their keys, an
// object's walked members kept as bytes, which the old object's decoding
// shares where its own have the same bytes. Bytes that do not read (not
// JSON: trusted mode's input is) give nil, which the walk takes as a
// value absent from the new object's place.
func (l *lazyValue) value() interface{} {
	if !l.read {
		l.read = true
		d := decoder{data: l.data, valid: true}
		if v, err := d.value(l.n, walkMode, l.depth, nil); err == nil && d.pos == len(d.data) {
			l.v = v
		}
	}
	return l.v
}
