package lint

import (
	_ "embed"
	"regexp"
	"strings"
	"sync"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/schema"
)

// describedImmutable matches descriptions that promise immutability: "This
// field is immutable.", "Immutable." standing as a sentence anywhere
// (controller-gen's usual layout puts it on a line of its own), "is
// immutable once set", "cannot be changed after creation". Kubernetes' own
// "Cannot be updated." (copied into every CRD that embeds a PodSpec, and
// enforced by the Pod API, not by the CRD) is deliberately not among them.
var describedImmutable = regexp.MustCompile(`(?im)\b(?:is|are|be)\s+immutable\b|(?:^|[.!?:]\s+)immutable\b|\bimmutable\s+once\b|\bcannot\s+be\s+(?:changed|modified|updated)\s+(?:once|after)\b`)

// subjectIsTheField matches the words before "is immutable" in a sentence
// whose subject is the field itself: "This field", "The value", "It",
// rather than something else ("the resulting Secret will be immutable", on
// a boolean switch).
var subjectIsTheField = regexp.MustCompile(`(?i)\b(?:field|fields|value|values|property|setting|it|this|these|they|once\s+set)\b`)

// k8sText holds the immutability sentences of Kubernetes' own API types
// (k8s.io/api), one "jsonName<TAB>sentence" a line, generated from the
// k8s.io/api module by TestK8sText (go test ./lint -run K8sText -update).
//
//go:embed k8stext.txt
var k8sText string

var k8sSentences = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(k8sText, "\n") {
		if line != "" {
			m[line] = true
		}
	}
	return m
})

// normalizeSentence folds white space, so that a sentence wrapped
// differently by another generator still matches.
func normalizeSentence(s string) string { return strings.Join(strings.Fields(s), " ") }

// promise returns the sentence of the description desc of property name
// that promises immutability, and whether there is one that is not
// Kubernetes' own text.
func promise(name, desc string) (string, bool) {
	// Most descriptions say neither: skip the regular expression (a fifth
	// of lint's time on large CRDs without this test).
	if !strings.Contains(desc, "mmutable") && !strings.Contains(desc, "annot be") {
		return "", false
	}
	for _, loc := range describedImmutable.FindAllStringIndex(desc, -1) {
		s := sentenceAt(desc, loc)
		if k8sSentences()[name+"\t"+normalizeSentence(s)] {
			continue // Kubernetes' own text, enforced by its API on its objects
		}
		m := strings.ToLower(desc[loc[0]:loc[1]])
		if strings.Contains(m, " immutable") && !strings.HasPrefix(strings.TrimLeft(m, ".!?: \t\n"), "immutable") {
			// "X is immutable": only when X is the field.
			start := strings.LastIndexAny(desc[:loc[0]], ".!?") + 1
			subject := desc[start:loc[0]]
			if !subjectIsTheField.MatchString(subject) && !strings.Contains(strings.ToLower(subject), strings.ToLower(name)) {
				continue
			}
		}
		return s, true
	}
	return "", false
}

// describedOnly reports the properties whose description says they are
// immutable and that nothing in the CRD enforces: no transition rule on
// the field, none on an object above it that names it or makes it
// immutable, none below it, no immutability extension on it, above it or
// below it (IG014). Often the promise is kept by a webhook (Cluster API's
// are), so this is information for the author. Not reported: Kubernetes'
// own descriptions (k8sText: embedded Pod, Job and PVC templates carry
// them, and the Kubernetes API enforces them on its own objects), and
// fields of status (written by controllers; ASO copies its spec's
// descriptions there).
func (c *crdLint) describedOnly(root *schema.Node, rules map[*schema.Node][]rule) {
	status := root.Properties["status"]
	eachNode(root, func(n *schema.Node) {
		if n.Edge != schema.Property {
			return
		}
		s, ok := promise(n.Name, n.Description())
		if !ok || enforced(n, rules) {
			return
		}
		for a := n; a != nil; a = a.Parent {
			if a == status && status != nil {
				return
			}
		}
		c.report(c.version, n.Path(), IDDescribedOnly,
			"if it must not change, add `self == oldSelf` (and a presence rule on its object) or generate them with immutable-gen's +immutable; if a webhook enforces it, nothing to do, or silence it (docs/lint.md, \"Silencing a finding\")",
			"the description says %q, but nothing in the CRD enforces it: no transition rule on it, above it naming it or below it, no immutability extension", crdvalidation.ShortRule(s))
	})
}

// enforced reports whether a rule or extension may keep n from changing:
// a transition rule on n or below it, an immutability rule on an object
// above it, a transition rule above it whose text names n, or an
// immutability extension on n, above it or below it.
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
	below := false
	n.Visit(func(x *schema.Node) bool {
		if below {
			return false
		}
		if x != n {
			for _, r := range rules[x] {
				below = below || r.usesOldSelf
			}
			below = below || x.ExtensionTrue(extension.Immutable) || x.ExtensionTrue(extension.ImmutableOnce) || x.ExtensionTrue(extension.ImmutableKeys)
		}
		return !below
	})
	return below
}

// sentenceAt returns the sentence of s holding s[loc[0]:loc[1]].
func sentenceAt(s string, loc []int) string {
	start := loc[0]
	// A match may begin with the end of the sentence before ("…. Immutable").
	for start < loc[1] && strings.ContainsRune(".!?: \t\n", rune(s[start])) {
		start++
	}
	start = strings.LastIndexAny(s[:start], ".!?") + 1
	end := len(s)
	if i := strings.IndexAny(s[loc[1]:], ".!?"); i >= 0 {
		end = loc[1] + i + 1
	}
	return normalizeSentence(s[start:end])
}
