package lint

import (
	"regexp"
	"strings"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/schema"
)

// describedImmutable matches descriptions that promise immutability: "This
// field is immutable.", "Immutable.", "is immutable once set", "cannot be
// changed after creation". Kubernetes' own "Cannot be updated." (copied
// into every CRD that embeds a PodSpec, and enforced by the Pod API, not by
// the CRD) is deliberately not among them.
var describedImmutable = regexp.MustCompile(`(?i)\b(?:is|are|be)\s+immutable\b|^\s*immutable\b|\bimmutable\s+once\b|\bcannot\s+be\s+(?:changed|modified|updated)\s+(?:once|after)\b`)

// describedOnly reports the properties whose description says they are
// immutable and that nothing in the CRD enforces: no transition rule on
// the field, none on an object above it that names it, no immutability
// extension on it or above it (IG014). Often the promise is kept by a
// webhook (Cluster API's are), so this is information for the author.
func (c *crdLint) describedOnly(root *schema.Node, rules map[*schema.Node][]rule) {
	root.Walk(func(n *schema.Node) {
		if n.Edge != schema.Property {
			return
		}
		desc := n.Description()
		// Most descriptions say neither: skip the regular expression (a
		// fifth of lint's time on large CRDs without this test).
		if !strings.Contains(desc, "mmutable") && !strings.Contains(desc, "annot be") {
			return
		}
		loc := describedImmutable.FindStringIndex(desc)
		if loc == nil || enforced(n, rules) {
			return
		}
		c.report(c.version, n.Path(), IDDescribedOnly,
			"if it must not change, add `self == oldSelf` (and a presence rule on its object) or generate them with immutable-gen's +immutable; if a webhook enforces it, nothing to do",
			"the description says %q, but nothing in the CRD enforces it: no transition rule on it or naming it above it, no immutability extension", sentence(desc, loc))
	})
}

// enforced reports whether a rule or extension may keep n from changing:
// a transition rule on n, an immutability rule on an object above it, a
// transition rule above it whose text names n, or an immutability extension
// on n or above it.
func enforced(n *schema.Node, rules map[*schema.Node][]rule) bool {
	for x := n; x != nil; x = x.Parent {
		if x.ExtensionTrue(extension.Immutable) || x.ExtensionTrue(extension.ImmutableOnce) || x.ExtensionTrue(extension.NoModify) || x.ExtensionTrue(extension.ImmutableKeys) && x == n {
			return true
		}
		for _, r := range rules[x] {
			if !r.usesOldSelf {
				continue
			}
			if x == n || r.expr != nil && guards(x, r) || strings.Contains(r.text, n.Name) {
				return true // on n, an immutable ancestor, or a rule above naming n
			}
		}
	}
	return false
}

// sentence returns the sentence of s holding s[loc[0]:loc[1]], shortened.
func sentence(s string, loc []int) string {
	start := strings.LastIndexAny(s[:loc[0]], ".\n") + 1
	end := len(s)
	if i := strings.IndexAny(s[loc[1]:], ".\n"); i >= 0 {
		end = loc[1] + i + 1
	}
	return crdvalidation.ShortRule(strings.TrimSpace(s[start:end]))
}
