// Package diag holds the diagnostics immutable-gen reports: a stable ID, a
// position in Go source, a severity, the marker, schema and path it is
// about, related positions, a message and the fix. Every stage (marker
// parsing, placement validation, CEL lowering, API server checks, the
// openapi and validators generators) reports through it so that the CLI
// prints them one way and decides the exit status from the severities
// alone. Each package declares the IDs of its findings beside the rules
// that produce them, with a Check describing each;
// `immutable-gen help diagnostics` lists them (docs/diagnostics.md).
package diag

import (
	"cmp"
	"fmt"
	"go/token"
	"os"
	"slices"
	"strings"
)

// Severity says whether a diagnostic stops generation.
type Severity int

const (
	// Note is informational; generation goes on.
	Note Severity = iota
	// Warning is probably a mistake; generation goes on.
	Warning
	// Error stops generation: nothing is written.
	Error
)

func (s Severity) String() string {
	switch s {
	case Note:
		return "note"
	case Warning:
		return "warning"
	default:
		return "error"
	}
}

// ID is a finding's stable ID, `IG` and three digits (IG005). An ID is
// never reused: a check that is removed leaves a gap.
type ID string

// Check describes one kind of finding: its ID, its severity and a one-line
// title.
type Check struct {
	ID       ID
	Severity Severity
	Title    string
}

// RuleAt is a CEL validation rule and the schema path of the node it is
// written on (`spec.ports[*]`, `<root>`).
type RuleAt struct {
	Path string `json:"path"`
	Rule string `json:"rule"`
	// FixFor is the path of the finding whose fix suggests this rule, when
	// it is not one the CRD holds but one lint suggests; "" otherwise.
	FixFor string `json:"fixFor,omitempty"`
}

// Diagnostic is one finding, of the generators (at a Go position) and of
// lint (in a manifest) alike.
type Diagnostic struct {
	// ID says which check found it.
	ID ID
	// Pos is where the finding is: the Go source position of the
	// generators' findings (the marker comment when there is one), the
	// manifest of lint's (Filename, and the Line of the schema node's key
	// or of the document; no Column). It may be invalid when the finding
	// has no source.
	Pos token.Position
	// Severity of the finding.
	Severity Severity
	// Marker is the marker the finding is about, as written
	// (`+immutable=keys`); "" when it is about none.
	Marker string
	// CRD is the name of the CRD the finding is in (widgets.example.com);
	// Version the version whose schema Path is in, "" for a finding about
	// the CRD itself.
	CRD, Version string
	// Path is the node the finding is about: `spec.ports[*].name`.
	Path string
	// Subject names what the finding is about when it is not a schema
	// node (`+immutable on Spec.Name`); before a CRD, the kind of thing the
	// CRD and Version name (`CRD`, for the API server's findings).
	Subject string
	// Related are other positions the finding involves (the other
	// marker of a conflict); the rendering does not print them.
	Related []token.Position
	// Rules are the CEL rules the finding is about, each at the schema
	// path of its node: every rule a hole lint reports goes around (its
	// message names the first three). The rendering does not print them.
	Rules []RuleAt
	// Message says what is wrong.
	Message string
	// Fix says what to do about it; empty when the message already says.
	Fix string
}

// String renders the diagnostic as `file:line:col: severity: message (fix)`.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Pos.IsValid() {
		b.WriteString(d.Pos.String())
		b.WriteString(": ")
	}
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	if subject := d.subject(); subject != "" {
		b.WriteString(subject)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	if d.Fix != "" {
		b.WriteString("; fix: ")
		b.WriteString(d.Fix)
	}
	return b.String()
}

// subject renders what the finding is about: `MARKER (SCHEMA: PATH)`,
// `SCHEMA: PATH`, or Subject, where SCHEMA is Subject, CRD and Version, those
// that are set (`CRD widgets.example.com v1`).
func (d Diagnostic) subject() string {
	if d.CRD == "" {
		return d.Subject
	}
	var parts []string
	for _, p := range []string{d.Subject, d.CRD, d.Version} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	s := strings.Join(parts, " ")
	if d.Path != "" {
		s += ": " + d.Path
	}
	if d.Marker != "" {
		s = d.Marker + " (" + s + ")"
	}
	return s
}

// List is a set of diagnostics.
type List []Diagnostic

// HasErrors reports whether any diagnostic is an Error.
func (l List) HasErrors() bool {
	return slices.ContainsFunc(l, func(d Diagnostic) bool { return d.Severity == Error })
}

// Sort orders diagnostics by file, line, column, then text, and drops exact
// duplicates (a type-level marker is reported once however often the type is
// used).
func (l List) Sort() List {
	out := slices.Clone(l)
	slices.SortFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			cmp.Compare(a.String(), b.String()),
		)
	})
	return slices.CompactFunc(out, func(a, b Diagnostic) bool { return a.String() == b.String() })
}

// Report ends a generator's run (generator names it: `crd`): it hands the
// diagnostics to report, the caller's printer, and returns the error that
// stops the run when any is an Error — naming the generator when report
// printed them, else holding them all, one a line. Without report, the
// notes and warnings of a run go to standard error. Every generator of
// immutable-gen ends this way, so a run reads alike whichever wrote it.
func (l List) Report(report func(List), generator string) error {
	if report != nil {
		report(l)
		if l.HasErrors() {
			return fmt.Errorf("%s: the immutability markers have errors", generator)
		}
		return nil
	}
	if l.HasErrors() {
		return listError(l)
	}
	for _, d := range l {
		fmt.Fprintln(os.Stderr, d)
	}
	return nil
}

// listError is the error of a run with errors and no report function: its
// diagnostics, one a line.
type listError List

func (e listError) Error() string {
	var b strings.Builder
	for i, d := range e {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}
