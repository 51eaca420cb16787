package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/lint"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/openapi"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/validators"
)

// reporter is a list of checks and who reports them.
type reporter struct {
	// who reports the findings: `crd`, `the generators`, `lint`.
	who    string
	checks []diag.Check
}

// reporters are the packages that declare findings, beside the rules that
// produce them, and who prints them; the generators' first, lint last.
func reporters() []reporter {
	return []reporter{
		{"the generators (marker placement)", placement.Checks()},
		{"crd (the API server's CRD validation)", crdvalidation.Checks()},
		{"the generators (marker parsing)", markers.Checks()},
		{"crd", crdgen.Checks()},
		{"openapi", openapi.Checks()},
		{"validators", validators.Checks()},
		{"the generators (controller-tools' loader)", packageChecks()},
		{"lint", lint.Catalog()},
	}
}

// finding is one ID as help diagnostics explains it.
type finding struct {
	diag.Check
	// by lists who reports it.
	by []string
	// lintTitle is lint's title when lint reports the ID in other words
	// than the generators (about manifests, not markers); "" otherwise.
	lintTitle string
}

// findings lists every finding the tool can print, by ID, each once, in
// the words of the first reporter that declares it (the generators'
// before lint's).
func findings() []finding {
	var all []finding
	for _, r := range reporters() {
		for _, c := range r.checks {
			i := slices.IndexFunc(all, func(f finding) bool { return f.ID == c.ID })
			if i < 0 {
				all = append(all, finding{Check: c})
				i = len(all) - 1
			}
			if !slices.Contains(all[i].by, r.who) {
				all[i].by = append(all[i].by, r.who)
			}
			if r.who == "lint" && c.Title != all[i].Title {
				all[i].lintTitle = c.Title
			}
		}
	}
	slices.SortFunc(all, func(a, b finding) int { return cmp.Compare(a.ID, b.ID) })
	return all
}

// checks lists every finding's Check, by ID (docs/diagnostics.md).
func checks() []diag.Check {
	var out []diag.Check
	for _, f := range findings() {
		out = append(out, f.Check)
	}
	return out
}

const helpDiagnosticsSynopsis = "usage: immutable-gen help diagnostics [ID] [-o text|markdown]"

// helpDiagnostics prints `immutable-gen help diagnostics [ID] [-o
// text|markdown]`: one line per finding, ID, severity and title; with an
// ID, that one explained; markdown is the table docs/diagnostics.md holds
// (TestDocsDiagnostics keeps it equal).
func helpDiagnostics(args []string, stdout, stderr io.Writer) int {
	format, id := "text", ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "-o" || a == "--output") && i+1 < len(args):
			format = args[i+1]
			i++
		case strings.HasPrefix(a, "-o=") || strings.HasPrefix(a, "--output="):
			format = a[strings.Index(a, "=")+1:]
		case !strings.HasPrefix(a, "-") && id == "":
			id = strings.ToUpper(a)
		default:
			fmt.Fprintln(stderr, helpDiagnosticsSynopsis)
			return 2
		}
	}
	all := findings()
	if id != "" {
		i := slices.IndexFunc(all, func(f finding) bool { return string(f.ID) == id })
		if i < 0 {
			fmt.Fprintf(stderr, "immutable-gen help diagnostics: no finding has the ID %s; `immutable-gen help diagnostics` lists them\n", id)
			return 2
		}
		all = all[i : i+1]
	}
	switch format {
	case "text":
		if id != "" {
			writeFinding(stdout, all[0])
			return 0
		}
		for _, f := range all {
			fmt.Fprintf(stdout, "%s  %-7s  %s\n", f.ID, f.Severity, f.Title)
		}
	case "markdown":
		fmt.Fprint(stdout, diagnosticsMarkdown(all))
	default:
		fmt.Fprintf(stderr, "immutable-gen help diagnostics: unknown output %q: want text or markdown\n", format)
		return 2
	}
	return 0
}

// writeFinding explains one ID: its severity, what it finds, who reports
// it, how it prints and which runs it fails.
func writeFinding(w io.Writer, f finding) {
	fmt.Fprintf(w, "%s  %s\n\n", f.ID, f.Severity)
	fmt.Fprintf(w, "  finds        %s\n", f.Title)
	if f.lintTitle != "" {
		fmt.Fprintf(w, "  in lint      %s\n", f.lintTitle)
	}
	fmt.Fprintf(w, "  reported by  %s\n", strings.Join(f.by, "; "))
	byLint := slices.Contains(f.by, "lint")
	if !byLint || len(f.by) > 1 {
		fmt.Fprintf(w, "  printed as   FILE:LINE:COL: %s[%s]: MESSAGE; fix: FIX\n", f.Severity, f.ID)
	}
	if byLint {
		fmt.Fprintf(w, "  lint prints  FILE:LINE: VERSION PATH: %s[%s]: MESSAGE, then fix: FIX\n", f.Severity, f.ID)
	}
	var at []string
	for _, min := range []diag.Severity{diag.Error, diag.Warning, diag.Note} {
		if f.Severity >= min {
			at = append(at, "--fail-on="+min.String())
		}
	}
	fmt.Fprintf(w, "  fails a run  with %s (the generators' default is error, lint's warning)\n", strings.Join(at, ", "))
	if byLint {
		fmt.Fprintf(w, "  more         docs/lint.md, %s\n", f.ID)
	}
}

// diagnosticsMarkdown is the table of docs/diagnostics.md.
func diagnosticsMarkdown(all []finding) string {
	var b strings.Builder
	b.WriteString("| ID | severity | finding | reported by |\n| --- | --- | --- | --- |\n")
	for _, f := range all {
		title := f.Title
		if f.lintTitle != "" {
			title += "<br>lint: " + f.lintTitle
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.ID, f.Severity, strings.ReplaceAll(title, "|", `\|`), strings.Join(f.by, "; "))
	}
	return b.String()
}
