package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-tools/pkg/genall"
)

// command is one of immutable-gen's commands besides the generators.
type command struct {
	name string
	// synopsis is the command's usage line, as its own --help prints it.
	synopsis string
	// summary says what it does, in one line.
	summary string
}

// commands are the commands besides the generators, in the order help
// lists them.
func commands() []command {
	return []command{
		{"check-update", checkUpdateSynopsis, "answers, with no cluster, whether the API server accepts updates of custom resources against CRDs"},
		{"lint", lintSynopsis, "finds the holes in the immutability of CRD manifests (docs/lint.md)"},
		{"migrate", migrateSynopsis, "rewrites hand-written immutability rules in Go sources into markers, each proven first"},
	}
}

// helpTopics are the topics of `immutable-gen help TOPIC`.
var helpTopics = []struct{ usage, summary string }{
	{"help", "this list of commands"},
	{"help markers [-o text|json|markdown]", "the immutability forms: spellings, extensions, places, messages, Kubernetes versions"},
	{"help diagnostics [ID] [-o text|markdown]", "every finding's ID, severity and title (docs/diagnostics.md); with an ID, that one explained"},
}

// generatorSynopsis is how a generator run is written: controller-gen's
// arguments, and the flags of a run.
const generatorSynopsis = "immutable-gen GENERATOR[:OPTION=VALUE[,…]]... paths=PATTERN [output:…] [--fail-on=error|warning|info] [-q] [--check]"

// overview lists every command: the generators (their summaries are
// their own help), the other commands and the help topics. --help and -h
// print it above the generators' flags, `immutable-gen help` above the
// same flags.
func overview() string {
	var b strings.Builder
	fmt.Fprintln(&b, "immutable-gen: controller-gen with +immutable compiled in, and the tools around it.")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "Generators (controller-gen's arguments; any of them in one run):")
	fmt.Fprintln(&b, "  "+generatorSynopsis)
	gens := generators()
	names := make([]string, 0, len(gens))
	for name := range gens {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "  %-20s%s\n", name, generatorSummary(gens[name]))
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "Commands (immutable-gen COMMAND --help for the flags):")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-20s%s\n", c.name, c.summary)
		fmt.Fprintf(&b, "  %-20s%s\n", "", strings.TrimPrefix(c.synopsis, "usage: "))
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "Help:")
	for _, h := range helpTopics {
		fmt.Fprintf(&b, "  immutable-gen %s\n  %-20s%s\n", h.usage, "", h.summary)
	}
	return b.String()
}

// writeOverview prints `immutable-gen help`: the overview and the flags
// of a generator run.
func writeOverview(w io.Writer) {
	fs := pflag.NewFlagSet("immutable-gen", pflag.ContinueOnError)
	(&generatorFlags{}).register(fs)
	fmt.Fprint(w, overview())
	fmt.Fprintf(w, "\nGenerator flags:\n%s", fs.FlagUsages())
}

// generatorSummary is a generator's own one-line help (controller-tools
// splits some summaries into Details).
func generatorSummary(g genall.Generator) string {
	h, ok := g.(genall.HasHelp)
	if !ok || h.Help() == nil {
		return ""
	}
	s := strings.Join(strings.Fields(h.Help().Summary), " ")
	if !strings.HasSuffix(s, ".") {
		s += " " + strings.Join(strings.Fields(h.Help().Details), " ")
	}
	return strings.TrimSpace(s)
}

// runHelp implements `immutable-gen help [TOPIC ...]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeOverview(stdout)
		return 0
	}
	switch args[0] {
	case "markers":
		return helpMarkers(args[1:], stdout, stderr)
	case "diagnostics":
		return helpDiagnostics(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "immutable-gen help: unknown topic %q; `immutable-gen help` lists the commands and topics\n", args[0])
	return 2
}
