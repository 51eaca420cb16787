// Package diag holds the diagnostics immutable-gen reports: a position in Go
// source (or a schema path when there is none), a severity, a message and the
// fix. Every stage (marker parsing, placement validation, API server checks)
// reports through it so that the CLI prints them one way and decides the exit
// status from the severities alone.
package diag

import (
	"cmp"
	"fmt"
	"go/token"
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

// Diagnostic is one finding.
type Diagnostic struct {
	// Pos is the Go source position the finding is about (the marker comment
	// when there is one). It may be invalid when the finding has no source.
	Pos token.Position
	// Severity of the finding.
	Severity Severity
	// Subject names what the finding is about when there is no position, or
	// adds the schema location: e.g. `CRD widgets.example.com v1: spec.foo`.
	Subject string
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
	if d.Subject != "" {
		b.WriteString(d.Subject)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	if d.Fix != "" {
		b.WriteString("; fix: ")
		b.WriteString(d.Fix)
	}
	return b.String()
}

// Errorf builds an Error diagnostic at pos.
func Errorf(pos token.Position, fix, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: pos, Severity: Error, Message: fmt.Sprintf(format, args...), Fix: fix}
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
