package placement

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/schema"
)

// Medium is what a fix is written in: the Go markers of the API types (the
// generators) or a CRD manifest's schema (lint).
type Medium int

const (
	// GoMarkers: the fix is markers on the Go field.
	GoMarkers Medium = iota
	// Manifest: the fix is a CEL rule or `required` in the CRD's schema.
	Manifest
)

// DroppedOnCreate reports whether the property p is one the status
// subresource drops on create: the object's status. Its writers (a
// controller, through the status subresource) add it after the object is
// created, so it can neither be required nor have its presence fixed at
// creation (docs/semantics.md, "The fix for a presence hole").
func DroppedOnCreate(p *schema.Node) bool {
	return p.Edge == schema.Property && p.Parent != nil && p.Parent.Parent == nil && p.Name == "status"
}

// filledByDescription matches a description that says who fills the field
// in: "is set by the controller", "populated by the machine controller",
// "filled in by the system", "will be set by the infrastructure provider".
// Such a field is absent at creation and added by a later update.
var filledByDescription = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:(?:is|are|gets|get|be|been)\s+)?(?:automatically\s+)?(?:set|populated|filled(?:\s+in)?|assigned)\s+by\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){0,3}?(?:controllers?|operators?|system|provider|reconcilers?|platform)\b`)
})

// FilledLater says why the optional property p may be filled in after its
// object was created, by what the schema says, or "" when nothing says so
// (docs/lint.md, "Set-once first"):
//
//   - it is under status: the status subresource drops status on create,
//     and a controller adds its fields in later status writes;
//   - its description says a controller, operator, the system or a
//     provider sets, populates or fills it in;
//   - it is a providerID (Cluster API's, and every infrastructure
//     provider's machines after it): the provider fills it in once the
//     machine exists.
//
// A strict presence rule would refuse that later update, so the fix keeps
// such a field once set (`!has(oldSelf.f) || has(self.f)`) first.
func FilledLater(p *schema.Node) string {
	if p == nil || p.Edge != schema.Property {
		return ""
	}
	for a := p; a != nil && a.Parent != nil; a = a.Parent {
		if DroppedOnCreate(a) {
			if a == p {
				return ""
			}
			return "a controller adds it in a status write"
		}
	}
	if filledByDescription().MatchString(p.Description()) {
		return "its description says who fills it in"
	}
	if strings.EqualFold(p.Name, "providerID") {
		return "a provider fills a providerID in once the machine exists"
	}
	return ""
}

// PresenceFix is the fix for a presence hole at the optional property p —
// nothing keeps its presence, so removing it and adding it back goes
// around the immutability at or below it — worded for the medium m. It is
// the one owner of the choice, which the generators (OptionalAncestors)
// and lint (IG010, IG013) both render:
//
//   - at a property the status subresource drops on create (status), keep
//     it once set: +k8s:update=NoUnset, or the rule `!has(oldSelf.p) ||
//     has(self.p)` on its parent; never `required` (every create fails:
//     the server drops status first) and never `has(self.p) ==
//     has(oldSelf.p)` (the first status write fails);
//   - elsewhere, keep its presence (set-once, when once says the value may
//     be set after creation, or FilledLater says it is filled in later:
//     only its removal is refused) or make it required.
func PresenceFix(p *schema.Node, once bool, m Medium) string {
	name := p.Name
	later := FilledLater(p)
	once = once || later != ""
	why := ""
	if later != "" {
		why = " — " + later
	}
	sel, ok := apiservercel.Escape(name)
	if m == GoMarkers {
		field := fmt.Sprintf("the field %q", name)
		if p.Parent != nil && p.Parent.Parent == nil {
			field += " of the kind's root type"
		}
		switch {
		case DroppedOnCreate(p):
			return fmt.Sprintf("add // +k8s:update=NoUnset to %s: %s may then be set after creation (the status subresource drops it on create) and never removed; not +required, which fails every create, nor +k8s:update=NoSet, which fails the first status write", field, name)
		case once:
			return fmt.Sprintf("add // +k8s:update=NoUnset to %s (%s may then be set after creation, never removed%s; with // +k8s:update=NoSet too if only at creation), or // +required", field, name, why)
		}
		required := ""
		if p.Parent != nil && p.Parent.Parent == nil {
			required = fmt.Sprintf(" (the CRD gets `required: [%s]`)", name)
		}
		return fmt.Sprintf("add // +required to %s%s, or // +k8s:update=NoSet and // +k8s:update=NoUnset to keep its presence (NoUnset alone if %s may be set after creation)", field, required, name)
	}
	parent := "the root schema"
	if p.Parent != nil && p.Parent.Parent != nil {
		parent = p.Parent.Path()
	}
	strict := fmt.Sprintf("has(self.%s) == has(oldSelf.%s)", sel, sel)
	lax := fmt.Sprintf("!has(oldSelf.%s) || has(self.%s)", sel, sel)
	switch {
	case !ok:
		// A name CEL cannot address: no rule can keep its presence.
		if DroppedOnCreate(p) {
			return fmt.Sprintf("nothing in the schema can keep %s once set (CEL cannot address it, and required fails every create): enforce it in an admission webhook", name)
		}
		return fmt.Sprintf("make %s required in %s", name, parent)
	case DroppedOnCreate(p):
		return fmt.Sprintf("add the rule `%s` to the x-kubernetes-validations of %s: %s may then be set after creation (the status subresource drops it on create) and never removed; not `required`, which fails every create, nor `%s`, which fails the first status write", lax, parent, name, strict)
	case once:
		return fmt.Sprintf("add the rule `%s` to the x-kubernetes-validations of %s (%s may then be set after creation, never removed%s; `%s` if only at creation), or make %s required", lax, parent, name, why, strict, name)
	}
	return fmt.Sprintf("add the rule `%s` to the x-kubernetes-validations of %s (`%s` if %s may be set after creation), or make %s required", strict, parent, lax, name, name)
}
