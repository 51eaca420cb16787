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
	"errors"
	"fmt"
	"go/token"
	"os"
	"slices"
	"strings"
)

// Severity says whether a diagnostic stops generation.
type Severity int

const (
	// Note is informational; generation goes on. It is printed "info", the
	// word lint and --fail-on use too (one word for one severity).
	Note Severity = iota
	// Warning is probably a mistake; generation goes on.
	Warning
	// Error stops generation: nothing is written.
	Error
)

func (s Severity) String() string {
	switch s {
	case Note:
		return "info"
	case Warning:
		return "warning"
	default:
		return "error"
	}
}

// ParseSeverity reads a severity as String writes it: "info", "warning" or
// "error" (--fail-on's values).
func ParseSeverity(s string) (Severity, error) {
	for _, v := range []Severity{Note, Warning, Error} {
		if s == v.String() {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: want info, warning or error", s)
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

// String renders the diagnostic as
// `file:line:col: severity[ID]: subject: message; fix: fix`, as lint prints
// its findings (`[ID]` is left out of a diagnostic without one).
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Pos.IsValid() {
		b.WriteString(d.Pos.String())
		b.WriteString(": ")
	}
	b.WriteString(d.Severity.String())
	if d.ID != "" {
		b.WriteString("[" + string(d.ID) + "]")
	}
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

// AtLeast counts the diagnostics of severity min or above (--fail-on).
func (l List) AtLeast(min Severity) int {
	n := 0
	for _, d := range l {
		if d.Severity >= min {
			n++
		}
	}
	return n
}

// Summary counts the diagnostics by severity and ID, as lint's summary
// line does: `3 finding(s): 1 error(s), 1 warning(s), 1 info (IG013 ×1,
// IG040 ×1, IG041 ×1)`; "no findings" when there are none.
func (l List) Summary() string {
	if len(l) == 0 {
		return "no findings"
	}
	var bySeverity [Error + 1]int
	byID := map[ID]int{}
	for _, d := range l {
		bySeverity[d.Severity]++
		if d.ID != "" {
			byID[d.ID]++
		}
	}
	ids := make([]string, 0, len(byID))
	for id, n := range byID {
		ids = append(ids, fmt.Sprintf("%s ×%d", id, n))
	}
	slices.Sort(ids)
	s := fmt.Sprintf("%d finding(s): %d error(s), %d warning(s), %d info", len(l), bySeverity[Error], bySeverity[Warning], bySeverity[Note])
	if len(ids) > 0 {
		s += " (" + strings.Join(ids, ", ") + ")"
	}
	return s
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

// ErrFindings is what the error Report returns wraps when report printed
// the errors: the caller has nothing more to print about them.
var ErrFindings = errors.New("the immutability markers have errors")

// Report ends a generator's run (generator names it: `crd`): it hands the
// diagnostics to report, the caller's printer, and returns the error that
// stops the run when any is an Error — wrapping ErrFindings and naming the
// generator when report printed them, else holding them all, one a line. Without report, the
// notes and warnings of a run go to standard error. Every generator of
// immutable-gen ends this way, so a run reads alike whichever wrote it.
func (l List) Report(report func(List), generator string) error {
	if report != nil {
		report(l)
		if l.HasErrors() {
			return fmt.Errorf("%s: %w", generator, ErrFindings)
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
