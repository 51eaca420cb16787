package lint

// This file reads what each side of a CRD pair enforces, field by field,
// and compares the two (docs/lint.md, "Comparing two revisions").

import (
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/parser"

	"github.com/immutable-gen/immutable-gen/celform"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// crdPair is one CRD in the base and the new revision.
type crdPair struct {
	old, new *crdDoc
	oldV     []versionInfo
	newV     []versionInfo
	// checkers are built on the first witness search.
	checkersOnce sync.Once
	oldCheck     *preflight.Checker
	newCheck     *preflight.Checker
	checkErr     string
	// searchers are the witness searchers by version pair, facts what
	// each version enforces.
	searchers map[string]*searcher
	facts     map[*versionInfo]sideFacts
}

// versionInfo is one version of a CRD as the evolution check reads it.
type versionInfo struct {
	name            string
	served, storage bool
	status          bool
	root            *schema.Node
	// raw is the version's openAPIV3Schema.
	raw map[string]any
}

func versionsOf(obj map[string]any) []versionInfo {
	spec, _ := obj["spec"].(map[string]any)
	list, _ := spec["versions"].([]any)
	var out []versionInfo
	for _, v := range list {
		vm, _ := v.(map[string]any)
		name, _ := vm["name"].(string)
		sch, _ := vm["schema"].(map[string]any)
		raw, ok := sch["openAPIV3Schema"].(map[string]any)
		if !ok || name == "" {
			continue
		}
		vi := versionInfo{name: name, root: schema.FromExtensions(raw), raw: raw}
		vi.served, _ = vm["served"].(bool)
		vi.storage, _ = vm["storage"].(bool)
		sub, _ := vm["subresources"].(map[string]any)
		_, vi.status = sub["status"]
		out = append(out, vi)
	}
	return out
}

func newCRDPair(old, new *crdDoc) (*crdPair, error) {
	p := &crdPair{old: old, new: new, oldV: versionsOf(old.obj), newV: versionsOf(new.obj)}
	gk := func(d *crdDoc) string {
		spec, _ := d.obj["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		group, _ := spec["group"].(string)
		kind, _ := names["kind"].(string)
		return kind + "." + group
	}
	if a, b := gk(old), gk(new); a != b {
		return nil, fmt.Errorf("CustomResourceDefinition %s defines %s in the base revision and %s in the new one: not two revisions of one CRD", new.name, a, b)
	}
	return p, nil
}

// versionPair is a version of the base paired with one of the new
// revision.
type versionPair struct{ old, new *versionInfo }

// pairs pairs the served versions by name; where the storage version of
// either side has no served namesake on the other, the two storage
// versions are paired (a version renamed or replaced). The old versions
// left unpaired are returned too.
func (p *crdPair) pairs() (out []versionPair, unpaired []*versionInfo) {
	find := func(vs []versionInfo, name string) *versionInfo {
		for i := range vs {
			if vs[i].name == name && vs[i].served {
				return &vs[i]
			}
		}
		return nil
	}
	storage := func(vs []versionInfo) *versionInfo {
		for i := range vs {
			if vs[i].storage {
				return &vs[i]
			}
		}
		return nil
	}
	paired := map[*versionInfo]bool{}
	for i := range p.newV {
		nv := &p.newV[i]
		if !nv.served {
			continue
		}
		if ov := find(p.oldV, nv.name); ov != nil {
			out = append(out, versionPair{ov, nv})
			paired[ov], paired[nv] = true, true
		}
	}
	if os, ns := storage(p.oldV), storage(p.newV); os != nil && ns != nil && !paired[os] && !paired[ns] && ns.served {
		out = append(out, versionPair{os, ns})
		paired[os] = true
	}
	for i := range p.oldV {
		if ov := &p.oldV[i]; ov.served && !paired[ov] {
			unpaired = append(unpaired, ov)
		}
	}
	return out, unpaired
}

// sideFacts is what one version of one side enforces.
type sideFacts struct {
	nodes map[string]*schema.Node
	// forms are the forms enforced at each path: the rules read through
	// the one CEL form, and the extensions.
	forms map[string]form.Form
	// left are the canonical texts (canonicalRule) of the immutability
	// rules the CEL form does not take, by the path Read gives them.
	left map[string][]string
	// leftText are those rules as written, for messages.
	leftText map[string][]string
	// floor is the newest Kubernetes the rules need.
	floor floorNeed
}

// floorNeed is the oldest Kubernetes minor the rules of a version need,
// with the rule that needs it.
type floorNeed struct {
	minor      int
	lowering   form.Lowering
	path, rule string
}

func factsOf(root *schema.Node) sideFacts {
	f := sideFacts{nodes: map[string]*schema.Node{}, forms: map[string]form.Form{}, left: map[string][]string{}, leftText: map[string][]string{}}
	root.Walk(func(n *schema.Node) { f.nodes[n.Path()] = n })
	r := celform.Read(root)
	for n, fm := range r.At {
		f.forms[n.Path()] = mergeForms(f.forms[n.Path()], fm)
	}
	for _, c := range celform.Constraints(root) {
		f.forms[c.Path] = mergeForms(f.forms[c.Path], c.Form)
	}
	for _, l := range r.Left {
		t := canonicalRule(l.Rule)
		if !slices.Contains(f.left[l.Path], t) {
			f.left[l.Path] = append(f.left[l.Path], t)
			f.leftText[l.Path] = append(f.leftText[l.Path], l.Rule)
		}
	}
	for _, ts := range f.left {
		slices.Sort(ts)
	}
	for _, ts := range f.leftText {
		slices.Sort(ts)
	}
	// A form that says nothing more than what is above it: under an
	// ancestor whose value cannot change (whenever the form could hold),
	// or on a key field of list-map items (correlated items never differ
	// in their keys).
	for path := range f.forms {
		n := f.nodes[path]
		if n == nil {
			continue
		}
		if n.Edge == schema.Property && n.Parent.Edge == schema.Items && n.Parent.Parent.ListType() == "map" && slices.Contains(n.Parent.Parent.ListMapKeys(), n.Name) {
			delete(f.forms, path)
			continue
		}
		for a := n.Parent; a != nil; a = a.Parent {
			af, ok := f.forms[a.Path()]
			if ok && af.Change == form.NoChange && (af.When == "" || af.When == f.forms[path].When) && (!af.IgnoreOrder || !n.HasListMap()) {
				delete(f.forms, path)
				break
			}
		}
	}
	f.floor = floorOf(root)
	return f
}

// mergeForms is what two forms on one node enforce together.
func mergeForms(a, b form.Form) form.Form {
	if a == (form.Form{}) {
		return b
	}
	if b == (form.Form{}) {
		return a
	}
	out := a
	out.Presence |= b.Presence
	if changeRank(b.Change) > changeRank(a.Change) {
		out.Change = b.Change
	}
	out.IgnoreOrder = (a.IgnoreOrder || a.Change != form.NoChange) && (b.IgnoreOrder || b.Change != form.NoChange) && out.Change == form.NoChange
	switch {
	case a.When == "" || b.When == "":
		out.When = ""
	case a.When != b.When:
		out.When = celform.Condition("(" + a.When + ") || (" + b.When + ")")
	}
	return out
}

// changeRank orders the change rules by what they refuse: any change, a
// key change, every change.
func changeRank(c form.Change) int {
	switch c {
	case form.NoChange:
		return 2
	case form.NoKeyChange:
		return 1
	}
	return 0
}

// refusesAtLeast reports whether form f refuses every update form g
// refuses (on one node), and whether that is known: two different
// conditions are compared by implies (whether g's condition true means
// f's true, and whether that is proved).
func refusesAtLeast(f, g form.Form, implies func(g, f string) (bool, bool)) (yes, known bool) {
	if g.Presence == 0 && g.Change == form.AnyChange {
		return true, true
	}
	if f.Presence == 0 && f.Change == form.AnyChange {
		return false, true
	}
	if g.Presence&^f.Presence != 0 || changeRank(f.Change) < changeRank(g.Change) {
		return false, true
	}
	if f.Change == form.NoChange && g.Change == form.NoChange && f.IgnoreOrder && !g.IgnoreOrder {
		return false, true
	}
	switch {
	case f.When == "" || f.When == g.When:
		return true, true
	case g.When == "":
		return false, true
	}
	return implies(g.When, f.When)
}

// describe words a form for a message: "immutable", "noModify with
// ignoreOrder, when `…`", "mutable".
func describe(f form.Form) string {
	if f.Presence == 0 && f.Change == form.AnyChange {
		return "mutable"
	}
	k, ok := f.Kind()
	s := fmt.Sprintf("presence %s, change %s", f.Presence, f.Change)
	if ok {
		s = k.Name
	}
	if f.IgnoreOrder {
		s += " (list-map order ignored)"
	}
	if f.When != "" {
		s += " when `" + f.When + "`"
	}
	return s
}

// describeSide words what one side enforces at a node: its form, and the
// rules lint does not read as one.
func describeSide(f form.Form, left []string) string {
	if len(left) == 0 {
		return describe(f)
	}
	if f == (form.Form{}) {
		return "ruled by " + quoteRules(left) + ", which lint does not read as a form"
	}
	return describe(f) + " and ruled by " + quoteRules(left)
}

// floorOf is the newest Kubernetes the rules of root need, by the form
// table's lowerings: a transition rule (oldSelf), fieldPath or reason, a
// two-variable comprehension.
func floorOf(root *schema.Node) floorNeed {
	var best floorNeed
	lows := map[string]form.Lowering{}
	for _, l := range form.Lowerings() {
		lows[l.Name] = l
	}
	consider := func(name string, n *schema.Node, rule string) {
		l := lows[name]
		if m := minorOfVersion(l.MinKubernetes); m > best.minor {
			best = floorNeed{minor: m, lowering: l, path: n.Path(), rule: rule}
		}
	}
	root.Walk(func(n *schema.Node) {
		for _, r := range n.Rules() {
			if !strings.Contains(r.Rule, "oldSelf") {
				continue
			}
			consider("transition", n, r.Rule)
			if r.FieldPath != "" || r.Reason != "" {
				consider("field path", n, r.Rule)
			}
			if twoVariable(r.Rule) {
				consider("atomic items", n, r.Rule)
			}
		}
	})
	return best
}

// minorOfVersion is N of "1.N".
func minorOfVersion(v string) int {
	n := 0
	if _, rest, ok := strings.Cut(v, "."); ok {
		fmt.Sscanf(rest, "%d", &n)
	}
	return n
}

// twoVariable reports whether a rule uses a two-variable comprehension
// (`l.all(i, x, …)`, `exists`, `existsOne`, `transformList`,
// `transformMap`): with the standard macros it parses as a call of three
// arguments.
func twoVariable(rule string) bool {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.MaxRecursionDepth(200))
	if err != nil {
		return false
	}
	tree, errs := p.Parse(common.NewTextSource(rule))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return false
	}
	found := false
	celast.PostOrderVisit(tree.Expr(), celast.NewExprVisitor(func(x celast.Expr) {
		if x.Kind() != celast.CallKind {
			return
		}
		c := x.AsCall()
		switch c.FunctionName() {
		case "all", "exists", "existsOne", "exists_one", "transformList", "transformMap", "transformMapEntry":
			found = found || c.IsMemberFunction() && len(c.Args()) == 3
		}
	}))
	return found
}

// finding is one finding of the pair at a version and path, placed on
// the new side (the old side where the new has no such node).
func (p *crdPair) finding(vp versionPair, path string, id diag.ID, msg, fix string) diag.Diagnostic {
	doc, version := p.new, vp.new.name
	if nodeAt(vp.new.root, path) == nil {
		doc, version = p.old, vp.old.name
	}
	return diag.Diagnostic{
		Pos: token.Position{Filename: doc.file, Line: doc.line(version, path)}, CRD: p.new.name, Version: vp.new.name, Path: path,
		ID: id, Severity: severityOf(id), Message: msg, Fix: fix,
	}
}

// compare is the pair's findings.
func (p *crdPair) compare() []evolveFinding {
	var out []evolveFinding
	pairs, unpaired := p.pairs()
	var order []string
	for _, v := range p.newV {
		order = append(order, v.name)
	}
	for _, vp := range pairs {
		out = append(out, p.compareVersion(vp)...)
	}
	for _, ov := range unpaired {
		if f := factsOf(ov.root); len(f.forms) > 0 || len(f.left) > 0 {
			out = append(out, evolveFinding{finding: diag.Diagnostic{
				Pos: token.Position{Filename: p.old.file, Line: p.old.line(ov.name, "<root>")}, CRD: p.new.name, Version: ov.name, Path: "<root>",
				ID: IDVersionDropped, Severity: severityOf(IDVersionDropped),
				Message: fmt.Sprintf("version %s, served with immutability rules in the base revision, is no longer served and no version is paired with it: clients of %s lose it", ov.name, ov.name),
				Fix:     "keep serving " + ov.name + ", or document its removal",
			}})
		}
	}
	sortEvolve(out, order)
	return out
}

// compareVersion compares one version pair, field by field.
func (p *crdPair) compareVersion(vp versionPair) []evolveFinding {
	of, nf := factsOf(vp.old.root), factsOf(vp.new.root)
	if p.facts == nil {
		p.facts = map[*versionInfo]sideFacts{}
	}
	p.facts[vp.old], p.facts[vp.new] = of, nf
	var out []evolveFinding
	// Every path with a form on either side, or rules the form does not
	// take.
	paths := map[string]bool{}
	for k := range of.forms {
		paths[k] = true
	}
	for k := range nf.forms {
		paths[k] = true
	}
	sorted := slices.Sorted(maps.Keys(paths))
	renamed := ""
	if vp.old.name != vp.new.name {
		renamed = fmt.Sprintf(" (base version %s)", vp.old.name)
	}
	reported := map[string]bool{}
	for _, path := range sorted {
		if of.nodes[path] == nil {
			continue // a field new in this revision: nothing relied on it
		}
		fo, fn := of.forms[path], nf.forms[path]
		if nf.nodes[path] == nil {
			fn = form.Form{}
		}
		implies := func(a, b string) (bool, bool) {
			ab, _, known := condRelation(vp, a, b)
			return ab, known
		}
		strong, sk := refusesAtLeast(fn, fo, implies)
		weak, wk := refusesAtLeast(fo, fn, implies)
		if sk && wk && strong && weak {
			continue // the same verdicts (a message or the spelling changed)
		}
		what := fmt.Sprintf("%s in the base revision%s, %s now", describeSide(fo, of.leftText[path]), renamed, describeSide(fn, nf.leftText[path]))
		if nf.nodes[path] == nil {
			what = fmt.Sprintf("%s in the base revision%s, and the field is gone now (the API server prunes it)", describe(fo), renamed)
		}
		// An update the new revision refuses and the base allows exists
		// unless the base refuses all the new one does, and conversely.
		out = append(out, p.decide(vp, path, what, !(wk && weak), !(sk && strong), sk && wk)...)
		reported[path] = true
	}
	// Rules the form does not take: a change of their text is proved
	// either way, or reported unproven.
	leftPaths := map[string]bool{}
	for k := range of.left {
		leftPaths[k] = true
	}
	for k := range nf.left {
		leftPaths[k] = true
	}
	for _, path := range slices.Sorted(maps.Keys(leftPaths)) {
		if of.nodes[path] == nil || reported[path] || slices.Equal(of.left[path], nf.left[path]) {
			continue
		}
		what := fmt.Sprintf("the rules lint does not read as a form changed here%s (base: %s; new: %s)", renamed, quoteRules(of.leftText[path]), quoteRules(nf.leftText[path]))
		out = append(out, p.decide(vp, path, what, true, true, false)...)
	}
	// A parent made required or optional: the rules below it can or can
	// no longer be gone around by removing it.
	seen := map[string]bool{}
	for _, path := range sorted {
		if of.forms[path] == (form.Form{}) || nf.forms[path] == (form.Form{}) || nf.nodes[path] == nil || of.nodes[path] == nil {
			continue
		}
		for a := nf.nodes[path].Parent; a != nil && a.Parent != nil; a = a.Parent {
			ap := a.Path()
			oa := of.nodes[ap]
			if oa == nil || seen[ap] || a.Edge != schema.Property || celform.AlwaysPresent(oa) == celform.AlwaysPresent(a) {
				continue
			}
			seen[ap] = true
			was, now := "optional", "required"
			if celform.AlwaysPresent(oa) {
				was, now = now, was
			}
			what := fmt.Sprintf("%s was %s in the base revision%s and is %s now, which changes whether the rules below it (on %s) can be gone around by removing it and adding it back", ap, was, renamed, now, path)
			out = append(out, p.decide(vp, ap, what, now == "required", now == "optional", false)...)
		}
	}
	// A new bound under an immutability rule.
	for _, path := range slices.Sorted(maps.Keys(nf.nodes)) {
		n, o := nf.nodes[path], of.nodes[path]
		if o == nil || !underForm(nf.forms, n) {
			continue
		}
		for _, b := range []struct {
			name string
			get  func(*schema.Node) (int64, bool)
		}{{"maxItems", (*schema.Node).MaxItems}, {"maxLength", (*schema.Node).MaxLength}, {"maxProperties", (*schema.Node).MaxProperties}} {
			nv, nok := b.get(n)
			ov, ook := b.get(o)
			if !nok || ook && ov <= nv {
				continue
			}
			was := "no " + b.name
			if ook {
				was = fmt.Sprintf("%s %d", b.name, ov)
			}
			out = append(out, evolveFinding{finding: p.finding(vp, path, IDBoundAdded,
				fmt.Sprintf("%s %d now (%s in the base revision) on a field an immutability rule covers: objects above the bound can no longer be created, and on API servers without validation ratcheting the stored ones can no longer be updated", b.name, nv, was),
				fmt.Sprintf("keep the bound at least the largest value stored objects hold, or remove it; stored objects above %d must be recreated", nv))})
		}
	}
	// A higher Kubernetes floor.
	if nf.floor.minor > of.floor.minor {
		was := "none"
		if of.floor.minor > 0 {
			was = of.floor.lowering.MinKubernetes
		}
		out = append(out, evolveFinding{finding: p.finding(vp, nf.floor.path, IDFloorRaised,
			fmt.Sprintf("the rules need Kubernetes %s now (the base revision's %s): the rule `%s` uses %s", nf.floor.lowering.MinKubernetes, was, nf.floor.rule, nf.floor.lowering.Reason()),
			"apply this revision only to clusters of Kubernetes "+nf.floor.lowering.MinKubernetes+" or newer, or write the rule without what needs it")})
	}
	return out
}

// underForm reports whether n or a node above it has a form.
func underForm(forms map[string]form.Form, n *schema.Node) bool {
	for x := n; x != nil; x = x.Parent {
		if forms[x.Path()] != (form.Form{}) {
			return true
		}
	}
	return false
}

// decide proves a change at path: it searches an update the base refuses
// and the new revision allows (when maybeWeaker) and one the base allows
// and the new refuses (when maybeStronger), and reports each found as
// IG070 or IG071 with its witness; where neither is found, the change is
// reported unproven (IG074) unless known says the forms prove there is
// nothing to find.
func (p *crdPair) decide(vp versionPair, path, what string, maybeStronger, maybeWeaker, known bool) []evolveFinding {
	var out []evolveFinding
	s := p.searcher(vp)
	if maybeWeaker {
		if w := s.findAround(path, refusedByBase); w != nil {
			out = append(out, evolveFinding{p.finding(vp, path, IDWeakened,
				fmt.Sprintf("%s: %s, which the base revision refuses, is allowed now", what, w.Update),
				"restore the base revision's rules for "+path+", or announce that it may change now"), w})
		}
	}
	if maybeStronger {
		if w := s.findAround(path, refusedByNew); w != nil {
			out = append(out, evolveFinding{p.finding(vp, path, IDStrengthened,
				fmt.Sprintf("%s: %s, which the base revision allows, is refused now", what, w.Update),
				"check that no client or controller makes that update of "+path+" any more"), w})
		}
	}
	if len(out) == 0 {
		// Never dropped: what lint reads differs, and no update proves how.
		why := "no update was found whose verdict differs between the two revisions"
		if s.err != "" {
			why = s.err
		}
		direction := "lint cannot tell whether this is weaker or stronger"
		if known {
			direction = "lint reads a different immutability"
		}
		out = append(out, evolveFinding{finding: p.finding(vp, path, IDUnproven,
			fmt.Sprintf("%s: %s, and %s", what, direction, why),
			"review the change by hand: write the updates it is meant to allow and refuse, and check them with `immutable-gen check-update` against both revisions")})
	}
	return out
}

func quoteRules(rs []string) string {
	if len(rs) == 0 {
		return "none"
	}
	q := make([]string, len(rs))
	for i, r := range rs {
		q[i] = "`" + r + "`"
	}
	return strings.Join(q, ", ")
}

// nodeAt is the node at path in root's model, nil if none.
func nodeAt(root *schema.Node, path string) *schema.Node {
	var out *schema.Node
	root.Visit(func(n *schema.Node) bool {
		if out != nil {
			return false
		}
		p := n.Path()
		if p == path {
			out = n
			return false
		}
		return n.Parent == nil || strings.HasPrefix(path, p)
	})
	return out
}

// canonicalRule is a rule's text up to what cannot change its verdicts:
// its syntax tree rendered with the operands of ==, !=, && and || (chains
// of one of them flattened) in a fixed order, so that `oldSelf == self`
// and `self == oldSelf`, or `a && (b && c)` and `(c && a) && b`, read the
// same. A rule that does not parse is its text.
func canonicalRule(rule string) string {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.MaxRecursionDepth(200), parser.EnableOptionalSyntax(true))
	if err != nil {
		return rule
	}
	tree, errs := p.Parse(common.NewTextSource(rule))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return rule
	}
	return canonicalExpr(tree.Expr())
}

func canonicalExpr(e celast.Expr) string {
	switch e.Kind() {
	case celast.LiteralKind:
		return fmt.Sprintf("%T(%v)", e.AsLiteral().Value(), e.AsLiteral().Value())
	case celast.IdentKind:
		return e.AsIdent()
	case celast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return "has(" + canonicalExpr(s.Operand()) + "." + s.FieldName() + ")"
		}
		return canonicalExpr(s.Operand()) + "." + s.FieldName()
	case celast.CallKind:
		c := e.AsCall()
		fn := c.FunctionName()
		var args []string
		switch fn {
		case operators.LogicalAnd, operators.LogicalOr:
			var flat func(x celast.Expr)
			flat = func(x celast.Expr) {
				if x.Kind() == celast.CallKind && x.AsCall().FunctionName() == fn {
					for _, a := range x.AsCall().Args() {
						flat(a)
					}
					return
				}
				args = append(args, canonicalExpr(x))
			}
			flat(e)
			slices.Sort(args)
			args = slices.Compact(args)
		default:
			for _, a := range c.Args() {
				args = append(args, canonicalExpr(a))
			}
			if fn == operators.Equals || fn == operators.NotEquals {
				slices.Sort(args)
			}
		}
		target := ""
		if c.IsMemberFunction() {
			target = canonicalExpr(c.Target()) + "."
		}
		return target + fn + "(" + strings.Join(args, ", ") + ")"
	case celast.ListKind:
		var items []string
		for _, x := range e.AsList().Elements() {
			items = append(items, canonicalExpr(x))
		}
		return "[" + strings.Join(items, ", ") + "]"
	case celast.MapKind:
		var items []string
		for _, x := range e.AsMap().Entries() {
			m := x.AsMapEntry()
			items = append(items, canonicalExpr(m.Key())+": "+canonicalExpr(m.Value()))
		}
		return "{" + strings.Join(items, ", ") + "}"
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		return fmt.Sprintf("comprehension(%s, %s, %s, %s, %s, %s, %s, %s)", c.IterVar(), c.IterVar2(), canonicalExpr(c.IterRange()), c.AccuVar(),
			canonicalExpr(c.AccuInit()), canonicalExpr(c.LoopCondition()), canonicalExpr(c.LoopStep()), canonicalExpr(c.Result()))
	}
	return fmt.Sprintf("<%v>", e.Kind())
}
