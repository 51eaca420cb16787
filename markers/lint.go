package markers

import (
	"fmt"
	"go/token"
	"iter"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/diag"
)

// IDNearMiss: a near-miss spelling of a marker, which controller-tools
// ignores silently.
const IDNearMiss diag.ID = "IG040"

// IDInvalid: a marker controller-tools' collector refuses (an invalid
// +immutable value, two messages).
const IDInvalid diag.ID = "IG041"

// IDWrapped: validation-gen's update tag wrapped in +k8s:alpha or
// +k8s:beta, which immutable-gen does not enforce.
const IDWrapped diag.ID = "IG042"

// IDMessageUnused: +immutable:message where the output has no place for
// it (the extensions, the openapi output).
const IDMessageUnused diag.ID = "IG030"

// Checks describes the findings about the markers themselves.
func Checks() []diag.Check {
	return []diag.Check{
		{ID: IDInvalid, Severity: diag.Error, Title: "an invalid +immutable marker (a value other than keys or once, two messages, …)"},
		{ID: IDMessageUnused, Severity: diag.Note, Title: "+immutable:message where the output has no place for it (extensions, openapi): only CEL rules carry it"},
		{ID: IDNearMiss, Severity: diag.Warning, Title: "a near-miss spelling of +immutable (+imutable, +Immutable, +immutable:keys), which would be ignored"},
		{ID: IDWrapped, Severity: diag.Note, Title: "validation-gen's +k8s:update or +k8s:immutable wrapped in +k8s:alpha or +k8s:beta: not enforced"},
		{ID: IDUnparsed, Severity: diag.Error, Title: "a marker controller-tools cannot parse (a kubebuilder or other marker whose value does not have the marker's type)"},
	}
}

// Lint reports near-miss spellings of the markers in the packages' comments,
// such as `+imutable`, `+Immutable` or `+immutable:keys`. controller-tools
// drops unknown markers silently, so without this a typo would leave a field
// mutable with no word said.
func Lint(pkgs []*loader.Package) diag.List {
	var out diag.List
	for c := range Comments(pkgs) {
		if msg := nearMiss(c.Text); msg != "" {
			out = append(out, diag.Diagnostic{ID: IDNearMiss, Pos: c.Pos, Severity: diag.Warning, Message: msg})
		}
		if msg := wrapped(c.Text); msg != "" {
			out = append(out, diag.Diagnostic{ID: IDWrapped, Pos: c.Pos, Severity: diag.Note, Message: msg,
				Fix: "write the tag unwrapped to enforce it now, or leave it until it graduates"})
		}
	}
	return out
}

// Comment is one // comment of a loaded Go file: its position and its text
// without the slashes and surrounding white space.
type Comment struct {
	Pos  token.Position
	Text string
}

// Comments yields every // comment of the packages' files, in the order of
// the packages, their files and the comments in each file: where markers
// are written, whether or not controller-tools parsed them.
func Comments(pkgs []*loader.Package) iter.Seq[Comment] {
	return func(yield func(Comment) bool) {
		for _, pkg := range pkgs {
			pkg.NeedSyntax()
			for _, file := range pkg.Syntax {
				for _, group := range file.Comments {
					for _, c := range group.List {
						text, ok := strings.CutPrefix(c.Text, "//")
						if !ok {
							continue
						}
						if !yield(Comment{pkg.Fset.Position(c.Pos()), strings.TrimSpace(text)}) {
							return
						}
					}
				}
			}
		}
	}
}

// wrapped returns a note for validation-gen's update or immutable tag
// wrapped in +k8s:alpha(…)= or +k8s:beta(…)=, or "".
func wrapped(text string) string {
	for _, w := range []string{"+k8s:alpha", "+k8s:beta"} {
		if !strings.HasPrefix(text, w) {
			continue
		}
		for _, tag := range []string{"+" + UpdateName, "+k8s:immutable"} {
			if i := strings.Index(text, "="+tag); i >= 0 {
				return fmt.Sprintf("%s is wrapped in %s: immutable-gen does not enforce wrapped tags (validation-gen runs them at a stability level of its own)", text[i+1:], w)
			}
		}
	}
	return ""
}

// nearMiss returns a warning for a marker comment that looks like ours but is
// not, or "" when it is ours or clearly something else.
func nearMiss(text string) string {
	marker, ok := strings.CutPrefix(text, "+")
	if !ok || marker == "" {
		return ""
	}
	if i := strings.IndexAny(marker, " \t"); i >= 0 {
		marker = marker[:i]
	}
	name, value, hasValue := strings.Cut(marker, "=")
	if name == Name || name == MessageName || name == IgnoreOrderName || name == WhenName {
		return "" // ours; its value is checked when parsed
	}
	suggest := "+" + Name
	for _, v := range []string{"keys", "once"} {
		if hasValue && strings.EqualFold(value, v) {
			suggest += "=" + v
		}
	}
	lower := strings.ToLower(name)
	switch {
	case lower == Name+":keys":
		return fmt.Sprintf("unknown marker +%s is ignored; did you mean +immutable=keys?", marker)
	case lower == Name+":once":
		return fmt.Sprintf("unknown marker +%s is ignored; did you mean +immutable=once?", marker)
	case lower == MessageName:
		return fmt.Sprintf("unknown marker +%s is ignored (markers are case-sensitive); did you mean +%s?", marker, MessageName)
	case strings.HasPrefix(lower, Name+":") && distance(lower, MessageName) <= 2:
		return fmt.Sprintf("unknown marker +%s is ignored; did you mean +%s?", marker, MessageName)
	case strings.HasPrefix(lower, Name+":") && distance(lower, strings.ToLower(IgnoreOrderName)) <= 2:
		return fmt.Sprintf("unknown marker +%s is ignored; did you mean +%s?", marker, IgnoreOrderName)
	case lower == Name:
		return fmt.Sprintf("unknown marker +%s is ignored (markers are case-sensitive); did you mean %s?", marker, suggest)
	}
	base, _, _ := strings.Cut(lower, ":")
	if d := distance(base, Name); d > 0 && d <= 2 {
		return fmt.Sprintf("unknown marker +%s is ignored; did you mean %s?", marker, suggest)
	}
	return ""
}

// distance is the Levenshtein distance between a and b, for short strings.
func distance(a, b string) int {
	if len(a) > 2*len(b) {
		return len(a)
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
