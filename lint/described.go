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
// immutable once set", "becomes immutable", "cannot be changed after
// creation", "can not be modified once set", and the same promise with the
// condition first: "Once set, this field cannot be changed." (OpenShift's
// DNS fields), "Once the cluster is created, it cannot be updated.".
// Kubernetes' own "Cannot be updated." (copied into every CRD that embeds
// a PodSpec, and enforced by the Pod API, not by the CRD) is deliberately
// not among them: a change refused with no "once" or "after" is too often
// another promise ("cannot be changed to a lower value").
var describedImmutable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)\b(?:is|are|be|becomes?)\s+immutable\b|(?:^|[.!?:]\s+)immutable\b|\bimmutable\s+once\b|` +
		`\b` + refusedChange + `\s+(?:once|after)\b|` +
		`\b(?:once|after)\s+(?:[^.!?,;]{0,40}?\s)?(?:set|created|specified|populated|assigned|provided|creation)\b[^.!?]*?\b` + refusedChange + `\b`)
})

// refusedChange is "cannot be changed" and its variants (can not, can't,
// may not, must not; modified, updated, altered, mutated).
const refusedChange = `(?:cannot|can\s+not|can't|may\s+not|must\s+not)\s+be\s+(?:changed|modified|updated|altered|mutated)`

// subjectIsTheField matches the words before "is immutable" in a sentence
// whose subject is the field itself: "This field", "The value", "It",
// rather than something else ("the resulting Secret will be immutable", on
// a boolean switch).
var subjectIsTheField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:field|fields|value|values|property|setting|it|this|these|they|once\s+set)\b`)
})

// someOfThem matches a subject that is some of an object's fields, not the
// field described: "Most spec fields", "Some of the fields", "Other
// settings". A sentence about an object in general ("Most spec fields are
// immutable.", on spec) says nothing of which field it means.
var someOfThem = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:most|some|many|several|certain|few|other|various)\s+(?:of\s+(?:the|its|these)\s+)?(?:[\w.-]+\s+){0,2}?(?:fields|properties|values|settings|attributes|parameters)\b`)
})

// k8sText holds the immutability sentences of Kubernetes' own API types
// (k8s.io/api), one "jsonName<TAB>sentence" a line, generated from the
// k8s.io/api module by TestK8sText (go test ./lint -run K8sText -update).
//
//go:embed k8stext.txt
var k8sText string

// upstreamText holds the immutability sentences of the types of other
// projects that CRDs embed widely (JobSet's JobSetSpec in Kubeflow
// Trainer's runtime templates), one "group<TAB>jsonName<TAB>sentence" a
// line, group being the API group of the project's own CRDs, generated from
// the modules of upstreamModules by TestUpstreamText (go test ./lint -run
// UpstreamText -update).
//
//go:embed upstreamtext.txt
var upstreamText string

// upstreamSentences maps "jsonName<TAB>sentence" to the API group whose
// own objects the sentence is a promise of: "" for Kubernetes' own types
// (no CRD serves their groups), the project's group for another project's.
var upstreamSentences = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(k8sText, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			m[line] = ""
		}
	}
	for _, line := range strings.Split(upstreamText, "\n") {
		if group, rest, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
			if _, k8s := m[rest]; !k8s {
				m[rest] = group // Kubernetes' own text stays Kubernetes' everywhere
			}
		}
	}
	return m
})

// upstreamSentence reports whether sentence, in the description of the
// property name of a CRD of group, is the text of an upstream type the CRD
// embeds: Kubernetes' own, or another project's outside that project's own
// CRDs. The promise is the upstream type's, kept by the upstream API on
// its own objects, not the custom resource's.
func upstreamSentence(group, name, sentence string) bool {
	owner, ok := upstreamSentences()[name+"\t"+sentence]
	return ok && owner != group
}

// normalizeSentence folds white space, so that a sentence wrapped
// differently by another generator still matches.
func normalizeSentence(s string) string { return strings.Join(strings.Fields(s), " ") }

// promise returns the sentence of the description desc of property name,
// in a CRD of the API group group, that promises immutability, and whether
// there is one that is the field's own promise: not an upstream type's text
// (upstreamSentence), not about some of an object's fields in general
// (someOfThem), and, for "X is immutable", with the field as X.
func promise(group, name, desc string) (string, bool) {
	// Most descriptions say neither: skip the regular expression (a fifth
	// of lint's time on large CRDs without this test).
	if !strings.Contains(desc, "mmutable") && !strings.Contains(desc, "not be") && !strings.Contains(desc, "n't be") {
		return "", false
	}
	for _, loc := range describedImmutable().FindAllStringIndex(desc, -1) {
		s := sentenceAt(desc, loc)
		if upstreamSentence(group, name, s) {
			continue // an upstream type's text, enforced by its API on its objects
		}
		start := sentenceStart(desc, loc)
		// The subject: the sentence up to the match, or for "once set, X
		// cannot be changed" up to the refusal; after the last ';'.
		subject := desc[start:max(start, loc[0])]
		if refused := refusedChangeRE().FindStringIndex(desc[loc[0]:loc[1]]); refused != nil && refused[0] > 0 {
			subject = desc[start:max(start, loc[0]+refused[0])]
		}
		if i := strings.LastIndexByte(subject, ';'); i >= 0 {
			subject = subject[i+1:]
		}
		if someOfThem().MatchString(subject) {
			continue // about some fields of an object, not this one
		}
		if refusalAtEnd().MatchString(desc[loc[0]:loc[1]]) && oneWay().MatchString(desc[loc[1]:]) {
			continue // "cannot be changed back to Manual": one transition refused, not every change
		}
		m := strings.ToLower(desc[loc[0]:loc[1]])
		if strings.Contains(m, " immutable") && !strings.HasPrefix(strings.TrimLeft(m, ".!?: \t\n"), "immutable") {
			// "X is immutable": only when X is the field.
			subject := desc[start:max(start, loc[0])]
			if !subjectIsTheField().MatchString(subject) && !strings.Contains(strings.ToLower(subject), strings.ToLower(name)) {
				continue
			}
		}
		return s, true
	}
	return "", false
}

// oneWay matches what follows a refused change that is not every change:
// "cannot be changed back to Manual", "… to a smaller size", "… except to
// add a zone".
var oneWay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s+(?:back|to|from|into|except|unless|other\s+than)\b`)
})

// refusalAtEnd matches a match that ends with the refused change (the
// condition came first), which oneWay may then narrow.
var refusalAtEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)` + refusedChange + `$`) })

// refusedChangeRE finds "cannot be changed" (and its variants) in a match.
var refusedChangeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)` + refusedChange) })

// describedOnly reports the properties whose description says they are
// immutable and that nothing in the CRD enforces: no transition rule on
// the field, none on an object above it that names it or makes it
// immutable, none below it, no immutability extension on it, above it or
// below it (IG014). Often the promise is kept by a webhook (Cluster API's
// are), so this is information for the author. Not reported: upstream
// types' descriptions (upstreamSentence: embedded Pod, Job and PVC
// templates carry Kubernetes' own, Kubeflow's runtimes JobSet's, and the
// upstream API enforces them on its own objects), sentences about some of
// an object's fields (promise), and status (inStatus).
func (c *crdLint) describedOnly(root *schema.Node, rules map[*schema.Node][]rule) {
	eachNode(root, func(n *schema.Node) {
		if n.Edge != schema.Property {
			return
		}
		s, ok := promise(c.group, n.Name, n.Description())
		if !ok || enforced(n, rules) || inStatus(n) {
			return
		}
		c.report(c.version, n.Path(), IDDescribedOnly,
			"if it must not change, add `self == oldSelf` (and a presence rule on its object) or generate them with immutable-gen's +immutable; if a webhook enforces it, nothing to do, or silence it (docs/lint.md, \"Silencing a finding\")",
			"the description says %q, but nothing in the CRD enforces it: no transition rule on it, above it naming it or below it, no immutability extension", crdvalidation.ShortRule(s))
	})
}

// inStatus reports whether n is status or below it: the object's status
// (written by controllers; ASO copies its spec's descriptions there), or a
// status object embedded below spec (a PersistentVolumeClaim template's, a
// status type reused in a spec), which describes what a controller
// observes, not what the custom resource promises. A scalar property named
// status below spec (a desired state, "Active") is not.
func inStatus(n *schema.Node) bool {
	for a := n; a.Parent != nil; a = a.Parent {
		if a.Edge == schema.Property && a.Name == "status" && (topLevel(a) || a.Type() == "object") {
			return true
		}
	}
	return false
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

// sentenceStart returns where the sentence of s holding s[loc[0]:loc[1]]
// begins.
func sentenceStart(s string, loc []int) int {
	start := loc[0]
	// A match may begin with the end of the sentence before ("…. Immutable").
	for start < loc[1] && strings.ContainsRune(".!?: \t\n", rune(s[start])) {
		start++
	}
	return strings.LastIndexAny(s[:start], ".!?") + 1
}

// sentenceAt returns the sentence of s holding s[loc[0]:loc[1]].
func sentenceAt(s string, loc []int) string {
	start := sentenceStart(s, loc)
	end := len(s)
	if i := strings.IndexAny(s[loc[1]:], ".!?"); i >= 0 {
		end = loc[1] + i + 1
	}
	return normalizeSentence(s[start:end])
}
