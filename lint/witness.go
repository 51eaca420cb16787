package lint

// This file proves a change of immutability between two revisions of a
// CRD: it builds objects from the two schemas (the fields either side
// requires, and the path to the field), derives updates of the field
// (changed, removed, set, reordered, a key added or removed), and keeps
// the first whose verdict differs between the two CRDs, as the API
// server's validator gives it (preflight).

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Witness is an update whose verdict differs between the base and the new
// revision of a CRD.
type Witness struct {
	// Version is the new revision's version the objects are of;
	// BaseVersion the base's, where the version was renamed.
	Version     string `json:"version"`
	BaseVersion string `json:"baseVersion,omitempty"`
	// Update says what the update does: "changes spec.x", "removes spec".
	Update string `json:"update"`
	// Subresource is "status" for an update through /status.
	Subresource string `json:"subresource,omitempty"`
	// Old and New are the stored object and the object sent.
	Old map[string]any `json:"old"`
	New map[string]any `json:"new"`
	// RefusedBy is the revision that refuses the update: "base" or "new";
	// the other allows it.
	RefusedBy string `json:"refusedBy"`
	// Errors are the refusing revision's errors, as the API server words
	// them.
	Errors []string `json:"errors"`
}

// Who refuses the update a witness is searched for.
const (
	refusedByBase = "base"
	refusedByNew  = "new"
)

// indented renders the witness for text output, each line after prefix.
func (w *Witness) indented(prefix string) string {
	body := func(obj map[string]any) string {
		rest := map[string]any{}
		for k, v := range obj {
			if k != "apiVersion" && k != "kind" && k != "metadata" {
				rest[k] = v
			}
		}
		b, _ := json.Marshal(rest)
		return string(b)
	}
	who, other := "the base revision", "the new one"
	if w.RefusedBy == refusedByNew {
		who, other = "the new revision", "the base"
	}
	via := ""
	if w.Subresource != "" {
		via = " through /" + w.Subresource
	}
	return fmt.Sprintf("%switness (%s): an update that %s%s: %s refuses it (%s), %s allows it\n%s  old: %s\n%s  new: %s\n",
		prefix, w.Version, w.Update, via, who, strings.Join(w.Errors, "; "), other, prefix, body(w.Old), prefix, body(w.New))
}

// searcher searches witnesses in one version pair.
type searcher struct {
	p   *crdPair
	vp  versionPair
	err string
	// leaf are the condition leaves of the field being searched.
	leaf []condLeaf
}

func (p *crdPair) searcher(vp versionPair) *searcher {
	p.checkersOnce.Do(func() {
		var err error
		if p.oldCheck, err = preflight.NewChecker([]preflight.CRD{{Source: p.old.file, Raw: p.old.json}}); err != nil {
			p.checkErr = "the base revision's CRD cannot be served: " + firstLine(err.Error())
			return
		}
		if p.newCheck, err = preflight.NewChecker([]preflight.CRD{{Source: p.new.file, Raw: p.new.json}}); err != nil {
			p.checkErr = "the new revision's CRD cannot be served: " + firstLine(err.Error())
		}
	})
	key := vp.old.name + "\x00" + vp.new.name
	if s, ok := p.searchers[key]; ok {
		return s
	}
	s := &searcher{p: p, vp: vp, err: p.checkErr}
	if p.searchers == nil {
		p.searchers = map[string]*searcher{}
	}
	p.searchers[key] = s
	return s
}

func firstLine(s string) string {
	if a, _, ok := strings.Cut(s, "\n"); ok {
		return a + " …"
	}
	return s
}

// pairNode is a schema node of the base and of the new revision at one
// path; either may be nil. h are the hints of the rules of both schemas.
type pairNode struct {
	o, n *schema.Node
	h    *hints
}

// hints are what the rules of a schema ask of the values of a node's
// properties, for objects that pass them: the properties a rule on the
// node tests with has() or reads unguarded (present, in objects built to
// pass), and the literals a rule compares a property with (tried first).
type hints struct {
	has      map[*schema.Node]bool
	literals map[*schema.Node][]string
}

var (
	// anyEquals is a field compared with a literal, either way round, by
	// any variable (self, or a macro's over the items).
	anyEquals = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)\s*(?:==|!=)\s*(?:'([^'\\]*)'|"([^"\\]*)")|(?:'([^'\\]*)'|"([^"\\]*)")\s*(?:==|!=)\s*[A-Za-z_][A-Za-z0-9_.]*\.([A-Za-z_][A-Za-z0-9_]*)\b`)
	})
	hasSelf     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`has\(self\.([A-Za-z_][A-Za-z0-9_]*)\)`) })
	selfEqualsS = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`self\.([A-Za-z_][A-Za-z0-9_]*)\s*==\s*(?:'([^'\\]*)'|"([^"\\]*)")`)
	})
)

// unescapeCEL is the property name a CEL identifier reads (`__namespace__`
// is namespace, `a__dash__b` is a-b), as the API server escapes them.
func unescapeCEL(id string) string {
	if strings.HasPrefix(id, "__") && strings.HasSuffix(id, "__") && len(id) > 4 && !strings.Contains(id[2:len(id)-2], "__") {
		return id[2 : len(id)-2]
	}
	return strings.NewReplacer("__underscores__", "__", "__dot__", ".", "__dash__", "-", "__slash__", "/").Replace(id)
}

// hintsOf reads the hints of the rules of both roots.
func hintsOf(roots ...*schema.Node) *hints {
	h := &hints{has: map[*schema.Node]bool{}, literals: map[*schema.Node][]string{}}
	for _, root := range roots {
		if root == nil {
			continue
		}
		root.Walk(func(n *schema.Node) {
			for _, r := range n.Rules() {
				for _, m := range hasSelf().FindAllStringSubmatch(r.Rule, -1) {
					if c := n.Properties[unescapeCEL(m[1])]; c != nil && !strings.Contains(r.Rule, "!has(self."+m[1]+")") {
						h.has[c] = true
					}
				}
				for _, m := range anyEquals().FindAllStringSubmatch(r.Rule, -1) {
					name, lit := m[1], m[2]+m[3]
					if name == "" {
						name, lit = m[6], m[4]+m[5]
					}
					// The field of the node, of its items or of its values.
					for _, holder := range []*schema.Node{n, n.Items, n.Values} {
						if holder == nil {
							continue
						}
						if c := holder.Properties[unescapeCEL(name)]; c != nil && !slices.Contains(h.literals[c], lit) {
							h.literals[c] = append(h.literals[c], lit)
						}
					}
				}
				for _, m := range selfEqualsS().FindAllStringSubmatch(r.Rule, -1) {
					if c := n.Properties[unescapeCEL(m[1])]; c != nil && !strings.Contains(r.Rule, "oldSelf") {
						// Read without has(): it must be there.
						if !slices.Contains(h.literals[c], m[2]+m[3]) {
							h.literals[c] = append(h.literals[c], m[2]+m[3])
						}
						h.has[c] = h.has[c] || !strings.Contains(r.Rule, "has(self."+m[1]+")")
					}
				}
			}
		})
	}
	return h
}

func (g pairNode) pick() *schema.Node {
	if g.n != nil {
		return g.n
	}
	return g.o
}

func (g pairNode) prop(name string) pairNode {
	out := pairNode{h: g.h}
	if g.o != nil {
		out.o = g.o.Properties[name]
	}
	if g.n != nil {
		out.n = g.n.Properties[name]
	}
	return out
}

func (g pairNode) items() pairNode {
	out := pairNode{h: g.h}
	if g.o != nil {
		out.o = g.o.Items
	}
	if g.n != nil {
		out.n = g.n.Items
	}
	return out
}

func (g pairNode) values() pairNode {
	out := pairNode{h: g.h}
	if g.o != nil {
		out.o = g.o.Values
	}
	if g.n != nil {
		out.n = g.n.Values
	}
	return out
}

// required reports whether either side requires the property name, or
// a rule tests its presence.
func (g pairNode) required(name string) bool {
	if g.o != nil && g.o.Required(name) || g.n != nil && g.n.Required(name) {
		return true
	}
	c := g.prop(name)
	return g.h != nil && (c.o != nil && g.h.has[c.o] || c.n != nil && g.h.has[c.n])
}

// hinted are the literals the rules compare g with.
func (g pairNode) hinted() []string {
	if g.h == nil {
		return nil
	}
	var out []string
	for _, x := range []*schema.Node{g.o, g.n} {
		if x != nil {
			out = append(out, g.h.literals[x]...)
		}
	}
	return out
}

// propNames are the property names of either side, sorted.
func (g pairNode) propNames() []string {
	var out []string
	for _, x := range []*schema.Node{g.o, g.n} {
		if x == nil {
			continue
		}
		for k := range x.Properties {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sampleStrings are the strings tried for a string field, in order.
var sampleStrings = []string{"a", "b", "abc", "xyz", "a1", "b2", "example.com", "example.org", "1", "2", "A", "B", "a-b", "c-d", "1Gi", "2Gi", "100m", "200m",
	"https://example.com", "https://example.org", "2024-01-02T03:04:05Z", "2025-01-02T03:04:05Z", "default", "other", "aaaaaaaa", "bbbbbbbb"}

// validString reports whether s fits the string constraints of both sides.
func validString(g pairNode, s string) bool {
	for _, x := range []*schema.Node{g.o, g.n} {
		if x == nil {
			continue
		}
		if e := x.Enum(); len(e) > 0 && !slices.Contains(e, any(s)) {
			return false
		}
		if m, ok := x.MaxLength(); ok && int64(len(s)) > m {
			return false
		}
		if m, ok := rawInt(x, "minLength"); ok && int64(len(s)) < m {
			return false
		}
		if pat, ok := rawString(x, "pattern"); ok {
			re, err := regexp.Compile(pat)
			if err == nil && !re.MatchString(s) {
				return false
			}
		}
		switch x.Format() {
		case "date-time":
			if !strings.Contains(s, "T") {
				return false
			}
		case "date":
			if len(s) != 10 || s[4] != '-' {
				return false
			}
		case "uri":
			if !strings.Contains(s, "://") {
				return false
			}
		case "int-or-string":
		}
	}
	return true
}

// sampleDates are the strings tried for a field of format date.
var sampleDates = []string{"2024-01-02", "2025-01-02"}

// strings of g, valid on both sides, in order.
func (g pairNode) strings(extra []string) []string {
	var out []string
	cands := append(slices.Clone(extra), sampleStrings...)
	cands = append(cands, sampleDates...)
	for _, x := range []*schema.Node{g.o, g.n} {
		if x != nil {
			for _, e := range x.Enum() {
				if s, ok := e.(string); ok {
					cands = append(cands, s)
				}
			}
			if m, ok := rawInt(x, "minLength"); ok && m > 0 && m < 64 {
				cands = append(cands, strings.Repeat("a", int(m)), strings.Repeat("b", int(m)))
			}
		}
	}
	for _, s := range cands {
		if !slices.Contains(out, s) && validString(g, s) {
			out = append(out, s)
		}
	}
	return out
}

// numbers of g (integers), valid on both sides, in order.
func (g pairNode) numbers() []int64 {
	lo, hi := int64(-1<<40), int64(1<<40)
	var enum []any
	for _, x := range []*schema.Node{g.o, g.n} {
		if x == nil {
			continue
		}
		if m, ok := rawInt(x, "minimum"); ok && m > lo {
			lo = m
			if b, _ := x.Extension("exclusiveMinimum"); b == true {
				lo++
			}
		}
		if m, ok := rawInt(x, "maximum"); ok && m < hi {
			hi = m
			if b, _ := x.Extension("exclusiveMaximum"); b == true {
				hi--
			}
		}
		if e := x.Enum(); len(e) > 0 {
			enum = e
		}
	}
	var out []int64
	for _, e := range enum {
		if f, ok := e.(float64); ok {
			out = append(out, int64(f))
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, v := range []int64{1, 2, 3, lo, lo + 1, hi, hi - 1} {
		if v >= lo && v <= hi && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func rawInt(n *schema.Node, keyword string) (int64, bool) {
	v, ok := n.Extension(keyword)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case float64:
		return int64(x), true
	case int64:
		return x, true
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	}
	return 0, false
}

func rawString(n *schema.Node, keyword string) (string, bool) {
	v, ok := n.Extension(keyword)
	s, _ := v.(string)
	return s, ok && s != ""
}

// value is a value of g valid on both sides: the properties either side
// requires, one item or entry in a list or map (two where the schema asks
// for at least two), the first valid scalar.
func (g pairNode) value(depth int) any {
	s := g.pick()
	if s == nil {
		return "a"
	}
	if depth > 12 {
		return nil
	}
	if s.ExtensionTrue("x-kubernetes-int-or-string") {
		return int64(1)
	}
	switch s.Type() {
	case "object":
		if s.Values != nil {
			return map[string]any{g.keyString(0): g.values().value(depth + 1)}
		}
		out := map[string]any{}
		if s.EmbeddedResource() {
			// An object the API server reads as a resource of its own.
			out["apiVersion"], out["kind"], out["metadata"] = "v1", "ConfigMap", map[string]any{"name": "a"}
		}
		for _, name := range g.propNames() {
			if g.required(name) {
				if v := g.prop(name).value(depth + 1); v != nil {
					out[name] = v
				}
			}
		}
		return out
	case "array":
		n := int64(1)
		for _, x := range []*schema.Node{g.o, g.n} {
			if x != nil {
				if m, ok := rawInt(x, "minItems"); ok && m > n {
					n = m
				}
			}
		}
		var out []any
		for i := range n {
			out = append(out, g.item(int(i), depth))
		}
		return out
	case "string":
		if ss := g.strings(g.hinted()); len(ss) > 0 {
			return ss[0]
		}
		return "a"
	case "integer", "number":
		return g.numbers()[0]
	case "boolean":
		return true
	}
	return map[string]any{}
}

// keyString is the i-th map key.
func (g pairNode) keyString(i int) string { return string(rune('a' + i%26)) }

// item is the i-th item of the list g: distinct from the others where
// the list is a set or a list map (by its keys).
func (g pairNode) item(i, depth int) any {
	s := g.pick()
	it := g.items()
	v := it.value(depth + 1)
	switch s.ListType() {
	case "set":
		return it.nth(i, v)
	case "map":
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		for _, k := range s.ListMapKeys() {
			kg := it.prop(k)
			m[k] = kg.nth(i, kg.value(depth+2))
		}
		return m
	}
	return v
}

// nth is the i-th distinct scalar of g (def for non-scalars and i = 0).
func (g pairNode) nth(i int, def any) any {
	s := g.pick()
	if s == nil || i == 0 {
		return def
	}
	switch s.Type() {
	case "string":
		if ss := g.strings(nil); i < len(ss) {
			return ss[i]
		}
	case "integer", "number":
		if ns := g.numbers(); i < len(ns) {
			return ns[i]
		}
	case "boolean":
		return i%2 == 0
	}
	return def
}

// alts are up to a few values of g other than v, valid on both sides.
func (g pairNode) alts(v any, depth int) []any {
	s := g.pick()
	if s == nil || depth > 12 {
		return nil
	}
	var out []any
	if s.ExtensionTrue("x-kubernetes-int-or-string") {
		return []any{int64(2), "b"}
	}
	switch s.Type() {
	case "string":
		for _, x := range g.strings(g.hinted()) {
			if x != v && len(out) < 2 {
				out = append(out, x)
			}
		}
	case "integer", "number":
		for _, x := range g.numbers() {
			if !sameJSON(x, v) && len(out) < 2 {
				out = append(out, x)
			}
		}
	case "boolean":
		b, _ := v.(bool)
		out = append(out, !b)
	case "object":
		m, _ := v.(map[string]any)
		if s.Values != nil {
			c := cloneMap(m)
			c[g.keyString(len(m))] = g.values().value(depth + 1)
			out = append(out, c)
			if keys := slices.Sorted(maps.Keys(m)); len(keys) > 0 {
				// The first entry's value changed.
				if as := g.values().alts(m[keys[0]], depth+1); len(as) > 0 {
					c := cloneMap(m)
					c[keys[0]] = as[0]
					out = append(out, c)
				}
			}
			return out
		}
		for _, name := range g.propNames() {
			if len(out) >= 3 {
				break
			}
			cg := g.prop(name)
			if cur, ok := m[name]; ok {
				for _, a := range cg.alts(cur, depth+1) {
					c := cloneMap(m)
					c[name] = a
					out = append(out, c)
					break
				}
			} else if t := cg.pick().Type(); t == "string" || t == "integer" || t == "boolean" {
				c := cloneMap(m)
				c[name] = cg.value(depth + 1)
				out = append(out, c)
			}
		}
		if s.EmbeddedResource() {
			// Another name of the resource.
			c := cloneMap(m)
			c["metadata"] = map[string]any{"name": "b"}
			out = append(out, c)
		}
		if s.ExtensionTrue("x-kubernetes-preserve-unknown-fields") {
			// A field the schema does not name, which the server keeps.
			c := cloneMap(m)
			c["unnamed"] = "b"
			out = append(out, c)
		}
	case "array":
		l, _ := v.([]any)
		c := slices.Clone(l)
		c = append(c, g.item(len(l), depth))
		out = append(out, c)
		if len(l) > 0 {
			it := g.items()
			var keys []string
			if s.ListType() == "map" {
				keys = s.ListMapKeys()
			}
			for _, a := range it.alts(l[0], depth+1) {
				if am, ok := a.(map[string]any); ok && len(keys) > 0 {
					old, _ := l[0].(map[string]any)
					if !sameKeys(am, old, keys) {
						continue // a key change is the item added or removed
					}
				}
				c := slices.Clone(l)
				c[0] = a
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func sameKeys(a, b map[string]any, keys []string) bool {
	for _, k := range keys {
		if !sameJSON(a[k], b[k]) {
			return false
		}
	}
	return true
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// deepCopy copies a JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}

// step is one step of a concrete path in an object: a property or map
// key by name, or the first item of a list.
type step struct {
	name string
	edge schema.Edge
}

// chain is the steps from the root to n, and the pair nodes along it.
func chain(root pairNode, path string) ([]step, []pairNode, bool) {
	target := nodeAt(root.pick(), path)
	if target == nil {
		return nil, nil, false
	}
	var nodes []*schema.Node
	for x := target; x.Parent != nil; x = x.Parent {
		nodes = append([]*schema.Node{x}, nodes...)
	}
	steps := make([]step, len(nodes))
	pairs := []pairNode{root}
	cur := root
	for i, x := range nodes {
		steps[i] = step{name: x.Name, edge: x.Edge}
		switch x.Edge {
		case schema.Property:
			cur = cur.prop(x.Name)
		case schema.Items:
			cur = cur.items()
		case schema.Values:
			cur = cur.values()
			steps[i].name = cur.keyString(0)
		}
		pairs = append(pairs, cur)
	}
	return steps, pairs, true
}

// ensure makes the path present in obj (filling what is missing with
// values) and returns the container of its last step.
func ensure(obj map[string]any, steps []step, pairs []pairNode) (parent any, ok bool) {
	var cur any = obj
	for i, st := range steps {
		g := pairs[i+1]
		switch st.edge {
		case schema.Property, schema.Values:
			m, isMap := cur.(map[string]any)
			if !isMap {
				return nil, false
			}
			if i == len(steps)-1 {
				if _, has := m[st.name]; !has {
					m[st.name] = g.value(0)
				}
				return m, true
			}
			if _, has := m[st.name]; !has {
				m[st.name] = g.value(0)
			}
			cur = m[st.name]
		case schema.Items:
			l, isList := cur.([]any)
			if !isList || len(l) == 0 {
				return nil, false
			}
			if i == len(steps)-1 {
				return l, true
			}
			cur = l[0]
		}
	}
	return nil, false
}

// at is the container of the path's last step in obj, nil when the path
// is not there.
func at(obj map[string]any, steps []step) any {
	var cur any = obj
	for i, st := range steps {
		var next any
		switch st.edge {
		case schema.Property, schema.Values:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			if i == len(steps)-1 {
				return m
			}
			next = m[st.name]
		case schema.Items:
			l, ok := cur.([]any)
			if !ok || len(l) == 0 {
				return nil
			}
			if i == len(steps)-1 {
				return l
			}
			next = l[0]
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return nil
}

// candidate is one update to try.
type candidate struct {
	old, new map[string]any
	what     string
	// removal: the new object lacks what the old has (a create of it may
	// fail where the field is required).
	removal bool
}

// candidates are the updates of the field at path in objects built from
// base (a root value) that a form could refuse.
func (s *searcher) candidates(base map[string]any, path string, steps []step, pairs []pairNode) []candidate {
	var out []candidate
	obj := deepCopy(base).(map[string]any)
	parent, ok := ensure(obj, steps, pairs)
	if !ok {
		return nil
	}
	last := steps[len(steps)-1]
	g := pairs[len(pairs)-1]
	var cur any
	switch p := parent.(type) {
	case map[string]any:
		cur = p[last.name]
	case []any:
		cur = p[0]
	}
	with := func(v any) map[string]any {
		c := deepCopy(obj).(map[string]any)
		switch p := at(c, steps).(type) {
		case map[string]any:
			p[last.name] = v
		case []any:
			p[0] = v
		}
		return c
	}
	without := func() map[string]any {
		c := deepCopy(obj).(map[string]any)
		switch p := at(c, steps).(type) {
		case map[string]any:
			delete(p, last.name)
		}
		return c
	}
	for _, a := range g.alts(cur, 0) {
		out = append(out, candidate{obj, with(a), "changes " + path, false})
	}
	if last.edge == schema.Property {
		out = append(out, candidate{obj, without(), "removes " + path, true}, candidate{without(), obj, "sets " + path, true})
	}
	if last.edge == schema.Items {
		// The item at index 0 removed, or a second one added.
		if l, ok := parent.([]any); ok {
			parentPath := strings.TrimSuffix(path, "[*]")
			plus := append(slices.Clone(l), pairs[len(pairs)-2].item(len(l), 0))
			out = append(out, candidate{with(cur), withList(obj, steps, plus), "adds an item to " + parentPath, false})
			if len(l) > 1 || !requiresItems(pairs[len(pairs)-2]) {
				out = append(out, candidate{obj, withList(obj, steps, l[1:]), "removes an item of " + parentPath, true})
			}
		}
	}
	if l, ok := cur.([]any); ok && g.pick().ListType() == "map" {
		two := slices.Clone(l)
		for len(two) < 2 {
			two = append(two, g.item(len(two), 0))
		}
		rev := slices.Clone(two)
		slices.Reverse(rev)
		out = append(out,
			candidate{with(two), with(rev), "reorders the items of " + path, false},
			candidate{with(two), with(two[:1]), "removes the item of key " + keyText(two[1], g.pick().ListMapKeys()) + " from " + path, false})
	}
	if _, ok := cur.(map[string]any); ok && g.pick().Values == nil {
		// The list maps inside an object, reordered (a form on the object
		// with or without ignoreOrder compares them so).
		out = append(out, s.reorderInside(obj, steps, g, nil, path)...)
	}
	if m, ok := cur.(map[string]any); ok && g.pick().Values != nil && len(m) > 0 {
		c := cloneMap(m)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			delete(c, k)
			break
		}
		out = append(out, candidate{obj, with(c), "removes a key of " + path, false})
	}
	return out
}

// reorderInside are the updates of obj that reorder a list map inside
// the object at the path's steps (of schema g), reached from it through
// the properties rel and then properties again, with two items in it.
func (s *searcher) reorderInside(obj map[string]any, steps []step, g pairNode, rel []string, path string) []candidate {
	if len(rel) > 3 || g.pick() == nil {
		return nil
	}
	var out []candidate
	for _, name := range g.propNames() {
		c := g.prop(name)
		if c.pick() == nil {
			continue
		}
		at := path + "." + name
		switch {
		case c.pick().ListType() == "map":
			holder := objectAt(deepCopy(obj).(map[string]any), steps, rel)
			if holder == nil {
				continue
			}
			var two []any
			if l, ok := holder[name].([]any); ok {
				two = slices.Clone(l)
			}
			for len(two) < 2 {
				two = append(two, c.item(len(two), 0))
			}
			rev := slices.Clone(two)
			slices.Reverse(rev)
			before, after := deepCopy(obj).(map[string]any), deepCopy(obj).(map[string]any)
			objectAt(before, steps, rel)[name] = two
			objectAt(after, steps, rel)[name] = rev
			out = append(out, candidate{before, after, "reorders the items of " + at, false})
		case c.pick().Type() == "object" && c.pick().Values == nil:
			out = append(out, s.reorderInside(obj, steps, c, append(slices.Clone(rel), name), at)...)
		}
		if len(out) >= 2 {
			break
		}
	}
	return out
}

// objectAt is the object at the steps' end and then the properties rel in
// obj, created (empty) where missing; nil where a value on the way is not
// an object.
func objectAt(obj map[string]any, steps []step, rel []string) map[string]any {
	var cur any
	switch p := at(obj, steps).(type) {
	case map[string]any:
		cur = p[steps[len(steps)-1].name]
	case []any:
		if len(p) > 0 {
			cur = p[0]
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil
	}
	for _, name := range rel {
		next, ok := m[name].(map[string]any)
		if !ok {
			if m[name] != nil {
				return nil
			}
			next = map[string]any{}
			m[name] = next
		}
		m = next
	}
	return m
}

func keyText(item any, keys []string) string {
	m, _ := item.(map[string]any)
	parts := make([]string, len(keys))
	for i, k := range keys {
		b, _ := json.Marshal(m[k])
		parts[i] = k + "=" + string(b)
	}
	return strings.Join(parts, ",")
}

func requiresItems(g pairNode) bool {
	for _, x := range []*schema.Node{g.o, g.n} {
		if x != nil {
			if m, ok := rawInt(x, "minItems"); ok && m > 0 {
				return true
			}
		}
	}
	return false
}

// withList is obj with the list holding the path's last step replaced.
func withList(obj map[string]any, steps []step, l []any) map[string]any {
	c := deepCopy(obj).(map[string]any)
	up := steps[:len(steps)-1]
	if len(up) == 0 {
		return c
	}
	if p, ok := at(c, up).(map[string]any); ok {
		p[up[len(up)-1].name] = l
	}
	return c
}

// findAround is find at path, then, for rules lint does not read as
// forms written at path (a rule on the root comparing two fields), at
// each field they read, at most four.
func (s *searcher) findAround(path, refuser string) *Witness {
	if w := s.find(path, path, refuser); w != nil {
		return w
	}
	var fields []string
	for _, f := range []sideFacts{s.p.facts[s.vp.old], s.p.facts[s.vp.new]} {
		for _, rule := range f.leftText[path] {
			for _, names := range fieldsRead(rule) {
				fp := strings.Join(names, ".")
				if path != "<root>" {
					fp = path + "." + fp
				}
				if !slices.Contains(fields, fp) && len(fields) < 4 {
					fields = append(fields, fp)
				}
			}
		}
	}
	for _, fp := range fields {
		if nodeAt(s.vp.old.root, fp) == nil && nodeAt(s.vp.new.root, fp) == nil {
			continue
		}
		if w := s.find(fp, path, refuser); w != nil {
			return w
		}
	}
	return nil
}

// fieldsRead are the property names of the fields a rule reads from self
// or oldSelf (`self.spec.a` → [spec a]), longest chains only, in order.
func fieldsRead(rule string) [][]string {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.MaxRecursionDepth(200))
	if err != nil {
		return nil
	}
	tree, errs := p.Parse(common.NewTextSource(rule))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return nil
	}
	var out [][]string
	add := func(names []string) {
		for i := range names {
			names[i] = unescapeCEL(names[i])
		}
		for k, o := range out {
			if len(o) <= len(names) && slices.Equal(o, names[:len(o)]) {
				out[k] = names // a longer chain of the same field
				return
			}
			if len(o) > len(names) && slices.Equal(o[:len(names)], names) {
				return
			}
		}
		out = append(out, names)
	}
	celast.PreOrderVisit(tree.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.SelectKind {
			return
		}
		var v string
		var names []string
		if e.AsSelect().IsTestOnly() {
			v, names = selectChain(e.AsSelect().Operand())
			names = append(names, e.AsSelect().FieldName())
		} else {
			v, names = selectChain(e)
		}
		if (v == "self" || v == "oldSelf") && len(names) > 0 {
			add(names)
		}
	}))
	return out
}

// find searches an update of the field at path that refuser refuses and
// the other revision allows, under the conditions of the rules at rulesAt
// (path itself, or the node whose rules read it). The objects are built with the hints of the
// rules, then without them, then without each presence hint in turn (a
// rule may ask for one of two fields, not both), keeping the first build
// both revisions create.
func (s *searcher) find(path, rulesAt, refuser string) *Witness {
	if s.err != "" {
		return nil
	}
	s.leaf = conditionLeaves(s.vp, rulesAt, s.p.facts[s.vp.old], s.p.facts[s.vp.new])
	full := hintsOf(s.vp.old.root, s.vp.new.root)
	sets := []*hints{full, nil}
	var hinted []string // by path: each side has its own nodes
	for n := range full.has {
		if !slices.Contains(hinted, n.Path()) {
			hinted = append(hinted, n.Path())
		}
	}
	slices.Sort(hinted)
	for _, p := range hinted[:min(len(hinted), 8)] {
		h := &hints{has: maps.Clone(full.has), literals: full.literals}
		for n := range h.has {
			if n.Path() == p {
				delete(h.has, n)
			}
		}
		sets = append(sets, h)
	}
	tried := 0
	usable := 0
	for _, h := range sets {
		root := pairNode{s.vp.old.root, s.vp.new.root, h}
		steps, pairs, ok := chain(root, path)
		if !ok || len(steps) == 0 {
			return nil
		}
		base, _ := root.value(0).(map[string]any)
		if base == nil {
			return nil
		}
		probe := deepCopy(base).(map[string]any)
		if _, ok := ensure(probe, steps, pairs); !ok {
			continue
		}
		if base = s.repaired(probe, root, steps); base == nil {
			continue
		}
		for i, variant := range s.variants(root) {
			b := deepCopy(base).(map[string]any)
			if !applyVariant(b, variant) {
				continue
			}
			if i > 0 {
				// What the assignment asks for (a field the rules read
				// where the condition's field is set).
				if b = s.repaired(b, root, steps); b == nil {
					continue
				}
			}
			for _, c := range s.candidates(b, path, steps, pairs) {
				if tried++; tried > 400 {
					return nil
				}
				if w := s.check(c, path, refuser); w != nil {
					return w
				}
			}
		}
		if usable++; usable == 2 {
			break
		}
	}
	return nil
}

// createErrors are the errors of creating an object of body in either
// revision; ok is false where one cannot be checked at all.
func (s *searcher) createErrors(body map[string]any) (errs field.ErrorList, ok bool) {
	for _, side := range []struct {
		ch *preflight.Checker
		d  *crdDoc
		v  *versionInfo
	}{{s.p.oldCheck, s.p.old, s.vp.old}, {s.p.newCheck, s.p.new, s.vp.new}} {
		r, err := side.ch.Create(object(side.d, side.v.name, body))
		if err != nil {
			return nil, false
		}
		errs = append(errs, r.Errors...)
	}
	return errs, true
}

// noSuchKey is the CEL error of a rule that reads an absent field.
var noSuchKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`no such key: ([A-Za-z_][A-Za-z0-9_]*)`) })

// repaired is body made an object both revisions create, by filling in
// what their errors ask for — a required value, a field a rule reads
// without has() ("no such key") — and else by the first edit the rules in
// error suggest (toggles) that leaves fewer errors and the field at keep
// in place; a few rounds at most; nil when it cannot be.
func (s *searcher) repaired(body map[string]any, root pairNode, keep []step) map[string]any {
	for range 6 {
		errs, ok := s.createErrors(body)
		if !ok {
			return nil
		}
		if len(errs) == 0 {
			return body
		}
		changed := false
		for _, e := range errs {
			at := e.Field
			if e.Type != field.ErrorTypeRequired {
				m := noSuchKey().FindStringSubmatch(e.Detail + " " + fmt.Sprint(e.BadValue))
				if m == nil {
					continue
				}
				at += "." + unescapeCEL(m[1])
			}
			changed = fillPath(body, root, at) || changed
		}
		if !changed {
			// A rule asking for one field of several, or a value: try
			// each edit the rules of the nodes in error suggest, keep the
			// first that leaves fewer errors.
			for _, alt := range toggles(body, root, errs) {
				if !stepsPresent(alt, keep) {
					continue // not the field searched, nor what holds it
				}
				if e2, ok := s.createErrors(alt); ok && len(e2) < len(errs) {
					body, changed = alt, true
					break
				}
			}
		}
		if !changed {
			return nil
		}
	}
	return nil
}

// stepsPresent reports whether the path's steps lead to a value in obj.
func stepsPresent(obj map[string]any, steps []step) bool {
	switch p := at(obj, steps).(type) {
	case map[string]any:
		_, ok := p[steps[len(steps)-1].name]
		return ok
	case []any:
		return len(p) > 0
	}
	return false
}

// toggles are edits of body at the objects the errors are about: each
// literal a rule compares a property with set, then each property a rule
// there tests with has() added where absent or removed where present; at
// most 16.
func toggles(body map[string]any, root pairNode, errs field.ErrorList) []map[string]any {
	var out []map[string]any
	var seen []string
	for _, e := range errs {
		if slices.Contains(seen, e.Field) || len(seen) == 3 {
			continue
		}
		seen = append(seen, e.Field)
		obj, g := locate(body, root, e.Field)
		if obj == nil || g.pick() == nil {
			continue
		}
		edit := func(f func(m map[string]any)) {
			if len(out) >= 16 {
				return
			}
			c := deepCopy(body).(map[string]any)
			if m, _ := locate(c, root, e.Field); m != nil {
				f(m)
				out = append(out, c)
			}
		}
		for _, name := range g.propNames() {
			c := g.prop(name)
			for _, lit := range c.hinted() {
				if obj[name] != lit && validString(c, lit) {
					edit(func(m map[string]any) { m[name] = lit })
				}
			}
		}
		for _, x := range []*schema.Node{g.o, g.n} {
			if x == nil {
				continue
			}
			for _, r := range x.Rules() {
				for _, m := range hasSelf().FindAllStringSubmatch(r.Rule, -1) {
					name := unescapeCEL(m[1])
					c := g.prop(name)
					if c.pick() == nil {
						continue
					}
					if _, present := obj[name]; present {
						edit(func(m map[string]any) { delete(m, name) })
					} else {
						edit(func(m map[string]any) { m[name] = c.value(0) })
					}
				}
			}
		}
	}
	return out
}

// locate is the object at the field path p (as the API server's errors
// write it) in body, the first item where p ends at a list, with its
// schema; nil where there is none.
func locate(body map[string]any, root pairNode, p string) (map[string]any, pairNode) {
	var cur any = body
	g := root
	if p == "" || p == "<nil>" {
		return body, root
	}
	for _, part := range strings.Split(p, ".") {
		m := fieldPart().FindStringSubmatch(part)
		obj, ok := cur.(map[string]any)
		if m == nil || !ok {
			return nil, pairNode{}
		}
		g, cur = g.prop(m[1]), obj[m[1]]
		for _, idx := range strings.Split(strings.Trim(m[2], "[]"), "][") {
			if idx == "" {
				continue
			}
			switch c := cur.(type) {
			case []any:
				n, err := strconv.Atoi(idx)
				if err != nil || n >= len(c) {
					return nil, pairNode{}
				}
				g, cur = g.items(), c[n]
			case map[string]any:
				g, cur = g.values(), c[idx]
			}
		}
	}
	if l, ok := cur.([]any); ok && len(l) > 0 {
		g, cur = g.items(), l[0]
	}
	m, _ := cur.(map[string]any)
	return m, g
}

// fieldPart matches one part of a field path: a name and its indexes or
// keys (`podSets[0]`, `labels[a]`).
var fieldPart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^\[]*)((?:\[[^\]]*\])*)$`) })

// fillPath sets a value of the schema where the field path p (as the API
// server's errors write it, from the object's root) is absent in body,
// and reports whether it set one. A name after a list without an index
// (a rule on the list reading its items' field) is filled in every item.
func fillPath(body map[string]any, root pairNode, p string) bool {
	return fillAt(body, root, strings.Split(p, "."))
}

func fillAt(cur any, g pairNode, parts []string) bool {
	if len(parts) == 0 {
		return false
	}
	if l, ok := cur.([]any); ok {
		// The items' field.
		set := false
		for _, item := range l {
			set = fillAt(item, g.items(), parts) || set
		}
		return set
	}
	m := fieldPart().FindStringSubmatch(parts[0])
	obj, ok := cur.(map[string]any)
	if m == nil || !ok {
		return false
	}
	g = g.prop(m[1])
	if g.pick() == nil {
		return false
	}
	next, has := obj[m[1]]
	if !has || next == nil {
		next = g.value(0)
		obj[m[1]] = next
		if m[2] == "" && len(parts) == 1 {
			return true
		}
	}
	for _, idx := range strings.Split(strings.Trim(m[2], "[]"), "][") {
		if idx == "" {
			continue
		}
		switch c := next.(type) {
		case []any:
			n, err := strconv.Atoi(idx)
			if err != nil || n >= len(c) {
				return false
			}
			g, next = g.items(), c[n]
		case map[string]any:
			g, next = g.values(), c[idx]
		default:
			return false
		}
	}
	return fillAt(next, g, parts[1:])
}

// object wraps a root value as an object of version v of the CRD d.
func object(d *crdDoc, v string, body map[string]any) map[string]any {
	spec, _ := d.obj["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	obj := deepCopy(body).(map[string]any)
	obj["apiVersion"] = group + "/" + v
	obj["kind"] = kind
	md := map[string]any{"name": "witness"}
	if scope, _ := spec["scope"].(string); scope != "Cluster" {
		md["namespace"] = preflight.DefaultNamespace
	}
	obj["metadata"] = md
	return obj
}

// verdict is one side's verdict on c: whether both objects can be
// created (the old always, the new unless the update removes something),
// whether the update is allowed, and its errors.
func verdict(ch *preflight.Checker, d *crdDoc, v *versionInfo, c candidate, status bool) (usable, allowed bool, errs []string, sub string) {
	old, new := object(d, v.name, c.old), object(d, v.name, c.new)
	if r, err := ch.Create(old); err != nil || !r.Allowed() {
		return false, false, nil, ""
	}
	if !c.removal {
		if r, err := ch.Create(new); err != nil || !r.Allowed() {
			return false, false, nil, ""
		}
	}
	var r preflight.Result
	var err error
	if status && v.status {
		r, err = ch.UpdateStatus(new, old)
		sub = "status"
	} else {
		r, err = ch.Update(new, old)
	}
	if err != nil {
		return false, false, nil, ""
	}
	for _, e := range r.Errors {
		if len(r.Errors) > 1 && strings.Contains(e.Detail, "some validation rules were not checked") {
			continue // the server's note beside the error that stopped them
		}
		errs = append(errs, e.Error())
	}
	return true, r.Allowed(), errs, sub
}

// check returns the witness c is, if refuser refuses it and the other
// revision allows it.
func (s *searcher) check(c candidate, path, refuser string) *Witness {
	status := path == "status" || strings.HasPrefix(path, "status.") || strings.HasPrefix(path, "status[")
	ou, oa, oerrs, osub := verdict(s.p.oldCheck, s.p.old, s.vp.old, c, status)
	if !ou {
		return nil
	}
	nu, na, nerrs, nsub := verdict(s.p.newCheck, s.p.new, s.vp.new, c, status)
	if !nu || oa == na {
		return nil
	}
	w := &Witness{Version: s.vp.new.name, Update: c.what, Old: object(s.p.new, s.vp.new.name, c.old), New: object(s.p.new, s.vp.new.name, c.new)}
	if s.vp.old.name != s.vp.new.name {
		w.BaseVersion = s.vp.old.name
	}
	switch {
	case refuser == refusedByBase && !oa && na:
		w.RefusedBy, w.Errors, w.Subresource = refusedByBase, oerrs, osub
	case refuser == refusedByNew && oa && !na:
		w.RefusedBy, w.Errors, w.Subresource = refusedByNew, nerrs, nsub
	default:
		return nil
	}
	return w
}

// condLeaf is a scalar field a condition of the pair reads, with the
// values to try for it (nil: absent).
type condLeaf struct {
	steps  []step
	pairs  []pairNode
	values []any
}

// literals in CEL text: quoted strings and integers.
var (
	celString = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'([^'\\]*)'|"([^"\\]*)"`) })
	celInt    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d+\b`) })
)

// conditionLeaves are the scalar fields, reached through properties, that
// the conditions and the rules lint does not read of either side name,
// each with the values the conditions compare it with.
func conditionLeaves(vp versionPair, path string, facts ...sideFacts) []condLeaf {
	// The conditions of the field's forms read the whole objects (a
	// field by its path from the root); the rules lint does not read are
	// written on a node (a field by its name).
	var whens, left []string
	for _, f := range facts {
		if fm := f.forms[path]; fm.When != "" {
			whens = append(whens, fm.When)
		}
		left = append(left, f.leftText[path]...)
	}
	if len(whens)+len(left) == 0 {
		return nil
	}
	whenText, leftText := strings.Join(whens, "\n"), strings.Join(left, "\n")
	all := whenText + "\n" + leftText
	var strs []string
	for _, m := range celString().FindAllStringSubmatch(all, -1) {
		strs = append(strs, m[1]+m[2])
	}
	var ints []int64
	for _, m := range celInt().FindAllString(all, -1) {
		if n, err := strconv.ParseInt(m, 10, 64); err == nil {
			ints = append(ints, n)
		}
	}
	root := pairNode{vp.old.root, vp.new.root, hintsOf(vp.old.root, vp.new.root)}
	var out []condLeaf
	root.pick().Walk(func(n *schema.Node) {
		if len(out) >= 6 || n.Parent == nil || !n.ThroughProperties() || !strings.Contains(whenText, "."+n.Path()) && !strings.Contains(leftText, "."+n.Name) {
			return
		}
		steps, pairs, ok := chain(root, n.Path())
		if !ok {
			return
		}
		g := pairs[len(pairs)-1]
		var vals []any
		switch n.Type() {
		case "boolean":
			vals = []any{true, false}
		case "string":
			for _, s := range g.strings(strs) {
				if len(vals) < 4 {
					vals = append(vals, s)
				}
			}
		case "integer":
			for _, i := range ints {
				vals = append(vals, i, i+1)
			}
		case "array":
			// A list of objects the conditions look into (Kueue's
			// `self.status.conditions.exists(c, c.type == 'QuotaReserved'
			// && c.status == 'True')`): empty, or one item whose string
			// fields the conditions name take each combination of the
			// literals that fit them.
			it := g.items()
			if it.pick() == nil || it.pick().Type() != "object" {
				return
			}
			base, ok := it.value(1).(map[string]any)
			if !ok {
				return
			}
			items := []map[string]any{base}
			for _, name := range it.propNames() {
				c := it.prop(name)
				if c.pick().Type() != "string" || !strings.Contains(all, "."+name) {
					continue
				}
				var lits []string
				for _, x := range c.strings(strs) {
					if slices.Contains(strs, x) {
						lits = append(lits, x)
					}
				}
				if len(lits) == 0 {
					continue
				}
				var next []map[string]any
				for _, item := range items {
					for _, l := range lits {
						if len(next) < 8 {
							m := cloneMap(item)
							m[name] = l
							next = append(next, m)
						}
					}
				}
				items = next
			}
			vals = append(vals, []any{})
			for _, item := range items {
				vals = append(vals, []any{item})
			}
		default:
			return
		}
		if !g.required(n.Name) {
			vals = append(vals, nil)
		}
		out = append(out, condLeaf{steps, pairs, vals})
	})
	return out
}

// assignment sets one condition leaf (value nil: removes it).
type assignment struct {
	leaf  condLeaf
	value any
}

// variants are the assignments of the condition leaves to try, the empty
// one first, at most 64.
func (s *searcher) variants(pairNode) [][]assignment {
	out := [][]assignment{nil}
	for _, l := range s.leaf {
		var next [][]assignment
		for _, v := range out {
			for _, val := range l.values {
				if len(next) >= 64 {
					break
				}
				next = append(next, append(slices.Clone(v), assignment{l, val}))
			}
		}
		out = append(out, next...)
		if len(out) > 64 {
			out = out[:64]
		}
	}
	return out
}

// applyVariant applies the assignments to a root value.
func applyVariant(obj map[string]any, as []assignment) bool {
	for _, a := range as {
		parent, ok := ensure(obj, a.leaf.steps, a.leaf.pairs)
		if !ok {
			return false
		}
		m, ok := parent.(map[string]any)
		if !ok {
			return false
		}
		name := a.leaf.steps[len(a.leaf.steps)-1].name
		if a.value == nil {
			delete(m, name)
		} else {
			m[name] = a.value
		}
	}
	return true
}
