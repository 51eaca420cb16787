package engine

import "github.com/immutable-gen/immutable-gen/runtime/when"

// node is one position of the compiled schema: the immutability of the value
// there, and its structure. Nodes reached through the same $ref share their
// structure, so a recursive schema compiles into a finite, possibly cyclic graph.
type node struct {
	immutable     bool // x-kubernetes-immutable: the whole value is fixed
	immutableKeys bool // x-kubernetes-immutable-keys: the keys are fixed
	immutableOnce bool // x-immutable-gen-immutable-once: fixed once present
	ignoreOrder   bool // x-immutable-gen-ignore-order: list maps in the value compare by key
	noModify      bool // x-immutable-gen-no-modify: fixed while present
	noSet         bool // x-immutable-gen-no-set: may not be added
	noUnset       bool // x-immutable-gen-no-unset: may not be removed
	// when, if not nil, is x-immutable-gen-when: the flags above hold only
	// in an update where the condition is true.
	when *when.Expr
	// ordered, for a node with a condition and
	// x-immutable-gen-ignore-order, is its structure with list maps (the
	// structure compares as sets): what is marked below it is checked
	// there, where the condition does not hold.
	ordered *structure
	*structure
}

// structure is what the schema says about the value at a position, as far
// as immutability cares: its properties, additional properties, items and
// list type.
type structure struct {
	props            []property       // properties, sorted by name
	propIndex        map[string]*node // properties by name
	additional       *node            // additionalProperties schema, nil if none or a boolean
	allowsAdditional bool             // additionalProperties is present (a schema or true)
	items            *node            // items schema, nil if none
	listType         listType
	listKeys         []string // x-kubernetes-list-map-keys for listType map
	kind             string   // for x-kubernetes-immutable-keys: "" if it has keys, else what it is (keysKind)

	// Derived once the whole graph is compiled.
	marked    bool       // some node strictly below is immutable or has immutable keys
	setBelow  bool       // a listType=set list is here or below: equality follows the schema
	walkProps []property // the props that need a walk: marked, or marked below
	walkAdd   bool       // additional needs a walk
	walkItems bool       // items need a walk
	keyProps  *structure // for a list map, listKeyStructure: what the decoder keeps of its items
}

type property struct {
	name string
	node *node
}

type listType uint8

const (
	listAtomic listType = iota
	listSet
	listMap
)

// hasMark reports whether n itself carries an immutability extension.
func (n *node) hasMark() bool {
	return n.immutable || n.immutableKeys || n.immutableOnce || n.noModify || n.noSet || n.noUnset
}

// whole reports whether the value at n is compared whole when present in
// both: immutable, or immutable once set.
func (n *node) whole() bool { return n.immutable || n.immutableOnce || n.noModify }

// guardsPresence reports whether adding (added) or removing the property
// at n is a violation: never for fixed while present; removal only for
// immutable once set; both for the others.
func (n *node) guardsPresence(added bool) bool {
	if n.immutable || n.immutableKeys {
		return true
	}
	if added {
		return n.noSet
	}
	return n.immutableOnce || n.noUnset
}

// needsWalk reports whether the walk must visit n: n or something below it
// is marked.
func (n *node) needsWalk() bool {
	return n != nil && (n.hasMark() || (n.structure != nil && n.structure.marked))
}

// comparesSets reports whether equality at n must follow the schema
// because a set, whose items compare in any order, is at n or below.
func (n *node) comparesSets() bool {
	return n != nil && n.structure != nil && n.structure.setBelow
}

// child returns the schema of key k of an object at this structure, or nil if
// the key is unknown to the schema.
func (s *structure) child(k string) *node {
	if c, ok := s.propIndex[k]; ok {
		return c
	}
	return s.additional
}

// children calls f for every node directly below s.
func (s *structure) children(f func(*node)) {
	for _, p := range s.props {
		f(p.node)
	}
	if s.additional != nil {
		f(s.additional)
	}
	if s.items != nil {
		f(s.items)
	}
}
