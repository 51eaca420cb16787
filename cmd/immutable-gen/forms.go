package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/immutable-gen/immutable-gen/runtime/form"
)

// helpMarkers prints `immutable-gen help markers [-o text|json|markdown]`:
// the form table (runtime/form), each form with its spellings, extensions,
// places and default message, the modifiers, and the oldest Kubernetes
// each CEL lowering needs. markdown is the table docs/semantics.md and
// docs/guide.md hold (TestDocsFormTable keeps them equal); json is for
// tools, as validation-gen's --docs.
func helpMarkers(args []string, stdout, stderr io.Writer) int {
	format := "text"
	switch {
	case len(args) == 0:
	case len(args) == 2 && (args[0] == "-o" || args[0] == "--output"):
		format = args[1]
	case len(args) == 1 && (strings.HasPrefix(args[0], "-o=") || strings.HasPrefix(args[0], "--output=")):
		format = args[0][strings.Index(args[0], "=")+1:]
	default:
		fmt.Fprintf(stderr, "usage: immutable-gen help markers [-o text|json|markdown]\n")
		return 2
	}
	switch format {
	case "text":
		writeFormsText(stdout)
	case "json":
		b, err := json.MarshalIndent(struct {
			Forms     []form.Kind     `json:"forms"`
			Modifiers []form.Modifier `json:"modifiers"`
			Lowerings []form.Lowering `json:"lowerings"`
		}{form.Kinds(), form.Modifiers(), form.Lowerings()}, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "%s\n", b)
	case "markdown":
		fmt.Fprint(stdout, formsMarkdown())
	default:
		fmt.Fprintf(stderr, "error: unknown output %q: want text, json or markdown\n", format)
		return 2
	}
	return 0
}

// places words where a form may stand.
func places(p form.Places) string {
	var where []string
	if p.Properties {
		where = append(where, "fields and named types")
	}
	if p.Elements {
		where = append(where, "list items and map values")
	}
	out := strings.Join(where, ", ")
	if p.KeyedOnly {
		out += "; maps and list maps only"
	}
	return out
}

// spellings lists a form's marker and validation-gen's tags.
func spellings(k form.Kind) []string {
	var out []string
	if k.Marker != "" {
		out = append(out, k.Marker)
	}
	return append(out, k.Tags...)
}

func writeFormsText(w io.Writer) {
	fmt.Fprintln(w, "Immutability forms (one meaning each, read by every output: CEL, extensions, runtime, typed validators, openapi, lint, migrate)")
	for _, k := range form.Kinds() {
		fmt.Fprintf(w, "\n%s\n", k.Name)
		fmt.Fprintf(w, "  written     %s\n", strings.Join(spellings(k), ", "))
		fmt.Fprintf(w, "  means       %s\n", k.Means)
		fmt.Fprintf(w, "  rules       presence %s; value change: %s\n", k.Presence, k.Change)
		fmt.Fprintf(w, "  extensions  %s\n", strings.Join(k.Extensions, ", "))
		fmt.Fprintf(w, "  places      %s\n", places(k.Places))
		if k.ValueMessage != "" {
			fmt.Fprintf(w, "  message     %s\n", k.ValueMessage)
		}
		if k.PresenceMessage != "" {
			fmt.Fprintf(w, "  presence    %s\n", fmt.Sprintf(k.PresenceMessage, "<name>"))
		}
	}
	fmt.Fprintln(w, "\nModifiers (beside a form, on the same field or type)")
	for _, m := range form.Modifiers() {
		fmt.Fprintf(w, "\n%s\n  beside      %s\n  means       %s\n", m.Marker, strings.Join(m.Beside, ", "), m.Means)
		if m.Extension != "" {
			fmt.Fprintf(w, "  extension   %s\n", m.Extension)
		}
	}
	fmt.Fprintln(w, "\nKubernetes versions of the CEL rules (crd:immutability=cel)")
	for _, l := range form.Lowerings() {
		fmt.Fprintf(w, "\n%s: Kubernetes >= %s\n  where       %s\n  why         %s\n", l.Name, l.MinKubernetes, l.Where, l.Reason())
	}
}

// formsMarkdown is the form table as docs/semantics.md and docs/guide.md
// hold it.
func formsMarkdown() string {
	var b strings.Builder
	b.WriteString("| form | written | means | extensions | where | default messages |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	code := func(ss []string) string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = "`" + s + "`"
		}
		return strings.Join(out, "<br>")
	}
	for _, k := range form.Kinds() {
		var msgs []string
		if k.ValueMessage != "" {
			msgs = append(msgs, k.ValueMessage)
		}
		if k.PresenceMessage != "" {
			msgs = append(msgs, fmt.Sprintf(k.PresenceMessage, "<name>"))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", k.Name, code(spellings(k)), k.Means, code(k.Extensions), places(k.Places), code(msgs))
	}
	b.WriteString("\n| modifier | beside | means |\n| --- | --- | --- |\n")
	for _, m := range form.Modifiers() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", m.Marker, strings.Join(m.Beside, ", "), m.Means)
	}
	b.WriteString("\n| CEL lowering | where | Kubernetes | why |\n| --- | --- | --- | --- |\n")
	for _, l := range form.Lowerings() {
		fmt.Fprintf(&b, "| %s | %s | ≥ %s | %s |\n", l.Name, l.Where, l.MinKubernetes, l.Reason())
	}
	return b.String()
}
