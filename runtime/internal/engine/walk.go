package engine

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/immutable"
)

// walker walks a new and an old value together, setBelow by the plan.
//
// A check walks twice at most. The first walk only looks for a violation:
// it tracks no paths, allocates nothing and stops at the first violation.
// Only if it finds one, a second walk builds paths, visits map keys in
// order and collects every violation. Paths are field.Paths, built below
// the caller's fldPath on the second walk only: each element is a heap
// allocation, and the first walk allocates nothing.
type walker struct {
	c       *Checker
	report  bool // second walk: build paths and collect errors
	found   bool // first walk: a violation exists
	errs    field.ErrorList
	tooDeep bool // a too-deep violation was reported; report it once
	// marshal: report a changed value kept as bytes as a MarshaledValue
	// (ValidateUpdateMarshaled).
	marshal bool
	// self and oldSelf are the objects of the update, which conditions
	// read; conds evaluates them, made when the first is needed (an update
	// that evaluates none allocates nothing); root is the path of the
	// objects, where a condition's failure is reported.
	self, oldSelf map[string]interface{}
	conds         *conditions
	root          *field.Path
}

// done reports whether the first walk can stop.
func (w *walker) done() bool { return w.found && !w.report }

// maxProbeDepth bounds the depth at which the second walk probes a value
// before it enters it (enters): below it, it enters every value, as the
// first walk does. Each probe reads at most the value probed, and the
// second walk probes only the values inside those it enters, so the
// probes read each part of the objects at most maxProbeDepth times: the
// walk stays linear in the objects' size however deep they nest.
const maxProbeDepth = 32

// enters reports whether the walk goes into the values nv and ov at n,
// present in both, at depth: the first walk always; the second walk,
// which builds paths (a heap allocation each), only where a first walk
// of the values finds a violation, so that a violation allocates its
// error and its path, not the paths of everything beside it.
func (w *walker) enters(n *node, nv, ov interface{}, depth int) bool {
	if !w.report || depth > maxProbeDepth {
		return true
	}
	probe := walker{c: w.c, self: w.self, oldSelf: w.oldSelf, conds: w.conds}
	probe.walk(n, nv, ov, nil, depth)
	if w.conds == nil {
		w.conds = probe.conds // the conditions it evaluated, not evaluated again
	}
	return probe.found
}

// at returns the path of property name below p, on the second walk only.
func (w *walker) at(p *field.Path, name string) *field.Path {
	if !w.report {
		return nil
	}
	return p.Child(name)
}

// atKey returns the path of map key k below p, on the second walk only.
func (w *walker) atKey(p *field.Path, k string) *field.Path {
	if !w.report {
		return nil
	}
	return p.Key(k)
}

// atIndex returns the path of list index i below p, on the second walk only.
func (w *walker) atIndex(p *field.Path, i int) *field.Path {
	if !w.report {
		return nil
	}
	return p.Index(i)
}

// walk checks the values at n, present in both objects.
func (w *walker) walk(n *node, nv, ov interface{}, p *field.Path, depth int) {
	if n.when != nil {
		w.conditional(n, nv, ov, p, depth)
		return
	}
	w.walkAt(n, nv, ov, p, depth)
}

// walkAt is walk without n's condition.
func (w *walker) walkAt(n *node, nv, ov interface{}, p *field.Path, depth int) {
	if n.whole() {
		w.whole(n, nv, ov, p, depth)
		return
	}
	if depth >= MaxDepth {
		w.deep(p)
		return
	}
	if l, ok := nv.(*lazyValue); ok {
		if nv == ov {
			return // the same bytes on both sides (lazy.go)
		}
		nv = l.value()
	}
	if n.immutableKeys && !w.keys(n, nv, ov, p, depth) {
		return
	}
	w.below(n.structure, nv, ov, p, depth)
}

// below checks what is marked below n, on values present in both.
func (w *walker) below(s *structure, nv, ov interface{}, p *field.Path, depth int) {
	if !s.marked {
		return
	}
	// Descend only where both values have the type the schema describes: a
	// null or mistyped parent is like an absent one.
	if nm, ok := asObject(nv); ok {
		if om, ok := asObject(ov); ok {
			w.object(s, nm, om, p, depth)
		}
		return
	}
	if nl, ok := asList(nv); ok {
		if ol, ok := asList(ov); ok {
			w.list(s, nl, ol, p, depth)
		}
	}
}

// whole checks values compared whole, present in both. Values DecodeObject
// kept as bytes (rawValue) are equal when their bytes are; where their
// bytes differ, the first walk reports a violation without decoding them,
// and the second walk, which builds the report, decodes and compares them.
// A second walk that finds nothing reports nothing.
func (w *walker) whole(n *node, nv, ov interface{}, p *field.Path, depth int) {
	if sameBytes(nv, ov) {
		return
	}
	raw := bothRaw(nv, ov)
	if raw && n.comparesSets() {
		// A set below: compared by canonical bytes, not decoded, where
		// the bytes are canonical.
		nr, or := nv.(*rawValue), ov.(*rawValue)
		switch w.c.compareRaw(n, nr, or) {
		case same:
			return
		case differ:
			if !w.report {
				w.found = true
				return
			}
			w.errs = append(w.errs, w.changedRaw(nr, p))
			return
		}
	}
	if raw && !w.report {
		w.found = true
		return
	}
	if raw && !n.comparesSets() {
		nr, or := nv.(*rawValue), ov.(*rawValue)
		switch {
		case canonical(nr) && canonical(or):
			// Both bytes are their own texts, exact, and differ: the
			// values differ (canonical). The API server writes custom
			// resources so.
			w.errs = append(w.errs, w.changedRaw(nr, p))
			return
		case w.marshal:
			// Compared by their JSON as json.Marshal writes them, which
			// the report quotes, unless the texts leave it unsure.
			switch vd, e := marshalChanged(nr, or, p); vd {
			case same:
				return
			case differ:
				w.errs = append(w.errs, e)
				return
			}
		}
		// The new value is needed for the report; the old one is compared
		// as it is, unless its bytes leave it unsure.
		nd := decoded(nv)
		switch compareText(nd, or) {
		case same:
			return
		case differ:
			w.errs = append(w.errs, immutable.Changed(p, nd))
			return
		}
		nv = nd
	}
	nv, ov = decoded(nv), decoded(ov)
	if w.c.equal(n, nv, ov, depth) {
		return
	}
	if raw {
		// Decoded JSON, no deeper than the decoder allows: nothing in it
		// is unusable (see changed).
		w.errs = append(w.errs, immutable.Changed(p, nv))
		return
	}
	w.changed(nv, ov, p, depth)
}

// object checks the properties of an object present in both.
func (w *walker) object(s *structure, nm, om map[string]interface{}, p *field.Path, depth int) {
	for i := range s.walkProps {
		if w.done() {
			return
		}
		pr := &s.walkProps[i]
		nv, inNew := nm[pr.name]
		ov, inOld := om[pr.name]
		switch {
		case inNew && inOld:
			if w.enters(pr.node, nv, ov, depth+1) {
				w.walk(pr.node, nv, ov, w.at(p, pr.name), depth+1)
			}
		case inNew != inOld && pr.node.hasMark():
			// Immutable once set: absent in old, it may be set now; fixed
			// while present: it may come and go.
			switch {
			case !pr.node.guardsPresence(inNew):
			case pr.node.when != nil:
				sub := w.sub()
				at := w.at(p, pr.name)
				sub.presence(pr.node, at, pr.name, inNew)
				w.gate(pr.node.when, &sub, at)
			default:
				w.presence(pr.node, w.at(p, pr.name), pr.name, inNew)
			}
		}
	}
	if s.walkAdd {
		w.entries(s, nm, om, p, depth)
	}
}

// entries checks the values of the map keys present in both; keys may come
// and go. The second walk visits keys in order, for a deterministic report.
func (w *walker) entries(s *structure, nm, om map[string]interface{}, p *field.Path, depth int) {
	if !w.report {
		for k, nv := range nm {
			if ov, ok := om[k]; ok && !s.isProp(k) {
				w.walk(s.additional, nv, ov, nil, depth+1)
				if w.found {
					return
				}
			}
		}
		return
	}
	// The keys whose values violate, in order: none is allocated for the
	// others.
	var keys []string
	for k, nv := range nm {
		if ov, ok := om[k]; ok && !s.isProp(k) && w.enters(s.additional, nv, ov, depth+1) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.walk(s.additional, nm[k], om[k], w.atKey(p, k), depth+1)
	}
}

func (s *structure) isProp(k string) bool {
	if s.propIndex == nil {
		return false
	}
	_, ok := s.propIndex[k]
	return ok
}

// list checks the items of a list present in both.
func (w *walker) list(s *structure, nl, ol []interface{}, p *field.Path, depth int) {
	if !s.walkItems {
		return
	}
	switch s.listType {
	case listSet:
		// Items are their own identity: nothing to correlate.
	case listMap:
		w.listMap(s, nl, ol, p, depth)
	default:
		// Atomic: correlate by index. Appending and truncating are allowed.
		n := min(len(nl), len(ol))
		for i := 0; i < n && !w.done(); i++ {
			if w.enters(s.items, nl[i], ol[i], depth+1) {
				w.walk(s.items, nl[i], ol[i], w.atIndex(p, i), depth+1)
			}
		}
	}
}

// keys checks a node with immutable keys (its presence was checked by the
// parent). It reports false when the values are not of the keyed kind the
// schema describes and were compared as values instead, so there is nothing
// to descend into.
func (w *walker) keys(n *node, nv, ov interface{}, p *field.Path, depth int) bool {
	s := n.structure
	if nm, ok := asObject(nv); ok && s.allowsAdditional {
		if om, ok := asObject(ov); ok {
			w.mapKeys(s, nm, om, p)
			return true
		}
	}
	if nl, ok := asList(nv); ok && s.listType == listMap {
		if ol, ok := asList(ov); ok {
			w.listKeys(s, nl, ol, p)
			return true
		}
	}
	if !w.c.equal(n, nv, ov, depth) {
		w.changed(nv, ov, p, depth)
	}
	return false
}

// mapKeys checks that a map has the same keys in both objects.
func (w *walker) mapKeys(s *structure, nm, om map[string]interface{}, p *field.Path) {
	if len(nm) == len(om) {
		same := true
		for k := range nm {
			if _, ok := om[k]; !ok {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	if !w.report {
		w.found = true
		return
	}
	type change struct {
		key   string
		added bool
	}
	var changes []change
	for k := range nm {
		if _, ok := om[k]; !ok {
			changes = append(changes, change{k, true})
		}
	}
	for k := range om {
		if _, ok := nm[k]; !ok {
			changes = append(changes, change{k, false})
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return strings.Compare(a.key, b.key) })
	for _, ch := range changes {
		w.keyChanged(p, quoteKey(ch.key), ch.added)
	}
}
