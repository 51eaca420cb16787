package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// The Kubernetes extensions Compile reads beside the immutability ones
// (named in package runtime/extension).
const (
	extListType     = extension.ListType
	extListMapKeys  = extension.ListMapKeys
	extMapType      = extension.MapType
	extPreserve     = extension.PreserveUnknownFields
	extEmbedded     = extension.EmbeddedResource
	extIntOrString  = extension.IntOrString
	maxSchemaErrors = 100 // Compile reports at most this many errors
)

// Compile compiles a schema carrying x-kubernetes-immutable,
// x-kubernetes-immutable-keys, x-immutable-gen-immutable-once,
// x-immutable-gen-no-modify and x-immutable-gen-ignore-order into a
// Checker. A $ref resolves against
// s.Definitions. Compile only reads s; s may be modified or reused
// afterwards without affecting the Checker.
//
// Compile fails, naming the schema path, when an extension has a value other
// than the boolean true, when x-kubernetes-immutable-keys is on a node
// without keys (neither additionalProperties nor x-kubernetes-list-type map),
// on malformed list and map extensions, on a $ref it cannot resolve, and when
// an immutability extension sits where it would have no effect (inside
// allOf, anyOf, oneOf, not, or next to a $ref).
func Compile(s *spec.Schema) (*Checker, error) {
	if s == nil {
		return nil, errors.New("runtime.Compile: nil schema")
	}
	return compileRoot(s, s.Definitions, "")
}

// CompileWithDefinitions is Compile with $refs resolved against defs. A ref
// "#/definitions/NAME", "#/components/schemas/NAME" or "NAME" resolves to
// defs[NAME] (NAME JSON-pointer unescaped).
func CompileWithDefinitions(s *spec.Schema, defs spec.Definitions) (*Checker, error) {
	if s == nil {
		return nil, errors.New("runtime.CompileWithDefinitions: nil schema")
	}
	return compileRoot(s, defs, "")
}

func compileRoot(s *spec.Schema, defs map[string]spec.Schema, path string) (*Checker, error) {
	c := newCompiler(defs)
	root := &node{}
	c.compileInto(root, s, path, 0)
	return c.finish(root, s)
}

// compiler holds the state of one compilation.
type compiler struct {
	defs  *definitions
	memo  map[string]*node // compiled definitions by canonical name
	sites []*refSite       // nodes whose structure comes from a $ref
	site  map[*node]*refSite
	keyed []keyedNode // nodes that carry x-kubernetes-immutable-keys themselves
	// elems are the list item and map value nodes, where
	// x-immutable-gen-immutable-once is refused (checked after linking).
	elems []keyedNode
	// unordered are the nodes with x-immutable-gen-ignore-order; their
	// structure is replaced by one whose list maps compare as sets.
	unordered []keyedNode
	// structures lists every structure, for the derived flags.
	structures []*structure
	// whens are the nodes with x-immutable-gen-when, checked once the
	// flags of $refs are linked.
	whens []whenSite
	errs  []error
}

// refSite is a node whose structure is the one of a referenced definition.
type refSite struct {
	n, target *node
	path      string
	state     uint8 // 0 new, 1 linking, 2 linked
}

type keyedNode struct {
	n      *node
	path   string
	values bool // an element node: map values (else list items)
}

func newCompiler(defs map[string]spec.Schema) *compiler {
	return &compiler{
		defs: newDefinitions(defs),
		memo: map[string]*node{},
		site: map[*node]*refSite{},
	}
}

func (c *compiler) errorf(path, format string, args ...interface{}) {
	if len(c.errs) < maxSchemaErrors {
		c.errs = append(c.errs, &SchemaError{Path: path, Detail: fmt.Sprintf(format, args...)})
	}
}

// compileInto compiles s into n. Flags accumulate (an allOf member or a
// referenced definition adds its own).
func (c *compiler) compileInto(n *node, s *spec.Schema, path string, depth int) {
	if depth > MaxDepth {
		c.errorf(path, "schema nested more than %d levels deep", MaxDepth)
		n.structure = &structure{}
		return
	}
	c.readFlags(n, s, path)
	c.readCondition(n, s, path)

	if ref := s.Ref.String(); ref != "" {
		c.noMarksInStructure(s, path, "next to $ref")
		c.noMarksInCombinators(s, path, depth)
		target := c.definition(ref, path)
		if target == nil {
			n.structure = &structure{}
			return
		}
		rs := &refSite{n: n, target: target, path: path}
		c.sites = append(c.sites, rs)
		c.site[n] = rs
		return
	}

	if !hasStructure(s) {
		// kube-openapi wraps a $ref that has siblings into allOf:
		// {allOf: [{$ref: X}], default: ...}. A schema without structure of
		// its own takes the structure of its only structural allOf member.
		if i, ok := onlyStructuralMember(s.AllOf); ok {
			for j := range s.AllOf {
				if j != i {
					c.noMarks(&s.AllOf[j], schemaIndex(path, "allOf", j), depth+1, "inside allOf")
				}
			}
			c.compileInto(n, &s.AllOf[i], schemaIndex(path, "allOf", i), depth+1)
			c.noMarksInOthers(s, path, depth)
			return
		}
	}

	n.structure = c.compileStructure(s, path, depth)
	for j := range s.AllOf {
		c.noMarks(&s.AllOf[j], schemaIndex(path, "allOf", j), depth+1, "inside allOf")
	}
	c.noMarksInOthers(s, path, depth)
}

// readFlags reads the immutability extensions of s into n.
func (c *compiler) readFlags(n *node, s *spec.Schema, path string) {
	for _, k := range slices.Sorted(maps.Keys(s.Extensions)) {
		for _, want := range []string{extension.Immutable, extension.ImmutableKeys, extension.ImmutableOnce, extension.IgnoreOrder, extension.NoModify, extension.NoSet, extension.NoUnset, extension.When} {
			if k != want && strings.EqualFold(k, want) {
				c.errorf(path, "unknown extension %s: the extension is spelled %s", k, want)
			}
		}
	}
	if c.trueFlag(s, extension.Immutable, path) {
		n.immutable = true
	}
	if c.trueFlag(s, extension.ImmutableKeys, path) {
		n.immutableKeys = true
		c.keyed = append(c.keyed, keyedNode{n: n, path: path})
	}
	if c.trueFlag(s, extension.ImmutableOnce, path) {
		n.immutableOnce = true
	}
	if c.trueFlag(s, extension.NoModify, path) {
		n.noModify = true
	}
	if c.trueFlag(s, extension.NoSet, path) {
		n.noSet = true
	}
	if c.trueFlag(s, extension.NoUnset, path) {
		n.noUnset = true
	}
	if c.trueFlag(s, extension.IgnoreOrder, path) {
		n.ignoreOrder = true
		c.unordered = append(c.unordered, keyedNode{n: n, path: path})
	}
}

// trueFlag reads an extension whose only valid value is the boolean true.
func (c *compiler) trueFlag(s *spec.Schema, key, path string) bool {
	v, ok := s.Extensions[key]
	if !ok {
		return false
	}
	if b, isBool := v.(bool); isBool && b {
		return true
	}
	c.errorf(path, "%s must be the boolean true, not %s", key, describe(v))
	return false
}

// boolExt reads an extension that must be a boolean.
func (c *compiler) boolExt(s *spec.Schema, key, path string) bool {
	v, ok := s.Extensions[key]
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		c.errorf(path, "%s must be a boolean, not %s", key, describe(v))
	}
	return b
}

// stringExt reads an extension that must be one of the allowed strings.
func (c *compiler) stringExt(s *spec.Schema, key, path string, allowed ...string) string {
	v, ok := s.Extensions[key]
	if !ok {
		return ""
	}
	str, isString := v.(string)
	if isString {
		for _, a := range allowed {
			if str == a {
				return str
			}
		}
	}
	c.errorf(path, "%s must be one of %q, not %s", key, allowed, describe(v))
	return ""
}

// keysKind is "" when a node of schema s and structure sh has keys of its
// own (a map, a list map), else what it is, in extension.NoKeys's terms.
// Atomic maps have keys here (docs/semantics.md: the KEP's ban on
// x-kubernetes-immutable-keys there is a placement rule, not the
// runtime's).
func keysKind(s *spec.Schema, sh *structure) string {
	typ := ""
	if len(s.Type) == 1 {
		typ = s.Type[0]
	}
	switch {
	case sh.allowsAdditional, sh.listType == listMap:
		return ""
	case sh.listType == listSet:
		return "set"
	case s.Items != nil || typ == "array":
		return "atomic list"
	case len(s.Properties) > 0 || typ == "object":
		return "struct"
	case typ == "":
		return "untyped"
	}
	return typ
}

// compileStructure compiles the structure of s: properties, additionalProperties,
// items and the list extensions.
func (c *compiler) compileStructure(s *spec.Schema, path string, depth int) *structure {
	sh := &structure{}
	c.structures = append(c.structures, sh)

	switch c.stringExt(s, extListType, path, "atomic", "set", "map") {
	case "set":
		sh.listType = listSet
	case "map":
		sh.listType = listMap
		sh.listKeys = c.listMapKeys(s, path)
	}
	if _, ok := s.Extensions[extListMapKeys]; ok && sh.listType != listMap {
		c.errorf(path, "%s requires %s map", extListMapKeys, extListType)
	}
	c.stringExt(s, extMapType, path, "granular", "atomic")
	c.boolExt(s, extPreserve, path)
	c.boolExt(s, extEmbedded, path)
	c.boolExt(s, extIntOrString, path)

	if len(s.Properties) > 0 {
		names := slices.Sorted(maps.Keys(s.Properties))
		sh.props = make([]property, len(names))
		sh.propIndex = make(map[string]*node, len(names))
		for i, name := range names {
			prop := s.Properties[name]
			child := &node{}
			c.compileInto(child, &prop, schemaKey(path, "properties", name), depth+1)
			sh.props[i] = property{name: name, node: child}
			sh.propIndex[name] = child
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		sh.allowsAdditional = ap.Allows || ap.Schema != nil
		if ap.Schema != nil {
			sh.additional = &node{}
			c.elems = append(c.elems, keyedNode{sh.additional, schemaChild(path, "additionalProperties"), true})
			c.compileInto(sh.additional, ap.Schema, schemaChild(path, "additionalProperties"), depth+1)
		}
	}
	if it := s.Items; it != nil {
		switch {
		case it.Schema != nil:
			sh.items = &node{}
			c.elems = append(c.elems, keyedNode{sh.items, schemaChild(path, "items"), false})
			c.compileInto(sh.items, it.Schema, schemaChild(path, "items"), depth+1)
		case len(it.Schemas) == 1:
			sh.items = &node{}
			c.elems = append(c.elems, keyedNode{sh.items, schemaIndex(path, "items", 0), false})
			c.compileInto(sh.items, &it.Schemas[0], schemaIndex(path, "items", 0), depth+1)
		default:
			for i := range it.Schemas {
				c.noMarks(&it.Schemas[i], schemaIndex(path, "items", i), depth+1, "in a tuple of items schemas (unsupported)")
			}
		}
	}
	sh.kind = keysKind(s, sh)
	return sh
}

func (c *compiler) listMapKeys(s *spec.Schema, path string) []string {
	v, ok := s.Extensions[extListMapKeys]
	var keys []string
	switch x := v.(type) {
	case []string:
		keys = append(keys, x...)
	case []interface{}:
		for _, k := range x {
			str, isString := k.(string)
			if !isString {
				c.errorf(path, "%s must be a list of strings, not %s", extListMapKeys, describe(v))
				return nil
			}
			keys = append(keys, str)
		}
	default:
		if ok {
			c.errorf(path, "%s must be a list of strings, not %s", extListMapKeys, describe(v))
			return nil
		}
	}
	if len(keys) == 0 {
		c.errorf(path, "%s map requires a non-empty %s", extListType, extListMapKeys)
	}
	return keys
}

// hasStructure reports whether s describes structure itself.
func hasStructure(s *spec.Schema) bool {
	return len(s.Properties) > 0 || s.AdditionalProperties != nil || s.Items != nil || s.Ref.String() != ""
}

// onlyStructuralMember returns the index of the only member of allOf that
// describes structure.
func onlyStructuralMember(allOf []spec.Schema) (int, bool) {
	found := -1
	for i := range allOf {
		if hasStructure(&allOf[i]) {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

// noMarksInOthers rejects immutability extensions in the parts of s that
// carry only value validations.
func (c *compiler) noMarksInOthers(s *spec.Schema, path string, depth int) {
	c.noMarksInCombinators(s, path, depth)
	for _, name := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		p := s.PatternProperties[name]
		c.noMarks(&p, schemaKey(path, "patternProperties", name), depth+1, "inside patternProperties (unsupported)")
	}
	if s.AdditionalItems != nil && s.AdditionalItems.Schema != nil {
		c.noMarks(s.AdditionalItems.Schema, schemaChild(path, "additionalItems"), depth+1, "inside additionalItems (unsupported)")
	}
}

func (c *compiler) noMarksInCombinators(s *spec.Schema, path string, depth int) {
	for j := range s.AnyOf {
		c.noMarks(&s.AnyOf[j], schemaIndex(path, "anyOf", j), depth+1, "inside anyOf")
	}
	for j := range s.OneOf {
		c.noMarks(&s.OneOf[j], schemaIndex(path, "oneOf", j), depth+1, "inside oneOf")
	}
	if s.Not != nil {
		c.noMarks(s.Not, schemaChild(path, "not"), depth+1, "inside not")
	}
}

// noMarksInStructure rejects immutability extensions in the structure next to
// a $ref, which the $ref overrides.
func (c *compiler) noMarksInStructure(s *spec.Schema, path, where string) {
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		c.noMarks(&p, schemaKey(path, "properties", name), 1, where)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		c.noMarks(s.AdditionalProperties.Schema, schemaChild(path, "additionalProperties"), 1, where)
	}
	if s.Items != nil {
		if s.Items.Schema != nil {
			c.noMarks(s.Items.Schema, schemaChild(path, "items"), 1, where)
		}
		for i := range s.Items.Schemas {
			c.noMarks(&s.Items.Schemas[i], schemaIndex(path, "items", i), 1, where)
		}
	}
	for j := range s.AllOf {
		c.noMarks(&s.AllOf[j], schemaIndex(path, "allOf", j), 1, where)
	}
}

// noMarks reports an error for every immutability extension in the literal
// subtree s ($refs are not followed), which has no effect where it is.
func (c *compiler) noMarks(s *spec.Schema, path string, depth int, where string) {
	if depth > MaxDepth {
		return
	}
	for _, k := range []string{extension.Immutable, extension.ImmutableKeys, extension.ImmutableOnce, extension.IgnoreOrder, extension.NoModify, extension.NoSet, extension.NoUnset, extension.When} {
		if _, ok := s.Extensions[k]; ok {
			c.errorf(path, "%s has no effect %s: put it on the schema of the field itself", k, where)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		c.noMarks(&p, schemaKey(path, "properties", name), depth+1, where)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		c.noMarks(s.AdditionalProperties.Schema, schemaChild(path, "additionalProperties"), depth+1, where)
	}
	if s.Items != nil {
		if s.Items.Schema != nil {
			c.noMarks(s.Items.Schema, schemaChild(path, "items"), depth+1, where)
		}
		for i := range s.Items.Schemas {
			c.noMarks(&s.Items.Schemas[i], schemaIndex(path, "items", i), depth+1, where)
		}
	}
	for _, list := range []struct {
		name string
		l    []spec.Schema
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		for i := range list.l {
			c.noMarks(&list.l[i], schemaIndex(path, list.name, i), depth+1, where)
		}
	}
	if s.Not != nil {
		c.noMarks(s.Not, schemaChild(path, "not"), depth+1, where)
	}
}

// finish links $refs, checks what needs the whole graph, derives the walk
// plan and returns the Checker; s is the root's schema, which types the
// conditions.
func (c *compiler) finish(root *node, s *spec.Schema) (*Checker, error) {
	for _, rs := range c.sites {
		c.link(rs)
	}
	for _, k := range c.keyed {
		if k.n.structure == nil {
			continue // an unresolved $ref, reported already
		}
		if kind := k.n.structure.kind; kind != "" {
			// The placement rule, in its words (runtime/extension).
			msg, fix := extension.NoKeys(kind)
			c.errorf(k.path, "%s; %s", msg, fix)
		}
	}
	for _, e := range c.elems {
		for _, x := range []struct {
			on  bool
			ext string
		}{{e.n.immutableOnce, extension.ImmutableOnce}, {e.n.noModify, extension.NoModify}, {e.n.noSet, extension.NoSet}, {e.n.noUnset, extension.NoUnset}} {
			if x.on {
				msg, fix := extension.NotOnElements(x.ext, e.values, "")
				c.errorf(e.path, "%s; %s", msg, fix)
			}
		}
	}
	for _, ws := range c.whens {
		if !ws.n.hasMark() {
			c.errorf(ws.path, "%s has no effect without an immutability extension on the same schema (%s): it says when they hold", extension.When, formExtensions())
		}
	}
	c.ignoreOrder()
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	derive(c.structures)
	checker := newChecker(root)
	if len(c.whens) > 0 {
		checker.whenRoot = c.conditionSchema(s)
	}
	return checker, nil
}

// link gives a $ref site the structure and the flags of its target, following
// chains of $refs.
func (c *compiler) link(rs *refSite) {
	switch rs.state {
	case 2:
		return
	case 1:
		c.errorf(rs.path, "circular $ref without a schema in between")
		rs.n.structure = &structure{}
		rs.state = 2
		return
	}
	rs.state = 1
	if next, ok := c.site[rs.target]; ok {
		c.link(next)
	}
	if rs.state == 2 { // a cycle was reported
		return
	}
	rs.n.structure = rs.target.structure
	if rs.n.structure == nil {
		rs.n.structure = &structure{}
	}
	rs.n.immutable = rs.n.immutable || rs.target.immutable
	rs.n.immutableKeys = rs.n.immutableKeys || rs.target.immutableKeys
	rs.n.immutableOnce = rs.n.immutableOnce || rs.target.immutableOnce
	rs.n.noModify = rs.n.noModify || rs.target.noModify
	rs.n.noSet = rs.n.noSet || rs.target.noSet
	rs.n.noUnset = rs.n.noUnset || rs.target.noUnset
	if rs.n.when == nil {
		rs.n.when = rs.target.when
	}
	if rs.target.ignoreOrder && !rs.n.ignoreOrder {
		rs.n.ignoreOrder = true
		c.unordered = append(c.unordered, keyedNode{n: rs.n, path: rs.path})
	}
	rs.state = 2
}

// derive computes the derived flags of every structure: marked (something
// below needs checking) and setBelow (a set is here or below, so equality
// needs the schema), by propagating from the marked nodes and the sets up
// to their parents. The graph may be cyclic; each structure is queued at
// most once per flag.
func derive(structures []*structure) {
	parents := map[*structure][]*structure{}
	var marked, withSets []*structure
	for _, s := range structures {
		if s.listType == listSet {
			s.setBelow = true
			withSets = append(withSets, s)
		}
		s.children(func(n *node) {
			if n.structure != nil {
				parents[n.structure] = append(parents[n.structure], s)
			}
			if n.hasMark() && !s.marked {
				s.marked = true
				marked = append(marked, s)
			}
		})
	}
	upward(marked, parents, func(s *structure) *bool { return &s.marked })
	upward(withSets, parents, func(s *structure) *bool { return &s.setBelow })
	for _, s := range structures {
		for _, p := range s.props {
			if p.node.needsWalk() {
				s.walkProps = append(s.walkProps, p)
			}
		}
		s.walkAdd = s.additional.needsWalk()
		s.walkItems = s.items.needsWalk()
		if s.listType == listMap {
			s.keyProps = listKeyStructure(s)
		}
	}
}

// ignoreOrder gives every node with x-immutable-gen-ignore-order a copy of
// its structure in which list maps compare as sets: the value is compared
// whole (the extension needs x-kubernetes-immutable or
// x-immutable-gen-immutable-once beside it), so only equality reads the
// copy, and two list maps with the same items in another order are equal,
// item by item under the same key — what the API server's CEL == does.
// Shared structures ($refs, recursion) are copied once.
func (c *compiler) ignoreOrder() {
	memo := map[*structure]*structure{}
	for _, u := range c.unordered {
		if !u.n.whole() {
			c.errorf(u.path, "%s has no effect without %s or %s on the same schema: it says how the value compared whole treats the order of its list maps", extension.IgnoreOrder, extension.Immutable, extension.ImmutableOnce)
			continue
		}
		if u.n.when != nil {
			u.n.ordered = u.n.structure
		}
		u.n.structure = c.unorderedCopy(u.n.structure, memo)
	}
}

func (c *compiler) unorderedCopy(s *structure, memo map[*structure]*structure) *structure {
	if s == nil {
		return nil
	}
	if cp, ok := memo[s]; ok {
		return cp
	}
	cp := &structure{
		additional:       s.additional,
		allowsAdditional: s.allowsAdditional,
		listType:         s.listType,
		listKeys:         s.listKeys,
	}
	memo[s] = cp
	c.structures = append(c.structures, cp)
	if cp.listType == listMap {
		// Items are unique by key, so the same items in any order is the
		// same items under the same keys.
		cp.listType = listSet
	}
	copyNode := func(n *node) *node {
		if n == nil {
			return nil
		}
		x := *n
		x.structure = c.unorderedCopy(n.structure, memo)
		return &x
	}
	if len(s.props) > 0 {
		cp.props = make([]property, len(s.props))
		cp.propIndex = make(map[string]*node, len(s.props))
		for i, p := range s.props {
			cp.props[i] = property{name: p.name, node: copyNode(p.node)}
			cp.propIndex[p.name] = cp.props[i].node
		}
	}
	cp.additional = copyNode(s.additional)
	cp.items = copyNode(s.items)
	return cp
}

// upward sets the flag of every structure above those of from, through
// parents, whose flags are set already; each structure is visited once.
func upward(from []*structure, parents map[*structure][]*structure, flag func(*structure) *bool) {
	for len(from) > 0 {
		s := from[len(from)-1]
		from = from[:len(from)-1]
		for _, p := range parents[s] {
			if f := flag(p); !*f {
				*f = true
				from = append(from, p)
			}
		}
	}
}
