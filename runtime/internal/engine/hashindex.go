package engine

// hashIndex finds items by a 64-bit hash in expected constant time: an
// open-addressing table of the distinct hashes, each heading a chain of the
// items with that hash, in insertion order. Callers compare the items of a
// chain by value, so collisions cost time, never correctness; taking an item
// out of its chain keeps lookups constant time even when all items are
// equal.
type hashIndex struct {
	mask  uint64
	slots []hashSlot
	next  []int32 // 1 + index of the next item in the chain; 0 ends it
}

type hashSlot struct {
	h    uint64
	head int32 // 1 + index of the first item; 0: none (left)
	used bool
}

// reset makes x an empty index for n items, reusing its memory where it
// is large enough.
func (x *hashIndex) reset(n int) {
	size := 8
	for size < 2*n {
		size <<= 1
	}
	if cap(x.slots) < size {
		x.slots = make([]hashSlot, size)
	} else {
		x.slots = x.slots[:size]
		clear(x.slots)
	}
	if cap(x.next) < n {
		x.next = make([]int32, n)
	} else {
		x.next = x.next[:n]
	}
	x.mask = uint64(size - 1)
}

// maxPooledItems bounds the items of an index the pool keeps: a huge
// list's index is left to the garbage collector.
const maxPooledItems = 1 << 16

// index returns an empty index for n items from c's pool; putIndex gives
// it back. Comparisons nest (a set inside a set's items), so each takes
// its own.
func (c *Checker) index(n int) *hashIndex {
	x, _ := c.indices.Get().(*hashIndex)
	if x == nil {
		x = new(hashIndex)
	}
	x.reset(n)
	return x
}

// putIndex returns x to c's pool, unless it is huge.
func (c *Checker) putIndex(x *hashIndex) {
	if cap(x.next) <= maxPooledItems {
		c.indices.Put(x)
	}
}

// slot returns the slot of hash h, or the empty slot where it would go.
func (x *hashIndex) slot(h uint64) *hashSlot {
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		if s := &x.slots[i]; !s.used || s.h == h {
			return s
		}
	}
}

// add puts item i with hash h in front of its chain: add items in
// decreasing index order to chain them in list order.
func (x *hashIndex) add(h uint64, i int) {
	s := x.slot(h)
	s.used, s.h = true, h
	x.next[i] = s.head
	s.head = int32(i + 1)
}

// find returns the first item with hash h for which match holds, or -1;
// with take, the item leaves its chain.
func (x *hashIndex) find(h uint64, match func(i int) bool, take bool) int {
	s := x.slot(h)
	if !s.used {
		return -1
	}
	var prev int32
	for k := s.head; k != 0; prev, k = k, x.next[k-1] {
		if !match(int(k - 1)) {
			continue
		}
		if take {
			if prev == 0 {
				s.head = x.next[k-1]
			} else {
				x.next[prev-1] = x.next[k-1]
			}
		}
		return int(k - 1)
	}
	return -1
}
