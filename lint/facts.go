package lint

import celast "github.com/google/cel-go/common/ast"

// facts are the unknowns an abstract evaluation of CEL rules depends on
// (a field's presence in the old or the new object, an opaque condition),
// found as the evaluation asks for them, and the search over their values
// that the presence analyses (blocked, bypass) share.
type facts[K comparable] struct {
	order    []K // the facts asked for, in the order first asked
	seen     map[K]int
	assigned map[K]bool
	// counting is set during the first pass of exists, when seen counts
	// how many times each fact is asked.
	counting bool
}

func newFacts[K comparable]() *facts[K] {
	return &facts[K]{seen: map[K]int{}, assigned: map[K]bool{}}
}

// lookup returns the value assigned to k and true, or false when k has
// none (it is unknown); k is recorded as a fact to try.
func (f *facts[K]) lookup(k K) (value, ok bool) {
	if v, ok := f.assigned[k]; ok {
		return v, true
	}
	if f.seen[k] == 0 {
		f.order = append(f.order, k)
	}
	if f.counting || f.seen[k] == 0 {
		f.seen[k]++
	}
	return false, false
}

// exists reports whether test holds for some values of the facts. test
// must hold with a fact unknown whenever it holds for some value of it (the
// evaluation over-approximates): a first pass with every fact unknown then
// finds the facts test depends on, and proves that none holds if it fails;
// then every combination of the first maxPresenceVars facts asked more
// than once is tried, the other facts left unknown. A fact asked once in
// the first pass — which evaluates every operand — is read in one place
// only: left unknown, it gives that place both of its values, as trying
// each would, and it costs no combinations (a rule reading many values
// lint cannot decide, each once, would otherwise try 2^10).
func (f *facts[K]) exists(test func() bool) bool {
	clear(f.assigned)
	f.counting = true
	ok := test()
	f.counting = false
	if !ok {
		return false
	}
	var vars []K
	for _, k := range f.order {
		if f.seen[k] > 1 && len(vars) < maxPresenceVars {
			vars = append(vars, k)
		}
	}
	if len(vars) == 0 {
		return true
	}
	for mask := 0; mask < 1<<len(vars); mask++ {
		clear(f.assigned)
		for i, v := range vars {
			f.assigned[v] = mask&(1<<i) != 0
		}
		if test() {
			return true
		}
	}
	return false
}

// A two-step bypass (celAnalysis.bypass) involves three objects: O1, the
// old one, with the optional property present; O2, without it; O3, with it
// added back. Mode 0 is the direct change O1→O3 that a rule rejects, mode
// 1 the removal O1→O2, mode 2 the addition O2→O3. stepObjects names the
// old and the new object of a mode.
func stepObjects(mode int) (old, new string) {
	switch mode {
	case 1:
		return "O1", "O2"
	case 2:
		return "O2", "O3"
	}
	return "O1", "O3"
}

// objectsRead names the objects that e reads in mode m, when self is the
// old (selfOld) or the new object of the mode: a condition is a function
// of them, so it is one fact wherever they are the same objects (the
// removal and the direct change share O1, the addition and the direct
// change O3), and two facts where they are not.
func objectsRead(mode int, selfOld bool, e celast.Expr) string {
	old, new := stepObjects(mode)
	self := new
	if selfOld {
		self = old
	}
	key := ""
	if usesIdent(e, "self") {
		key += "self=" + self + " "
	}
	if usesIdent(e, "oldSelf") {
		key += "oldSelf=" + old
	}
	return key
}
