package engine

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/immutable"
)

// Lists with x-kubernetes-list-type map correlate their items by the tuple
// of the x-kubernetes-list-map-keys values. An item has a key when it is an
// object holding every key property with a non-null scalar value (string,
// boolean or number); other items cannot be correlated, as in the API
// server's own CEL correlation, and immutability ignores them. Key values
// compare like any value (1 and 1.0 are the same key). Duplicate keys pair
// up in order: the n-th new item with a key goes with the n-th old item with
// that key.

// itemKey is the key properties of an item of a list map: the item
// itself, an object, or for an item DecodeObject kept as bytes the values
// of its key properties in x-kubernetes-list-map-keys order (rawValue.keys).
type itemKey struct {
	m    map[string]interface{}
	vals []interface{}
}

// get returns the value of the i-th key property (nil: absent).
func (k itemKey) get(s *structure, i int) interface{} {
	if k.vals != nil {
		return k.vals[i]
	}
	return k.m[s.listKeys[i]]
}

// itemKeys returns the key properties of an item of a list map, if it is
// an object.
func itemKeys(item interface{}) (itemKey, bool) {
	if r, ok := item.(*rawValue); ok {
		return itemKey{vals: r.keys}, r.keys != nil
	}
	m, ok := asObject(item)
	return itemKey{m: m}, ok
}

// keyOf reports whether item has a complete key under s.
func keyOf(s *structure, item interface{}) (itemKey, bool) {
	k, ok := itemKeys(item)
	if !ok {
		return itemKey{}, false
	}
	for i := range s.listKeys {
		if !keyScalar(k.get(s, i)) {
			return itemKey{}, false
		}
	}
	return k, true
}

// sameKey reports whether a and b, both keyed, have the same key.
func sameKey(s *structure, a, b itemKey) bool {
	for i := range s.listKeys {
		if !eqPlain(a.get(s, i), b.get(s, i), 0) {
			return false
		}
	}
	return true
}

// keyScalar reports whether v can be (part of) a key.
func keyScalar(v interface{}) bool {
	switch v.(type) {
	case string, bool, int64, float64:
		return true
	case nil:
		return false
	}
	n, ok := toNumber(v)
	return ok && n.kind != numInvalid
}

// aligned reports whether items a and b correlate by position: both have
// the same key, or neither has one. It looks each key up once per item.
func aligned(s *structure, a, b interface{}) bool {
	am, aok := itemKeys(a)
	bm, bok := itemKeys(b)
	aKeyed, bKeyed, same := aok, bok, true
	for i := range s.listKeys {
		var av, bv interface{}
		if aKeyed {
			av = am.get(s, i)
			aKeyed = keyScalar(av)
		}
		if bKeyed {
			bv = bm.get(s, i)
			bKeyed = keyScalar(bv)
		}
		if aKeyed && bKeyed && same {
			same = eqPlain(av, bv, 0)
		}
	}
	return aKeyed == bKeyed && (!aKeyed || same)
}

// alignedPrefix returns the length of the longest common prefix of nl and
// ol in which items correlate by position. Within it, position pairing is
// the pairing by key, duplicates included.
func alignedPrefix(s *structure, nl, ol []interface{}) int {
	n := min(len(nl), len(ol))
	for i := 0; i < n; i++ {
		if !aligned(s, nl[i], ol[i]) {
			return i
		}
	}
	return n
}

// listMap walks the items of a list map, correlated by key: by position
// along the common prefix where keys line up (all of the list when nothing
// was added, removed or moved), through an index by key after it.
func (w *walker) listMap(s *structure, nl, ol []interface{}, p *field.Path, depth int) {
	n := alignedPrefix(s, nl, ol)
	for i := 0; i < n && !w.done(); i++ {
		if _, ok := keyOf(s, nl[i]); ok && w.enters(s.items, nl[i], ol[i], depth+1) {
			w.walk(s.items, nl[i], ol[i], w.atIndex(p, i), depth+1)
		}
	}
	if n == len(nl) || n == len(ol) || w.done() {
		return
	}
	// The prefix holds the same keys on both sides, so pairing the rest by
	// rank pairs the whole lists by rank.
	rest := ol[n:]
	old := w.c.newKeyIndex(s, rest)
	defer w.c.putIndex(old.idx)
	for i := n; i < len(nl); i++ {
		m, ok := keyOf(s, nl[i])
		if !ok {
			continue
		}
		if j := old.find(w.c, m, true); j >= 0 && w.enters(s.items, nl[i], rest[j], depth+1) {
			// Reported at the index in the new object.
			w.walk(s.items, nl[i], rest[j], w.atIndex(p, i), depth+1)
			if w.done() {
				return
			}
		}
	}
}

// listKeys checks that a list map has the same set of keys in both objects.
// Removed keys are reported in old order, then added keys in new order;
// each key once.
func (w *walker) listKeys(s *structure, nl, ol []interface{}, p *field.Path) {
	if len(nl) == len(ol) && alignedPrefix(s, nl, ol) == len(nl) {
		return
	}
	oldIdx := w.c.newKeyIndex(s, ol)
	defer w.c.putIndex(oldIdx.idx)
	newIdx := w.c.newKeyIndex(s, nl)
	defer w.c.putIndex(newIdx.idx)
	for i, item := range ol {
		if m, ok := keyOf(s, item); ok && oldIdx.find(w.c, m, false) == i && newIdx.find(w.c, m, false) < 0 {
			if !w.report {
				w.found = true
				return
			}
			w.keyChanged(p, formatKey(s, m), false)
		}
	}
	for i, item := range nl {
		if m, ok := keyOf(s, item); ok && newIdx.find(w.c, m, false) == i && oldIdx.find(w.c, m, false) < 0 {
			if !w.report {
				w.found = true
				return
			}
			w.keyChanged(p, formatKey(s, m), true)
		}
	}
}

// keyIndex finds the items of a list map by key.
type keyIndex struct {
	s     *structure
	items []interface{}
	idx   *hashIndex
}

func (c *Checker) newKeyIndex(s *structure, items []interface{}) keyIndex {
	x := keyIndex{s: s, items: items, idx: c.index(len(items))}
	for i := len(items) - 1; i >= 0; i-- {
		if m, ok := keyOf(s, items[i]); ok {
			x.idx.add(c.keyHash(s, m), i)
		}
	}
	return x
}

// find returns the index of the first item with the key of m, or -1; with
// take, that item is removed from the index.
func (x *keyIndex) find(c *Checker, m itemKey, take bool) int {
	return x.idx.find(c.keyHash(x.s, m), func(i int) bool {
		other, _ := keyOf(x.s, x.items[i])
		return sameKey(x.s, m, other)
	}, take)
}

// keyHash hashes the key of a keyed item.
func (c *Checker) keyHash(s *structure, m itemKey) uint64 {
	h := uint64(len(s.listKeys))
	for i := range s.listKeys {
		h = c.h.mix(h, c.hashValue(nil, m.get(s, i), 0))
	}
	return h
}

// formatKey renders the key of an item for a message, as a JSON object with
// the key properties in x-kubernetes-list-map-keys order: {"name":"http"}.
func formatKey(s *structure, m itemKey) string {
	values := make([]string, len(s.listKeys))
	for i := range s.listKeys {
		values[i] = formatScalar(m.get(s, i))
	}
	return immutable.FormatKey(s.listKeys, values...)
}
