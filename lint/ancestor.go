package lint

import (
	"fmt"
	"regexp"

	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/schema"
)

// onceSet matches the messages of rules meant to make a field immutable
// once set ("cannot be changed once set", "is immutable once set", "may be
// set once", "cannot change after it is set"): the author wants set-once semantics, not a field fixed at
// creation.
var onceSet = regexp.MustCompile(`(?i)\bonce\s+(?:it\s+is\s+|it's\s+|they\s+are\s+|it\s+has\s+been\s+)?(?:set|specified|assigned|populated|provided)\b|\bset\s+once\b|\bafter\s+(?:it\s+is\s+|it\s+has\s+been\s+|being\s+)?(?:set|specified)\b`)

// whileSet matches the messages of rules meant to fix a field only while it
// is there ("immutable while set", validation-gen's +k8s:update=NoModify):
// it may be removed and set again.
var whileSet = regexp.MustCompile(`(?i)\bwhile\s+(?:it\s+is\s+)?(?:set|present)\b`)

// setOnce reports whether the message of the immutability rule r asks for
// set-once semantics.
func setOnce(r rule) bool { return onceSet.MatchString(r.message) }

// optionalAncestor reports an immutable property n, pinned within its
// parent (present always, or its presence kept by the rules), under an
// optional top-level property of the object — spec — whose presence no
// rule compares: removing spec and adding it back, changed, goes around
// every rule below it, since a transition rule runs only where its value
// exists in the old and the new object (IG013).
//
// Deeper optional objects are left alone: by the KEP's semantics
// (docs/semantics.md 2.3) an optional object holding immutable fields may be set
// and removed with them, and immutable-gen generates exactly that; the
// object's top-level sections are where authors do not mean it. For the
// same reason nothing is reported when n is reachable another way — under
// list items or map values (added and removed by key), or below an optional
// object in between.
func (c *crdLint) optionalAncestor(a *celAnalysis, n *schema.Node, guard rule) {
	top := n.Parent
	if top == nil || top.Parent == nil {
		return // n is a top-level property itself (IG010 covers it)
	}
	for top.Parent.Parent != nil {
		if top.Edge != schema.Property {
			return
		}
		if !top.AlwaysPresent() && (!a.blocked(top, true, false) || !a.blocked(top, false, true)) {
			return // an optional object in between: it may come and go (docs/semantics.md 2.3)
		}
		top = top.Parent
	}
	if top.Edge != schema.Property || top.AlwaysPresent() {
		return
	}
	removable := !a.blocked(top, true, false)
	if !removable {
		return
	}
	addable := !a.blocked(top, false, true)
	name := top.Name
	fix := fmt.Sprintf("make %s required (`required: [%s]` on the root schema; +required on the field in Go)", name, name)
	if sel, ok := apiservercel.Escape(name); ok {
		if setOnce(guard) {
			fix += fmt.Sprintf(", or add the rule `!has(oldSelf.%s) || has(self.%s)` to the x-kubernetes-validations of the root schema (%s may then be added after creation, never removed)", sel, sel, name)
		} else {
			fix += fmt.Sprintf(", or add the rule `has(self.%s) == has(oldSelf.%s)` to the x-kubernetes-validations of the root schema (`!has(oldSelf.%s) || has(self.%s)` if %s may be added after creation)", sel, sel, sel, sel, name)
		}
	}
	how := "removed and added again with any value"
	if !addable {
		how = "removed, and the field with it"
	}
	c.report(c.version, n.Path(), IDOptionalAncestor, fix,
		"immutable by the rule `%s`, but its optional ancestor %s can be %s: nothing compares the presence of %s, and a transition rule runs only where the field exists in the old and the new object", crdvalidation.ShortRule(guard.text), top.Path(), how, top.Path())
}
