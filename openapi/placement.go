package openapi

import (
	"fmt"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Placement: package placement checks every marker against the placement
// rules of docs/semantics.md 2.2 on the definitions' trees (tree.go), as it does on
// a CRD's schema; this file writes the patches, and renders validation's
// findings at the markers' Go positions with openapi-gen's own hints.

// The IDs of the openapi generator's own findings: what openapi-gen gives
// no place (placement findings are validation's).
const (
	// IDUnpublished: a marker on something openapi-gen does not publish.
	IDUnpublished diag.ID = "IG060"
	// IDInline: a marker on an inline embedded field.
	IDInline diag.ID = "IG061"
	// IDPackageSkipped: markers in a package openapi-gen generates nothing for.
	IDPackageSkipped diag.ID = "IG062"
	// IDWhen: +immutable:when whose condition the runtime does not
	// evaluate; the others are carried as x-immutable-gen-when.
	IDWhen diag.ID = "IG063"
)

// Checks describes the openapi generator's own findings.
func Checks() []diag.Check {
	return []diag.Check{
		{ID: IDUnpublished, Severity: diag.Error, Title: "a marker on a field or type openapi-gen does not publish (openapi-gen=false, no JSON name, unexported, generic, hand-written schema)"},
		{ID: IDInline, Severity: diag.Error, Title: "a marker on an inline embedded field, whose properties belong to the enclosing struct"},
		{ID: IDPackageSkipped, Severity: diag.Note, Title: "markers in a package openapi-gen generates no definitions for"},
		{ID: IDWhen, Severity: diag.Error, Title: "+immutable:when whose condition is outside the subset of CEL the runtime evaluates (the openapi output carries the others as x-immutable-gen-when)"},
	}
}

// problem is what is wrong with a marker openapi-gen gives no place, and
// what to do.
type problem struct {
	id       diag.ID
	msg, fix string
}

// place builds the tree of each definition, writes the definition's patches
// from its own tree, and reports what package placement finds in the
// trees, each finding once.
func (a *analyzer) place(defs []*definition) error {
	var found []placed
	for _, d := range defs {
		t, err := a.tree(d)
		if err != nil {
			return fmt.Errorf("openapi: the immutability model of %s: %w", d.display, err)
		}
		a.patch(t)
		if !t.marked {
			continue
		}
		findings := placement.PartFindings(t.root)
		if d.kind {
			findings = placement.Findings(t.root)
		}
		for _, f := range findings {
			if d.list && f.Rule == placement.RuleWhen {
				continue
			}
			n := t.nodes[f.Node.Pointer()]
			if n == nil || n.site.def == nil {
				continue // not written by this run: another package's to report
			}
			found = append(found, placed{f, n, n.site.def == d})
		}
	}
	for _, p := range distinct(found) {
		a.render(p)
	}
	return nil
}

// patch writes the patches of the definition of t: the markers on the
// nodes openapi-gen writes in that definition's schema.
func (a *analyzer) patch(t *objectTree) {
	for _, n := range t.order {
		if n.site.def != t.def {
			continue
		}
		for _, o := range n.patched() {
			a.add(t.def, n.site.pointer, o)
		}
	}
}

// add writes the marker o at pointer below the schema of def.
func (a *analyzer) add(def *definition, pointer string, o schema.Origin) {
	a.handled[idOf(o)] = true
	if o.When != "" {
		if pos, msg, refused := o.WhenRefusal(); refused {
			if !a.whenNoted[idOf(o)] {
				a.whenNoted[idOf(o)] = true
				a.diags = append(a.diags, diag.Diagnostic{ID: IDWhen, Pos: pos, Severity: diag.Error,
					Subject: fmt.Sprintf("+%s on %s", markers.WhenName, o.Where()),
					Message: fmt.Sprintf("the condition `%s` is outside what the runtime evaluates, which enforces the openapi output (%s): %s", o.When, extension.When, msg),
					Fix:     "rewrite the condition in the subset (docs/semantics.md, \"The condition subset\"), or enforce the conditional rule in the API server's own update validation (a CEL rule or Go) and drop +immutable:when here"})
			}
			return
		}
	}
	if o.Message != "" && !a.noted[idOf(o)] {
		a.noted[idOf(o)] = true
		a.diagAt(o, "", diag.Note, problem{
			markers.IDMessageUnused,
			"its +immutable:message is not carried: the extensions have no place for it, and the immutable-gen runtime reports `field is immutable`; only the CRD output's CEL rules use it",
			""})
	}
	forms := formsOf(o)
	if o.IgnoreOrder && !o.Keys {
		forms = append(forms, ignoreOrderForm)
	}
	if o.When != "" {
		forms = append(forms, whenForm)
	}
	for _, f := range forms {
		addPatch(def, pointer, f, o)
	}
}

// addPatch writes the extension of form f for the marker o at pointer below
// the schema of def, once.
func addPatch(def *definition, pointer string, f form, o schema.Origin) {
	for _, p := range def.patches {
		if p.pointer == pointer && p.form == f {
			for _, x := range p.origins {
				if idOf(x) == idOf(o) {
					return
				}
			}
			p.origins = append(p.origins, o)
			return
		}
	}
	p := &patch{pointer: pointer, form: f, origins: []schema.Origin{o}}
	if f == whenForm {
		p.condition = o.When
	}
	def.patches = append(def.patches, p)
}

// placed is a placement finding on a node of a definition's tree.
type placed struct {
	placement.Finding
	node *treeNode
	// native is set when the tree is that of the definition the node is
	// written in, whose paths the messages then use.
	native bool
}

// atUse reports whether the finding is about a type marker of the struct
// used at the node, which goes on that struct's definition.
func (p placed) atUse() bool {
	for _, o := range p.node.structOrigins {
		if idOf(o) == idOf(p.Origin) {
			return true
		}
	}
	return false
}

type placedKey struct {
	origin  originID
	rule    placement.Rule
	detail  string
	def     *definition
	pointer string
}

// distinct keeps one of the findings about one marker, rule and node site, the
// native one when there is one (a type is used in several definitions,
// whose trees all hold it), else the first; and drops a finding about a
// struct type's marker at a use that reads as the one on the type's own
// definition.
func distinct(found []placed) []placed {
	index := map[placedKey]int{}
	var out []placed
	for _, p := range found {
		k := placedKey{idOf(p.Origin), p.Rule, p.Detail, p.node.site.def, p.node.site.pointer}
		if i, ok := index[k]; ok {
			if p.native && !out[i].native {
				out[i] = p
			}
			continue
		}
		index[k] = len(out)
		out = append(out, p)
	}
	kept := out[:0:0]
	for _, p := range out {
		if p.atUse() {
			i, ok := index[placedKey{idOf(p.Origin), p.Rule, p.Detail, p.node.structDef, ""}]
			if ok && out[i].Message == p.Message && out[i].Fix == p.Fix {
				continue
			}
		}
		kept = append(kept, p)
	}
	return kept
}

// render reports a finding at its marker's Go position.
func (a *analyzer) render(p placed) {
	fix := p.Fix
	if p.Rule == placement.RuleNoKeys && p.Detail == "atomic list" {
		fix = listFix(p.node, fix)
	}
	if p.Severity == diag.Error {
		a.handled[idOf(p.Origin)] = true
	}
	a.diagAt(p.Origin, p.node.site.where(), p.Severity, problem{p.Rule.ID(), p.Message, fix})
}

// listFix is the fix for =keys on an atomic list as openapi-gen sees it: it
// reads +listType and +listMapKey from the field's comments only, and
// ignores a +listType on the list's named type.
func listFix(n *treeNode, fix string) string {
	if n.ignoredListType != "" {
		return fmt.Sprintf("add +listType=map and +listMapKey=<field> to the field's comments: openapi-gen reads +listType from the field's comments only, and ignores the +listType=%s of type %s", n.ignoredListType, n.listTypeOwner)
	}
	return fix + " on the field"
}
