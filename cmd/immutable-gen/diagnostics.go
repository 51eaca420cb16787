package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/lint"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/openapi"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/validators"
)

// checks lists every finding the tool can print, by ID, each once: the
// packages declare them beside their rules (docs/diagnostics.md). An ID
// both the generators and lint report is described in the generators'
// words.
func checks() []diag.Check {
	var all []diag.Check
	for _, l := range [][]diag.Check{placement.Checks(), crdvalidation.Checks(), markers.Checks(), crdgen.Checks(), openapi.Checks(), validators.Checks(), packageChecks(), lint.Catalog()} {
		for _, c := range l {
			if !slices.ContainsFunc(all, func(x diag.Check) bool { return x.ID == c.ID }) {
				all = append(all, c)
			}
		}
	}
	slices.SortFunc(all, func(a, b diag.Check) int { return cmp.Compare(a.ID, b.ID) })
	return all
}

// helpDiagnostics prints `immutable-gen help diagnostics`: one line per
// finding, ID, severity and title.
func helpDiagnostics(w io.Writer) int {
	for _, c := range checks() {
		fmt.Fprintf(w, "%s  %-7s  %s\n", c.ID, c.Severity, c.Title)
	}
	return 0
}
