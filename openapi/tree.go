package openapi

import (
	"go/types"
	"slices"

	"k8s.io/kube-openapi/pkg/common"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/schema"
)

// The immutability model of a definition: the schema tree of a value of its
// type as openapi-gen describes it, with the definitions it refers to
// inlined, so that the tree's paths are those of an object and package
// validation sees every marker in its context (the object's root, an
// immutable ancestor, the items of a set). Each node remembers where
// openapi-gen writes its schema, the site a patch goes to.

// site is where openapi-gen writes the schema of a tree node: in which
// definition, at which JSON pointer below its schema, and its path there
// for messages.
type site struct {
	// def is nil outside the definitions this run generates.
	def     *definition
	pointer string
	path    string
}

// below returns the site of a child reached with the pointer step (a
// "/items" or "/additionalProperties") and the path step ("[*]").
func (s site) below(pointer, path string) site {
	return site{def: s.def, pointer: s.pointer + pointer, path: s.path + path}
}

// where names the site in messages: `v1.GadgetSpec.ports[*]`, "" for a
// definition's own schema.
func (s site) where() string {
	if s.pointer == "" {
		return ""
	}
	return s.def.display + "." + s.path
}

// treeNode is what the tree builder knows about one node besides its
// schema.
type treeNode struct {
	site site
	// origins are the markers naming the node in openapi-gen's order: the
	// field's, then those of the named types the field's type goes through,
	// then structOrigins.
	origins []schema.Origin
	// structOrigins are the type markers of the struct type used here,
	// which go on that type's definition (structDef, nil when the run does
	// not generate it), not on the use. Empty at a tree's root, where the
	// definition's type markers are the node's own.
	structOrigins []schema.Origin
	structDef     *definition
	// ignoredListType is the +listType of the named slice type of a list
	// without one, which openapi-gen ignores; listTypeOwner names that type.
	ignoredListType, listTypeOwner string
}

// patched returns the origins a patch at the node's site writes.
func (n *treeNode) patched() []schema.Origin {
	if len(n.structOrigins) == 0 {
		return n.origins
	}
	return n.origins[:len(n.origins)-len(n.structOrigins)]
}

// treeNodeKey holds a node's *treeNode in its schema until schema.BuildWith
// reads the origins (takeTreeNode).
const treeNodeKey = "x-immutable-gen-openapi-node"

func takeTreeNode(raw map[string]any) ([]schema.Origin, error) {
	n, _ := raw[treeNodeKey].(*treeNode)
	delete(raw, treeNodeKey)
	if n == nil {
		return nil, nil
	}
	return n.origins, nil
}

// objectTree is the model of one definition's tree.
type objectTree struct {
	def  *definition
	root *schema.Node
	// nodes are the tree's nodes by JSON pointer below the root
	// (schema.Node.Pointer); order has them as openapi-gen writes them.
	nodes map[string]*treeNode
	order []*treeNode
	// marked is set when a node carries a marker.
	marked bool
}

// treeBuilder builds one objectTree.
type treeBuilder struct {
	a    *analyzer
	tree *objectTree
	// inlining counts the struct types being inlined above the current
	// node: a struct already there is inlined once more, shallowly, and
	// not again.
	inlining map[*types.Named]int
	// shallow is set while the properties of a struct are listed without
	// inlining any struct below them: the struct is inlined a second time,
	// or no marker is reachable from it. Its own properties are what the
	// rules need of it (the keys of a list map it is the items of).
	shallow bool
	// whole counts the nodes above the current one whose marker judges
	// their whole subtree (+immutable:ignoreOrder needs a list map at any
	// depth below it): there, a struct that reaches no marker is inlined
	// all the same, so the tree holds what the CRD's schema holds.
	whole int
}

// tree builds the model of the definition d.
func (a *analyzer) tree(d *definition) (*objectTree, error) {
	b := &treeBuilder{a: a, tree: &objectTree{def: d, nodes: map[string]*treeNode{}}, inlining: map[*types.Named]int{}}
	if !a.marked(d.named) {
		return b.tree, nil // nothing to patch or judge
	}
	n := b.node("", site{def: d}, slices.Clip(a.typeOrigins(d.named.Obj())))
	if judgesSubtree(n.origins) {
		b.whole++
	}
	raw := map[string]any{"type": "object", treeNodeKey: n}
	b.properties(raw, "", d.named)
	root, err := schema.BuildWith(raw, takeTreeNode)
	if err != nil {
		return nil, err
	}
	b.tree.root = root
	return b.tree, nil
}

func (b *treeBuilder) node(pointer string, at site, origins []schema.Origin) *treeNode {
	n := &treeNode{site: at, origins: origins}
	b.tree.nodes[pointer] = n
	b.tree.order = append(b.tree.order, n)
	b.tree.marked = b.tree.marked || len(origins) > 0
	return n
}

// properties adds the properties openapi-gen generates for the struct type
// named to raw, the schema at pointer. They are written in named's
// definition.
func (b *treeBuilder) properties(raw map[string]any, pointer string, named *types.Named) {
	if customDefinition(named) != "" || b.inlining[named] > 1 {
		return
	}
	b.inlining[named]++
	shallow := b.shallow
	b.shallow = shallow || b.inlining[named] > 1 || (!b.a.marked(named) && b.whole == 0)
	defer func() { b.inlining[named]--; b.shallow = shallow }()

	def := b.a.defs[named.Obj()]
	props := map[string]any{}
	var required []any
	for _, p := range b.a.members(named).props {
		step := "/properties/" + common.EscapeJsonPointer(p.name)
		props[p.name] = b.value(pointer+step, site{def: def, pointer: step, path: p.name}, p.field.Type(), p.origins, p.comments, p.asString)
		if p.required {
			required = append(required, p.name)
		}
	}
	raw["properties"] = props
	if len(required) > 0 {
		raw["required"] = required
	}
}

// value returns the schema openapi-gen publishes for a value of Go type t
// at pointer, written at site at; fieldOrigins, comments and asString are
// the field's when the value is a property.
func (b *treeBuilder) value(pointer string, at site, t types.Type, fieldOrigins []schema.Origin, comments []string, asString bool) map[string]any {
	typeOrigins, base := b.a.resolve(t)
	origins := append(slices.Clip(fieldOrigins), typeOrigins...)
	if judgesSubtree(origins) || judgesSubtree(b.a.structOrigins(base)) {
		b.whole++
		defer func() { b.whole-- }()
	}
	n := b.node(pointer, at, nil)
	raw := map[string]any{treeNodeKey: n}
	simple := simpleType(base)
	switch {
	case asString:
		raw["type"] = "string"
	case simple == "object": // interface{}: any value
		raw[extension.PreserveUnknownFields] = true
	case simple != "":
		raw["type"] = simple
	default:
		switch x := base.Underlying().(type) {
		case *types.Struct:
			raw["type"] = "object"
			if named, ok := base.(*types.Named); ok {
				n.structOrigins = b.a.typeOrigins(named.Obj())
				n.structDef = b.a.defs[named.Obj()]
				if !b.shallow {
					b.properties(raw, pointer, named)
				}
			}
		case *types.Slice:
			origins = b.list(raw, pointer, at, t, x.Elem(), origins, comments)
		case *types.Array:
			origins = b.list(raw, pointer, at, t, x.Elem(), origins, comments)
		case *types.Map:
			raw["type"] = "object"
			if mt := tagValue(comments, "mapType"); mt != "" {
				raw[extension.MapType] = mt
			}
			raw["additionalProperties"] = b.value(pointer+"/additionalProperties", at.below("/additionalProperties", "[*]"), x.Elem(), nil, nil, false)
		case *types.Interface:
			raw[extension.PreserveUnknownFields] = true
		}
	}
	n.origins = append(origins, n.structOrigins...)
	b.tree.marked = b.tree.marked || len(n.origins) > 0
	return raw
}

// judgesSubtree reports whether a marker's placement depends on the whole
// subtree below it: +immutable:ignoreOrder needs a list map there, at any
// depth (placement's RuleIgnoreOrder).
func judgesSubtree(origins []schema.Origin) bool {
	return slices.ContainsFunc(origins, func(o schema.Origin) bool { return o.IgnoreOrder })
}

// structOrigins are the type markers of the struct type t, if it is one.
func (a *analyzer) structOrigins(t types.Type) []schema.Origin {
	named, ok := t.(*types.Named)
	if !ok {
		return nil
	}
	if _, ok := named.Underlying().(*types.Struct); !ok {
		return nil
	}
	return a.typeOrigins(named.Obj())
}

// list fills raw, the schema of a list of type t with items of type elem,
// and returns origins with the list's item fields set on =keys markers.
// openapi-gen reads +listType, +listMapKey (and +mapType) from the field's
// comments only, never from a named type.
func (b *treeBuilder) list(raw map[string]any, pointer string, at site, t, elem types.Type, origins []schema.Origin, comments []string) []schema.Origin {
	n := b.tree.nodes[pointer]
	raw["type"] = "array"
	if lt := tagValue(comments, "listType"); lt != "" {
		raw[extension.ListType] = lt
	} else {
		n.ignoredListType, n.listTypeOwner = b.a.typeListType(t)
	}
	if keys := tagValues(comments, "listMapKey"); len(keys) > 0 {
		ks := make([]any, len(keys))
		for i, k := range keys {
			ks[i] = k
		}
		raw[extension.ListMapKeys] = ks
	}
	raw["items"] = b.value(pointer+"/items", at.below("/items", "[*]"), elem, nil, nil, false)
	if !slices.ContainsFunc(origins, func(o schema.Origin) bool { return o.Keys }) {
		return origins
	}
	_, item := b.a.resolve(elem)
	named, ok := item.(*types.Named)
	if !ok {
		return origins
	}
	fields := b.a.itemFields(named)
	origins = slices.Clone(origins)
	for i := range origins {
		if origins[i].Keys {
			origins[i].ItemFields = fields
		}
	}
	return origins
}

// marked reports whether a marker is on the struct type named, on one of
// its fields, or on a type a value of it holds: only then does the struct's
// tree need more than its own properties.
func (a *analyzer) marked(named *types.Named) bool {
	if m, ok := a.markedTypes[named]; ok {
		return m
	}
	visited := map[*types.Named]bool{}
	m := a.reachesMarker(named, visited)
	if !m {
		// Whatever the search visited reaches no marker either.
		for v := range visited {
			a.markedTypes[v] = false
		}
	}
	a.markedTypes[named] = m
	return m
}

func (a *analyzer) reachesMarker(named *types.Named, visited map[*types.Named]bool) bool {
	if m, ok := a.markedTypes[named]; ok {
		return m
	}
	if visited[named] {
		return false
	}
	visited[named] = true
	if len(a.typeOrigins(named.Obj())) > 0 {
		return true
	}
	for _, p := range a.members(named).props {
		if len(p.origins) > 0 || a.valueReachesMarker(p.field.Type(), visited) {
			return true
		}
	}
	return false
}

func (a *analyzer) valueReachesMarker(t types.Type, visited map[*types.Named]bool) bool {
	origins, base := a.resolve(t)
	if len(origins) > 0 {
		return true
	}
	switch x := base.Underlying().(type) {
	case *types.Struct:
		named, ok := base.(*types.Named)
		return ok && a.reachesMarker(named, visited)
	case *types.Slice:
		return a.valueReachesMarker(x.Elem(), visited)
	case *types.Array:
		return a.valueReachesMarker(x.Elem(), visited)
	case *types.Map:
		return a.valueReachesMarker(x.Elem(), visited)
	}
	return false
}
