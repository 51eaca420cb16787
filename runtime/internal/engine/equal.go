package engine

import "math"

// Equality is strict deep equality of JSON values as they would be stored:
// null equals only null; numbers are equal when their values are (1, 1.0,
// int64(1) and json.Number("1") are one number); strings and booleans when
// identical; values of different JSON types never; objects when they have
// the same keys and equal values; lists item by item in order, except lists
// with x-kubernetes-list-type set, which compare as multisets. A value that
// is not JSON (another Go type, NaN, an infinity) equals nothing, not even
// itself, so that it is always reported.

// equal compares a and b at schema node n (nil: no schema).
func (c *Checker) equal(n *node, a, b interface{}, depth int) bool {
	if n.comparesSets() {
		return c.equalWithSets(n.structure, a, b, depth)
	}
	return eqPlain(a, b, depth)
}

// equalWithSets compares where a set is at s or below, so the schema matters:
// set items compare in any order.
func (c *Checker) equalWithSets(s *structure, a, b interface{}, depth int) bool {
	switch x := a.(type) {
	case map[string]interface{}:
		if x == nil {
			return isNull(b)
		}
		y, ok := b.(map[string]interface{})
		if !ok || y == nil || len(x) != len(y) || depth >= MaxDepth {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !c.equal(s.child(k), xv, yv, depth+1) {
				return false
			}
		}
		return true
	case []interface{}:
		if x == nil {
			return isNull(b)
		}
		y, ok := b.([]interface{})
		if !ok || y == nil || len(x) != len(y) || depth >= MaxDepth {
			return false
		}
		if s.listType == listSet {
			return c.equalMultiset(s.items, x, y, depth+1)
		}
		for i := range x {
			if !c.equal(s.items, x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	}
	return eqPlain(a, b, depth)
}

// eqPlain compares without a schema: lists in order.
func eqPlain(a, b interface{}, depth int) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y && !math.IsInf(x, 0)
		}
	case nil:
		return isNull(b)
	case map[string]interface{}:
		if x == nil {
			return isNull(b)
		}
		y, ok := b.(map[string]interface{})
		if !ok || y == nil || len(x) != len(y) || depth >= MaxDepth {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !eqPlain(xv, yv, depth+1) {
				return false
			}
		}
		return true
	case []interface{}:
		if x == nil {
			return isNull(b)
		}
		y, ok := b.([]interface{})
		if !ok || y == nil || len(x) != len(y) || depth >= MaxDepth {
			return false
		}
		for i := range x {
			if !eqPlain(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	}
	xn, ok := toNumber(a)
	if !ok || xn.kind == numInvalid {
		return false
	}
	yn, ok := toNumber(b)
	return ok && xn == yn
}

// equalMultiset compares two lists of the same length as multisets of items
// of schema item, in expected linear time: after the longest common prefix
// (free when nothing changed), the remaining old items are chained by hash
// and every new item takes an equal old item out of its chain.
func (c *Checker) equalMultiset(item *node, x, y []interface{}, depth int) bool {
	i := 0
	for i < len(x) && c.equal(item, x[i], y[i], depth) {
		i++
	}
	x, y = x[i:], y[i:]
	switch len(x) {
	case 0:
		return true
	case 1:
		return false // the only remaining pair differs
	}
	idx := c.index(len(x))
	defer c.putIndex(idx)
	for i := len(x) - 1; i >= 0; i-- {
		idx.add(c.hashValue(item, x[i], depth), i)
	}
	for _, yv := range y {
		if idx.find(c.hashValue(item, yv, depth), func(i int) bool { return c.equal(item, x[i], yv, depth) }, true) < 0 {
			return false
		}
	}
	return true
}
