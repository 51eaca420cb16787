// Package lint finds the holes in the immutability of CustomResourceDefinitions
// that already exist — written by hand, by controller-gen (`+k8s:immutable`,
// `+kubebuilder:validation:XValidation:rule="self == oldSelf"`) or by
// immutable-gen — without running a cluster.
//
// It reads CRD manifests (YAML or JSON, one or many documents per file,
// whole directories) and reports, per CRD version and schema path:
//
//   - the KEP's vendor extensions (x-kubernetes-immutable,
//     x-kubernetes-immutable-keys) where the KEP forbids them or where they
//     mean nothing, checked with the same placement rules immutable-gen
//     applies to its markers (placement.Findings on a model read by
//     schema.FromExtensions), and that `kubectl apply` rejects them;
//   - CEL transition rules that do not make a field as immutable as they
//     look: an optional field guarded by `self == oldSelf` whose presence no
//     rule compares, so that it can be removed and set again, or added
//     later, or under an optional spec that can be removed and added back;
//     `self == oldSelf` where CEL ignores the order of list maps; fields
//     whose description promises immutability that nothing enforces;
//   - everything the API server refuses when the CRD is created (oldSelf
//     under uncorrelatable list items, the CEL cost budget, optionalOldSelf
//     without oldSelf, rules that do not compile, any other refusal), found by
//     running apiextensions-apiserver's own CRD validation and translated to
//     schema paths.
//
// Evolve (`immutable-gen lint --base OLD NEW`) compares two revisions of
// the same CRDs: per field of every paired version, what each enforces,
// and each weakening and strengthening proved with an update whose verdict
// differs between the two, as the API server's validator gives it
// (package preflight).
//
// Documents that are not CRDs are skipped, and so are partial CRDs
// (kustomize patches such as config/crd/patches/webhook_in_*.yaml).
//
// Every finding has a stable ID (IG001…), a severity, a schema path and a
// one-line fix; Catalog lists them. docs/lint.md documents each one.
package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/placement"
)

// Severity of a finding: diag's severities, in lint's words (a note is
// "info", as linters call it).
type Severity = diag.Severity

const (
	// Info is worth knowing; it does not fail a run by default.
	Info = diag.Note
	// Warning is a hole in the immutability the CRD seems to promise.
	Warning = diag.Warning
	// Error is a CRD the API server refuses, or extensions the KEP forbids.
	Error = diag.Error
)

// severityName is lint's word for a severity: "info", "warning" or "error".
func severityName(s Severity) string {
	if s == Info {
		return "info"
	}
	return s.String()
}

// ParseSeverity parses "info", "warning" or "error".
func ParseSeverity(s string) (Severity, error) {
	for _, v := range []Severity{Info, Warning, Error} {
		if s == severityName(v) {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: want info, warning or error", s)
}

// A finding of lint is a diag.Diagnostic, the one diagnostic type of
// immutable-gen: Pos.Filename is the manifest as it was named (a path given
// or found in a directory given), Pos.Line the line of it where the
// finding's schema node (its key) is, or the first line of its document
// when the node has none there (JSON, flow style, findings about the CRD
// itself), 0 if unknown; CRD the CRD's name, Version the CRD version whose
// schema Path is in ("" for a finding about the CRD itself), Path where in
// the object the finding is (`spec.ports[*].name`, `<root>` for the object
// itself, and for findings outside the schema the CRD's own field prefixed
// with `<crd>.`, e.g. `<crd>.spec.names.plural`).

// where is a finding's file and line: FILE:LINE, or FILE.
func where(f diag.Diagnostic) string {
	if f.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d", f.Pos.Filename, f.Pos.Line)
	}
	return f.Pos.Filename
}

// Format renders a finding of lint as one line:
//
//	FILE:LINE: CRD/VERSION PATH: SEVERITY[ID]: MESSAGE; fix: FIX
func Format(f diag.Diagnostic) string {
	crd := f.CRD
	if f.Version != "" {
		crd += "/" + f.Version
	}
	s := fmt.Sprintf("%s: %s %s: %s[%s]: %s", where(f), crd, f.Path, severityName(f.Severity), f.ID, f.Message)
	if f.Fix != "" {
		s += "; fix: " + f.Fix
	}
	return s
}

// jsonFinding is a finding of lint as one JSON object, the severity by its
// name.
type jsonFinding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	CRD      string `json:"crd"`
	Version  string `json:"version"`
	Path     string `json:"path"`
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
	// Rules are every rule the finding is about (a hole: every rule it
	// goes around, where the message names three), never null.
	Rules []diag.RuleAt `json:"rules"`
}

// ruleList is every rule of rules, at its node's path, for a finding's
// Rules (describeRules names the first three in its message).
func ruleList(rules []ruleAt) []diag.RuleAt {
	out := make([]diag.RuleAt, len(rules))
	for i, r := range rules {
		out[i] = diag.RuleAt{Path: r.node.Path(), Rule: r.r.text}
		if r.fixOf != nil {
			out[i].FixFor = r.fixOf.Path()
		}
	}
	return out
}

// Check describes one kind of finding.
type Check = diag.Check

// The IDs of the findings. They are stable: a check that is removed leaves a
// gap, it is never renumbered. The placement findings' and the API
// server's are validation's, declared beside their rules: the generators
// report them too.
const (
	IDExtensionValue     diag.ID = "IG001"
	IDExtensionForbidden         = placement.IDForbiddenPlace
	IDKeysWithoutKeys            = placement.IDNoKeys
	IDExtensionsBoth             = placement.IDExclusive
	IDListMapKey                 = placement.IDListMapKey
	IDInsideSet                  = placement.IDNoEffect
	IDRedundant                  = placement.IDRedundant
	IDKubectlApply       diag.ID = "IG008"
	IDExtensionIgnored   diag.ID = "IG009"
	IDPresence           diag.ID = "IG010"
	IDOnceSet            diag.ID = "IG011"
	IDListMapOrder       diag.ID = "IG012"
	IDOptionalAncestor           = placement.IDOptionalAncestor
	IDDescribedOnly      diag.ID = "IG014"
	IDVersionSkew        diag.ID = "IG017"
	IDOptionalObject     diag.ID = "IG018"
	IDRatcheting         diag.ID = "IG037"
	IDAbsentError        diag.ID = "IG038"
	IDOnceNotProperty            = placement.IDOnceProperty
	IDOnceRequired               = placement.IDOnceRequired
	IDUncorrelatable             = crdvalidation.IDUncorrelatable
	IDCost                       = crdvalidation.IDCost
	IDOptionalOldSelf            = crdvalidation.IDOptionalOldSelf
	IDRuleInvalid                = crdvalidation.IDRuleInvalid
	IDRefused                    = crdvalidation.IDRefused
)

// Catalog lists every check, by ID.
func Catalog() []Check {
	checks := []Check{
		{ID: IDExtensionValue, Severity: Error, Title: "an immutability extension whose value is not the boolean true"},
		{ID: IDExtensionForbidden, Severity: Error, Title: "an immutability extension at the root, in metadata, or on apiVersion or kind"},
		{ID: IDKeysWithoutKeys, Severity: Error, Title: "x-kubernetes-immutable-keys on a node without keys (set, atomic list, atomic map, struct, scalar)"},
		{ID: IDExtensionsBoth, Severity: Error, Title: "x-kubernetes-immutable and x-kubernetes-immutable-keys on one node"},
		{ID: IDListMapKey, Severity: Error, Title: "x-kubernetes-immutable-keys on a list map whose key is not immutable"},
		{ID: IDInsideSet, Severity: Warning, Title: "an immutability extension inside the items of a set, where it has no effect"},
		{ID: IDRedundant, Severity: Info, Title: "an immutability extension inside an already immutable subtree"},
		{ID: IDKubectlApply, Severity: Info, Title: "the CRD carries the KEP extensions, which kubectl apply rejects and API servers do not enforce"},
		{ID: IDExtensionIgnored, Severity: Warning, Title: "an immutability extension inside allOf, anyOf, oneOf or not, where it has no effect"},
		{ID: IDPresence, Severity: Warning, Title: "a field immutable by (or compared by) a CEL transition rule that can be removed (and set again) because its presence is not compared"},
		{ID: IDOnceSet, Severity: Info, Title: "a field immutable once set: it can be added after creation"},
		{ID: IDListMapOrder, Severity: Info, Title: "`self == oldSelf` ignores the order of list maps, which the KEP compares"},
		{ID: IDOptionalAncestor, Severity: Warning, Title: "an optional field that can be removed and added back, going around the transition rules on it and below it (a top-level field such as spec, or any rule that is not an immutability rule)"},
		{ID: IDDescribedOnly, Severity: Info, Title: "a field described as immutable with nothing enforcing it"},
		{ID: IDVersionSkew, Severity: Warning, Title: "a field immutable in one served version of a CRD and not in another, through which it can be changed"},
		{ID: IDOptionalObject, Severity: Info, Title: "an optional object below spec that can be removed and added back with other values of the immutable fields in it (the KEP's semantics allow it)"},
		{ID: IDRatcheting, Severity: Info, Title: "a ratcheting rule, `self == oldSelf || <validation>`: not immutability, and it never runs where the old value is absent"},
		{ID: IDAbsentError, Severity: Warning, Title: "a transition rule that reads an optional field without has(): an error where it is absent, so every update of such an object is refused"},
		{ID: IDOnceNotProperty, Severity: Error, Title: "x-immutable-gen-immutable-once, -no-modify, -no-set or -no-unset on list items or map values, which come and go with their index or key"},
		{ID: IDOnceRequired, Severity: Info, Title: "x-immutable-gen-immutable-once on a required property, where it is x-kubernetes-immutable"},
	}
	// The API server's refusals, as crdvalidation words them for the
	// generator too (all but its own bug report, and the generator's
	// refusals at no marker: lint places every finding at its path).
	for _, c := range crdvalidation.Checks() {
		if c.ID != crdvalidation.IDUnconvertible && c.ID != crdvalidation.IDUnmarked {
			checks = append(checks, c)
		}
	}
	return append(checks, evolveChecks()...)
}

// Result is the outcome of linting manifests.
type Result struct {
	// Findings in input order: files as given (directories in lexical
	// order), documents in file order, CRD versions in manifest order, then
	// by path and ID.
	Findings []diag.Diagnostic
	// Skipped are the documents that are not CRDs, e.g. "deploy.yaml:
	// document 2 (apps/v1 Deployment) is not a CustomResourceDefinition".
	Skipped []string
	// Partial counts the skipped documents that are partial
	// CustomResourceDefinitions: kustomize patches of a CRD (no spec.names,
	// spec.versions…), not CRDs.
	Partial int
	// CRDs counts the CustomResourceDefinitions linted.
	CRDs int
	// Helm lists the files skipped as Helm templates: they must be
	// rendered first (helm template CHART | immutable-gen lint -).
	Helm []string
	// Errors are the inputs that could not be used, each with its file
	// ("" for a path that cannot be expanded) and message.
	Errors []InputError
	// Silenced counts the findings silenced by an annotation on their CRD
	// (IgnoreAnnotationPrefix) or a config file (Options.Ignore).
	Silenced int
}

// InputError is an input that could not be used.
type InputError struct {
	File    string `json:"file"`
	Message string `json:"message"`
}

// Count returns how many findings have at least severity min.
func (r Result) Count(min Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity >= min {
			n++
		}
	}
	return n
}

// Summary is the counts of a run.
type Summary struct {
	Files    int            `json:"files"`
	CRDs     int            `json:"crds"`
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
	Info     int            `json:"info"`
	IDs      map[string]int `json:"ids"`
	Silenced int            `json:"silenced"`
	Skipped  int            `json:"skipped"`
	Partial  int            `json:"partial"`
	Helm     int            `json:"helm"`
	Unusable int            `json:"unusable"`
}

// Summary counts the findings by severity and ID.
func (r Result) Summary() Summary {
	s := Summary{CRDs: r.CRDs, IDs: map[string]int{}, Silenced: r.Silenced, Skipped: len(r.Skipped), Partial: r.Partial, Helm: len(r.Helm), Unusable: len(r.Errors)}
	files := map[string]bool{}
	for _, f := range r.Findings {
		files[f.Pos.Filename] = true
		s.IDs[string(f.ID)]++
		switch f.Severity {
		case Error:
			s.Errors++
		case Warning:
			s.Warnings++
		default:
			s.Info++
		}
	}
	s.Files = len(files)
	return s
}

// String is the summary line:
//
//	12 findings (0 errors, 9 warnings, 3 info: IG010 ×6, IG013 ×3, IG014 ×3) in 5 of 118 CRDs; 2 silenced
func (s Summary) String() string {
	n := s.Errors + s.Warnings + s.Info
	var b strings.Builder
	if n == 0 {
		fmt.Fprintf(&b, "no findings in %d CRD(s)", s.CRDs)
	} else {
		ids := make([]string, 0, len(s.IDs))
		for id := range s.IDs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for i, id := range ids {
			ids[i] = fmt.Sprintf("%s ×%d", id, s.IDs[id])
		}
		fmt.Fprintf(&b, "%d finding(s) in %d file(s), %d CRD(s) linted: %d error(s), %d warning(s), %d info (%s)", n, s.Files, s.CRDs, s.Errors, s.Warnings, s.Info, strings.Join(ids, ", "))
	}
	for _, x := range []struct {
		n    int
		what string
	}{{s.Silenced, "silenced"}, {s.Partial, "partial CRD(s) skipped"}, {s.Helm, "Helm template(s) skipped"}, {s.Unusable, "unusable input(s)"}} {
		if x.n > 0 {
			fmt.Fprintf(&b, "; %d %s", x.n, x.what)
		}
	}
	return b.String()
}

// JSON renders the result as one JSON object, indented: the findings
// (never null), the inputs that could not be used, the documents skipped,
// the Helm templates skipped, and the summary.
func (r Result) JSON() ([]byte, error) {
	out := struct {
		Findings []jsonFinding `json:"findings"`
		Errors   []InputError  `json:"errors"`
		Skipped  []string      `json:"skipped"`
		Helm     []string      `json:"helm"`
		Summary  Summary       `json:"summary"`
	}{[]jsonFinding{}, r.Errors, r.Skipped, r.Helm, r.Summary()}
	for _, f := range r.Findings {
		rules := f.Rules
		if rules == nil {
			rules = []diag.RuleAt{}
		}
		out.Findings = append(out.Findings, jsonFinding{f.Pos.Filename, f.Pos.Line, f.CRD, f.Version, f.Path, string(f.ID), severityName(f.Severity), f.Message, f.Fix, rules})
	}
	if out.Errors == nil {
		out.Errors = []InputError{}
	}
	if out.Skipped == nil {
		out.Skipped = []string{}
	}
	if out.Helm == nil {
		out.Helm = []string{}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Text renders the findings grouped by file and CRD: a header line per
// CRD, then per finding a line FILE:LINE: VERSION PATH: SEVERITY[ID]:
// MESSAGE and an indented line with the fix.
func (r Result) Text() string { return r.text(nil) }

// text is Text, with after(i) written after the lines of finding i when
// after is not nil.
func (r Result) text(after func(i int) string) string {
	var b strings.Builder
	var file, crd string
	for i, f := range r.Findings {
		if f.Pos.Filename != file || f.CRD != crd {
			if file != "" {
				b.WriteByte('\n')
			}
			file, crd = f.Pos.Filename, f.CRD
			n := 0
			for _, g := range r.Findings {
				if g.Pos.Filename == file && g.CRD == crd {
					n++
				}
			}
			fmt.Fprintf(&b, "== %s: %s (%d finding(s))\n", file, crd, n)
		}
		at := f.Path
		if f.Version != "" {
			at = f.Version + " " + at
		}
		fmt.Fprintf(&b, "%s: %s: %s[%s]: %s\n", where(f), at, severityName(f.Severity), f.ID, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "    fix: %s\n", f.Fix)
		}
		if after != nil {
			b.WriteString(after(i))
		}
	}
	return b.String()
}
