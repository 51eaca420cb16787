package engine

import (
	"hash/maphash"
	"math/bits"
)

// hasher hashes JSON values consistently with equality: equal values hash
// the same (set items and object entries are combined by addition, so order
// does not matter; numbers hash their canonical form). The keys are random
// per Checker, so hashes cannot be precomputed to force collisions; equality
// decides anyway.
type hasher struct {
	seed   maphash.Seed
	k0, k1 uint64
}

func newHasher() hasher {
	seed := maphash.MakeSeed()
	return hasher{seed: seed, k0: maphash.String(seed, "k0"), k1: maphash.String(seed, "k1")}
}

// mix combines two words (the folded 128-bit product of wyhash).
func (h *hasher) mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a^h.k0, b^h.k1)
	return hi ^ lo
}

const (
	tagNull uint64 = iota + 1
	tagFalse
	tagTrue
	tagString
	tagNumber
	tagObject
	tagList
	tagSet
	tagBad
)

// hashValue hashes v at schema node n (nil: no schema).
func (c *Checker) hashValue(n *node, v interface{}, depth int) uint64 {
	h := &c.h
	switch x := v.(type) {
	case nil:
		return h.mix(tagNull, 0)
	case string:
		return h.mix(tagString, maphash.String(h.seed, x))
	case bool:
		if x {
			return h.mix(tagTrue, 0)
		}
		return h.mix(tagFalse, 0)
	case map[string]interface{}:
		if x == nil {
			return h.mix(tagNull, 0)
		}
		if depth >= MaxDepth {
			return h.mix(tagBad, 0)
		}
		var s *structure
		if n.comparesSets() {
			s = n.structure
		}
		var sum uint64
		for k, e := range x {
			var cn *node
			if s != nil {
				cn = s.child(k)
			}
			sum += h.mix(maphash.String(h.seed, k), c.hashValue(cn, e, depth+1))
		}
		return h.mix(tagObject+uint64(len(x))<<8, sum)
	case []interface{}:
		if x == nil {
			return h.mix(tagNull, 0)
		}
		if depth >= MaxDepth {
			return h.mix(tagBad, 0)
		}
		var item *node
		set := false
		if n.comparesSets() {
			item, set = n.structure.items, n.structure.listType == listSet
		}
		if set {
			var sum uint64
			for _, e := range x {
				sum += h.mix(tagSet, c.hashValue(item, e, depth+1))
			}
			return h.mix(tagSet+uint64(len(x))<<8, sum)
		}
		acc := tagList + uint64(len(x))<<8
		for _, e := range x {
			acc = h.mix(acc, c.hashValue(item, e, depth+1))
		}
		return acc
	}
	num, ok := toNumber(v)
	if !ok || num.kind == numInvalid {
		return h.mix(tagBad, 0)
	}
	return h.mix(tagNumber+uint64(num.kind)<<8, num.bits)
}
