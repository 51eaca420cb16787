package immutable

import (
	"cmp"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Walk is the state of one check by a generated validator. Like the
// unstructured runtime, a check walks twice at most: a first walk (Report
// false) builds no path, allocates nothing and stops at the first
// violation; only if it found one, a second walk (Report true) builds paths
// and collects every violation in order.
type Walk struct {
	// Report is true on the second walk.
	Report bool
	found  bool
	errs   field.ErrorList
}

// Violation records that a violation was found and reports whether the
// caller must build it and Add it (on the second walk).
func (w *Walk) Violation() bool {
	w.found = true
	return w.Report
}

// Add appends a violation (built on the second walk).
func (w *Walk) Add(e *field.Error) { w.errs = append(w.errs, e) }

// Found reports whether a violation was found.
func (w *Walk) Found() bool { return w.found }

// Done reports whether the first walk can stop.
func (w *Walk) Done() bool { return w.found && !w.Report }

// Errors returns the violations collected.
func (w *Walk) Errors() field.ErrorList { return w.errs }

// Child is the path of property name below the path p, on the second walk
// only (the first walk gets ""). Paths are rendered as field.Path renders
// them (see PathChild); the root is "".
func (w *Walk) Child(p, name string) string {
	if !w.Report {
		return ""
	}
	return pathChild(p, name)
}

// Index is the path of list index i below the path p, on the second walk
// only.
func (w *Walk) Index(p string, i int) string {
	if !w.Report {
		return ""
	}
	return pathIndex(p, i)
}

// ChildIndex is the path of index i of the list property name below the
// path p, on the second walk only: Index(Child(p, name), i), built at once.
func (w *Walk) ChildIndex(p, name string, i int) string {
	if !w.Report {
		return ""
	}
	return pathChildIndex(p, name, i)
}

// Key is the path of map key k below the path p, on the second walk only.
// Like field.Path.Key, the key is written as it is, unquoted.
func (w *Walk) Key(p, k string) string {
	if !w.Report {
		return ""
	}
	return pathKey(p, k)
}

// ChildKey is the path of key k of the map property name below the path p,
// on the second walk only: Key(Child(p, name), k), built at once.
func (w *Walk) ChildKey(p, name, k string) string {
	if !w.Report {
		return ""
	}
	return pathChildKey(p, name, k)
}

// The renderings of index and key steps are kept out of line
// (go:noinline): the first walk, which every check makes, only tests
// w.Report at each step, and the walk functions stay as small as they were
// with field.Path. A property step (pathChild) is inlined: a short path
// passed down to a walk function, which only copies it, can then be built
// on the stack.

// pathChild renders the path of property name below the path p as
// field.Path does: "name" at the root (p ""), "p.name" below, and "p[]" for
// the empty name (field.Path writes a nameless element as a subscript). No
// path but the root renders as "".
func pathChild(p, name string) string {
	switch {
	case name == "":
		return p + "[]"
	case p == "":
		return name
	}
	return p + "." + name
}

// SortedKeys returns the keys of m in order, for the second walk, which
// reports violations inside map values in key order.
func SortedKeys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// SameKeys reports whether a and b have the same keys.
func SameKeys[M ~map[K]V, K comparable, V any](a, b M) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// KeyChange is a key added to or removed from a map or a list map.
type KeyChange[K any] struct {
	Key   K
	Added bool
}

// MapKeyChanges returns the keys added to (in nm, not om) and removed from
// (in om, not nm) a map, sorted by key.
func MapKeyChanges[M ~map[K]V, K cmp.Ordered, V any](nm, om M) []KeyChange[K] {
	var out []KeyChange[K]
	for k := range nm {
		if _, ok := om[k]; !ok {
			out = append(out, KeyChange[K]{k, true})
		}
	}
	for k := range om {
		if _, ok := nm[k]; !ok {
			out = append(out, KeyChange[K]{k, false})
		}
	}
	slices.SortFunc(out, func(a, b KeyChange[K]) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// SameMultiset reports whether a and b, of the same length, hold the same
// items as multisets (a listType=set compared by value, order ignored). For
// item types whose Go equality is their JSON equality (scalars, structs of
// scalars). It allocates nothing when the items are equal in order.
func SameMultiset[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	a, b = a[i:], b[i:]
	switch len(a) {
	case 0:
		return true
	case 1:
		return false
	}
	counts := make(map[T]int, len(a))
	for _, x := range a {
		counts[x]++
	}
	for _, y := range b {
		if counts[y] == 0 {
			return false
		}
		counts[y]--
	}
	return true
}

// A KeyFunc returns the key of a list-map item, and whether it has one: an
// item has a key when every x-kubernetes-list-map-keys property is present
// with a non-null scalar, as in the API server's own correlation.
type KeyFunc[E any, K comparable] func(*E) (K, bool)

// Pair is a new list-map item correlated with an old one, by index.
type Pair struct{ New, Old int }

// PairByKey correlates the keyed items of nl with those of ol by key,
// duplicates in order (the n-th new item with a key goes with the n-th old
// one), and returns the pairs in the order of nl.
func PairByKey[E any, K comparable](nl, ol []E, key KeyFunc[E, K]) []Pair {
	old := make(map[K][]int, len(ol))
	for i := range ol {
		if k, ok := key(&ol[i]); ok {
			old[k] = append(old[k], i)
		}
	}
	var out []Pair
	for i := range nl {
		k, ok := key(&nl[i])
		if !ok {
			continue
		}
		if js := old[k]; len(js) > 0 {
			out = append(out, Pair{i, js[0]})
			old[k] = js[1:]
		}
	}
	return out
}

// ListKeyChanges returns the keys of a list map removed (in ol, not nl; in
// the order of ol) and added (in nl, not ol; in the order of nl), each key
// once: key tuples compare as a set.
func ListKeyChanges[E any, K comparable](nl, ol []E, key KeyFunc[E, K]) []KeyChange[K] {
	keys := func(l []E) map[K]bool {
		m := make(map[K]bool, len(l))
		for i := range l {
			if k, ok := key(&l[i]); ok {
				m[k] = true
			}
		}
		return m
	}
	inNew, inOld := keys(nl), keys(ol)
	seen := map[K]bool{}
	var out []KeyChange[K]
	for i := range ol {
		if k, ok := key(&ol[i]); ok && !inNew[k] && !seen[k] {
			seen[k] = true
			out = append(out, KeyChange[K]{k, false})
		}
	}
	for i := range nl {
		if k, ok := key(&nl[i]); ok && !inOld[k] && !seen[k] {
			seen[k] = true
			out = append(out, KeyChange[K]{k, true})
		}
	}
	return out
}

//go:noinline
func pathIndex(p string, i int) string {
	return p + "[" + strconv.Itoa(i) + "]"
}

//go:noinline
func pathKey(p, k string) string {
	return p + "[" + k + "]"
}

// pathChildIndex is pathIndex(pathChild(p, name), i) in one concatenation.
//
//go:noinline
func pathChildIndex(p, name string, i int) string {
	switch {
	case name == "":
		return p + "[][" + strconv.Itoa(i) + "]"
	case p == "":
		return name + "[" + strconv.Itoa(i) + "]"
	}
	return p + "." + name + "[" + strconv.Itoa(i) + "]"
}

// pathChildKey is pathKey(pathChild(p, name), k) in one concatenation.
//
//go:noinline
func pathChildKey(p, name, k string) string {
	switch {
	case name == "":
		return p + "[][" + k + "]"
	case p == "":
		return name + "[" + k + "]"
	}
	return p + "." + name + "[" + k + "]"
}
