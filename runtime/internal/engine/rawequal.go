package engine

import (
	"bytes"
	"hash/maphash"
)

// Two values kept as bytes (rawValue) whose bytes differ, with a set at
// or below them, are compared by their canonical bytes without decoding
// them: a set's items as a multiset of their bytes, an object's members
// paired by key, a list's items in order, anything without a set below
// by its bytes. Canonical bytes (canonical in marshal.go: no white
// space, each object's keys increasing, strings and integers as
// json.Marshal writes them) are equal exactly when the values are, where
// no set is below; the API server writes custom resources so. Where
// either value's bytes are not canonical the comparison is unsure, and
// the values are decoded and compared (docs/semantics.md 2.3).

// span is the bytes of one value inside a rawValue: data[start:end].
type span struct{ start, end int }

// spans is a pooled slice of spans.
type spans struct{ s []span }

// maxPooledSpans bounds the spans a pooled slice keeps.
const maxPooledSpans = 1 << 16

func (c *Checker) getSpans() *spans {
	x, _ := c.spans.Get().(*spans)
	if x == nil {
		x = new(spans)
	}
	x.s = x.s[:0]
	return x
}

func (c *Checker) putSpans(x *spans) {
	if cap(x.s) <= maxPooledSpans {
		c.spans.Put(x)
	}
}

// compareRaw compares a and b, whose bytes differ, at node n, which has a
// set at it or below: same or differ where both are canonical, else
// unsure.
func (c *Checker) compareRaw(n *node, a, b *rawValue) verdict {
	if a.depth != b.depth || !canonical(a) || !canonical(b) {
		return unsure
	}
	// Both canonical: valid JSON, which the walk below skips without
	// checking it again.
	da, db := decoder{data: a.data, valid: true}, decoder{data: b.data, valid: true}
	return c.rawEqual(n, &da, &db, int(a.depth))
}

// rawEqual compares the canonical values at da.pos and db.pos, at node n
// (nil: no schema) and nesting depth, and moves past both when it answers
// same (it may stop anywhere when it answers differ).
func (c *Checker) rawEqual(n *node, da, db *decoder, depth int) verdict {
	ca, cb := da.data[da.pos], db.data[db.pos]
	if n.comparesSets() && ca == cb && (ca == '[' || ca == '{') {
		if ca == '{' {
			return c.rawObject(n.structure, da, db, depth)
		}
		if n.structure.listType == listSet {
			return c.rawSet(n.structure.items, da, db, depth)
		}
		return c.rawList(n.structure.items, da, db, depth)
	}
	// No set below, or values of different kinds: the bytes decide.
	sa, sb := rawSkip(da, depth), rawSkip(db, depth)
	if sa.end < 0 || sb.end < 0 {
		return unsure // unreachable: canonical checked the bytes
	}
	return sameIf(bytes.Equal(da.data[sa.start:sa.end], db.data[sb.start:sb.end]))
}

// rawSkip moves past the value at d.pos and returns its span; end is -1
// where it cannot.
func rawSkip(d *decoder, depth int) span {
	start := d.pos
	if _, err := d.value(nil, skipMode, depth, nil); err != nil {
		return span{start, -1}
	}
	return span{start, d.pos}
}

// rawObject compares two canonical objects member by member: their keys
// increase, so they have the same keys exactly when their keys come in
// the same order.
func (c *Checker) rawObject(s *structure, da, db *decoder, depth int) verdict {
	da.pos++
	db.pos++
	for {
		ea, eb := da.data[da.pos] == '}', db.data[db.pos] == '}'
		if ea || eb {
			if ea && eb {
				da.pos++
				db.pos++
				return same
			}
			return differ
		}
		ka, kb := rawKey(da), rawKey(db)
		if !bytes.Equal(ka, kb) {
			return differ
		}
		if vd := c.rawEqual(s.child(string(ka)), da, db, depth+1); vd != same {
			return vd
		}
		rawComma(da)
		rawComma(db)
	}
}

// rawKey reads the canonical key at d.pos and the colon after it, and
// returns its bytes, which are the key.
func rawKey(d *decoder) []byte {
	start := d.pos
	_, _ = d.skipString() // canonical: the key is a string
	k := d.data[start+1 : d.pos-1]
	d.pos++ // ':'
	return k
}

// rawComma moves past the comma after a member or an item, if any.
func rawComma(d *decoder) {
	if d.data[d.pos] == ',' {
		d.pos++
	}
}

// rawList compares two canonical arrays item by item, in order.
func (c *Checker) rawList(item *node, da, db *decoder, depth int) verdict {
	da.pos++
	db.pos++
	for {
		ea, eb := da.data[da.pos] == ']', db.data[db.pos] == ']'
		if ea || eb {
			if ea && eb {
				da.pos++
				db.pos++
				return same
			}
			return differ
		}
		if vd := c.rawEqual(item, da, db, depth+1); vd != same {
			return vd
		}
		rawComma(da)
		rawComma(db)
	}
}

// rawItems appends the spans of the items of the array at d.pos to x and
// moves past it; false if it cannot.
func rawItems(d *decoder, x *spans, depth int) bool {
	d.pos++
	for d.data[d.pos] != ']' {
		sp := rawSkip(d, depth+1)
		if sp.end < 0 {
			return false
		}
		x.s = append(x.s, sp)
		rawComma(d)
	}
	d.pos++
	return true
}

// rawSet compares two canonical arrays as multisets of their items, in
// expected linear time (as equalMultiset does for decoded values): items
// without a set below by their bytes, after the longest common prefix,
// through an index of the old items by the hash of their bytes. Items with
// a set below leave it unsure.
func (c *Checker) rawSet(item *node, da, db *decoder, depth int) verdict {
	xa, xb := c.getSpans(), c.getSpans()
	defer c.putSpans(xa)
	defer c.putSpans(xb)
	if !rawItems(da, xa, depth) || !rawItems(db, xb, depth) {
		return unsure // unreachable: canonical checked the bytes
	}
	a, b := xa.s, xb.s
	if len(a) != len(b) {
		return differ
	}
	bytesOf := func(d *decoder, sp span) []byte { return d.data[sp.start:sp.end] }
	i := 0
	for i < len(a) && bytes.Equal(bytesOf(da, a[i]), bytesOf(db, b[i])) {
		i++
	}
	a, b = a[i:], b[i:]
	switch {
	case len(a) == 0:
		return same
	case item.comparesSets():
		return unsure
	case len(a) == 1:
		return differ
	}
	idx := c.index(len(a))
	defer c.putIndex(idx)
	for i := len(a) - 1; i >= 0; i-- {
		idx.add(maphash.Bytes(c.h.seed, bytesOf(da, a[i])), i)
	}
	for _, sp := range b {
		v := bytesOf(db, sp)
		if idx.find(maphash.Bytes(c.h.seed, v), func(i int) bool { return bytes.Equal(bytesOf(da, a[i]), v) }, true) < 0 {
			return differ
		}
	}
	return same
}
