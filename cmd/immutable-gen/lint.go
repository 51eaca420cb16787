package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/lint"
)

const lintSynopsis = "usage: immutable-gen lint [--base OLD_FILE_OR_DIR]... [--format=text|json|sarif] [--fail-on=error|warning|info] [--config FILE] [-v] FILE_OR_DIR..."

const lintUsage = lintSynopsis + `

Finds the holes in the immutability of CustomResourceDefinition manifests:
the KEP's x-kubernetes-immutable extensions where the KEP forbids them,
CEL rules such as "self == oldSelf" that leave an optional field removable,
and everything the API server refuses when the CRD is created. Files may
hold several YAML or JSON documents; directories are searched recursively
for *.yaml, *.yml and *.json; documents that are not CRDs are skipped.

  --format, -o text|json|sarif
                          text: findings grouped by file and CRD,
                            FILE:LINE: VERSION PATH: SEVERITY[ID]: MESSAGE
                                fix: FIX
                          and a summary line of counts by severity and ID
                          json: {findings: [{file, line, crd, version, path,
                            id, severity, message, fix, rules: [{path,
                            rule}]}], errors: [{file, message}], skipped,
                            helm, summary}
                          sarif: SARIF 2.1.0, for code-scanning upload
                            (paths in the working directory relative to
                            %SRCROOT%)
  --fail-on SEVERITY      the least severity that makes the run fail:
                          error, warning (default) or info
  --config FILE           silence judged findings: ignore: [{id, crd, path,
                          reason}] (docs/lint.md, "Silencing a finding"); the
                          annotation ignore-check.immutable-gen.io/ID on a
                          CRD silences an ID for that CRD
  -v, --verbose           say on standard error which documents were
                          skipped
  --base OLD              compare with OLD, the base revision of the same CRDs
                          (a file or directory, - for standard input; repeat
                          it for several): what
                          changed in immutability, field by field, in every
                          served version (IG070-IG076). A base from history:
                            git show origin/main:config/crd/x.yaml |
                              immutable-gen lint --base - config/crd/x.yaml
                          With -v each weakened or strengthened finding shows
                          its witness: an update the API server's validator
                          judges differently under the two revisions (in JSON
                          always, as "witness"). docs/lint.md, "Comparing two
                          revisions", has a CI recipe.

FILE may be - (standard input: helm template CHART | immutable-gen lint -).
Helm templates are skipped with a note: render them first.

Exit status: 0 no finding at or above --fail-on; 1 some; 2 unusable input
(a file that cannot be read, invalid YAML or JSON, a CRD that cannot be
decoded) or no CRD at all, with a message on standard error. Findings:
docs/lint.md.
`

// runLint implements "immutable-gen lint" and returns the exit status.
func runLint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "")
	fs.StringVar(format, "o", "text", "")
	failOn := fs.String("fail-on", "warning", "")
	config := fs.String("config", "", "")
	var base multiFlag
	fs.Var(&base, "base", "")
	verbose := fs.Bool("verbose", false, "")
	fs.BoolVar(verbose, "v", false, "")
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "immutable-gen lint: "+format+"\n", args...)
		return 2
	}
	// Flags may come after the files too.
	var paths []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, lintUsage)
				return 0
			}
			fmt.Fprintln(stderr, lintSynopsis)
			return fail("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *format != "text" && *format != "json" && *format != "sarif" {
		fmt.Fprintln(stderr, lintSynopsis)
		return fail("unknown format %q: want text, json or sarif", *format)
	}
	min, err := lint.ParseSeverity(*failOn)
	if err != nil {
		fmt.Fprintln(stderr, lintSynopsis)
		return fail("--fail-on: %v", err)
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, lintSynopsis)
		return fail("no files or directories given")
	}

	// Linting allocates a lot and keeps little (each manifest's trees die
	// with it): collect garbage less often, unless GOGC says otherwise.
	// About a quarter less CPU on large CRDs (BENCHMARKS.md, "Lint").
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	var opts lint.Options
	if *config != "" {
		if opts, err = lint.ReadConfig(*config); err != nil {
			return fail("--config: %v", err)
		}
	}
	if len(base) > 0 {
		return runLintBase(base, paths, opts, *format, min, *verbose, stdout, stderr)
	}
	res, lintErr := lint.FilesWithOptions(paths, opts)
	var out []byte
	switch *format {
	case "json":
		out, err = res.JSON()
	case "sarif":
		// Files inside the working directory (a repository's checkout in
		// CI) are written relative to %SRCROOT%, as code scanning maps them.
		wd, wdErr := os.Getwd()
		if wdErr != nil {
			wd = ""
		}
		out, err = res.SARIF(lint.SARIFOptions{Version: moduleVersion(), WorkDir: wd})
	default:
		text := res.Text()
		if text != "" {
			text += "\n"
		}
		out = []byte(text + res.Summary().String() + "\n")
	}
	if err != nil {
		return fail("%v", err)
	}
	stdout.Write(out)
	if res.Partial > 0 && !*verbose {
		fmt.Fprintf(stderr, "immutable-gen lint: skipped %d partial CustomResourceDefinition(s) (kustomize patches, not whole CRDs); -v lists them\n", res.Partial)
	}
	if len(res.Helm) == 1 || len(res.Helm) > 0 && *verbose {
		for _, h := range res.Helm {
			fmt.Fprintf(stderr, "immutable-gen lint: skipped %s: a Helm template; render it first: helm template CHART | immutable-gen lint -\n", h)
		}
	} else if len(res.Helm) > 1 {
		fmt.Fprintf(stderr, "immutable-gen lint: skipped %d Helm templates (in %s…); render them first: helm template CHART | immutable-gen lint -; -v lists them\n", len(res.Helm), filepath.Dir(res.Helm[0]))
	}
	if *verbose {
		for _, s := range res.Skipped {
			fmt.Fprintf(stderr, "immutable-gen lint: skipped %s\n", s)
		}
	}
	if lintErr != nil {
		for _, line := range strings.Split(lintErr.Error(), "\n") {
			fmt.Fprintf(stderr, "immutable-gen lint: %s\n", line)
		}
		return 2
	}
	if res.CRDs == 0 {
		return fail("no CustomResourceDefinitions in %s: nothing was linted", strings.Join(paths, " "))
	}
	if res.Count(min) > 0 {
		return 1
	}
	return 0
}

// multiFlag is a flag that may be given more than once.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// runLintBase implements "immutable-gen lint --base OLD NEW": the
// evolution check.
func runLintBase(base, paths []string, opts lint.Options, format string, min lint.Severity, verbose bool, stdout, stderr io.Writer) int {
	if slices.Contains(base, "-") && slices.Contains(paths, "-") {
		fmt.Fprintln(stderr, lintSynopsis)
		fmt.Fprintln(stderr, "immutable-gen lint: - (standard input) may be the base or the new revision, not both")
		return 2
	}
	res, err := lint.EvolveWithOptions(base, paths, opts)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "immutable-gen lint: %s\n", line)
		}
		return 2
	}
	var out []byte
	switch format {
	case "json":
		out, err = res.JSON()
	case "sarif":
		wd, wdErr := os.Getwd()
		if wdErr != nil {
			wd = ""
		}
		out, err = res.Result.SARIF(lint.SARIFOptions{Version: moduleVersion(), WorkDir: wd})
	default:
		text := res.Text()
		if verbose {
			text = res.VerboseText()
		}
		if text != "" {
			text += "\n"
		}
		out = []byte(text + res.Summary().String() + "\n")
	}
	if err != nil {
		fmt.Fprintf(stderr, "immutable-gen lint: %v\n", err)
		return 2
	}
	stdout.Write(out)
	if res.CRDs == 0 {
		fmt.Fprintf(stderr, "immutable-gen lint: no CustomResourceDefinition of %s is in the base %s: nothing was compared\n", strings.Join(paths, " "), strings.Join(base, " "))
		return 2
	}
	if res.Count(min) > 0 {
		return 1
	}
	return 0
}
