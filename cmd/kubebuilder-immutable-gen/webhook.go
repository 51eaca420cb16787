package main

import (
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
)

const (
	adapterPackage = "github.com/immutable-gen/immutable-gen/runtime/webhook"
	adapterAlias   = "immutablewebhook"

	// webhookSignature marks the comment the plugin puts above the wrapped
	// validator; a file that has it is left alone.
	webhookSignature = "immutable-gen: updates are checked against the +immutable markers"

	generateComment = "# generate also writes the typed immutability validators (ValidateImmutableUpdate) the webhooks use."
)

// scaffoldWebhook handles create webhook. With --programmatic-validation,
// go/v4 has scaffolded <Kind>CustomValidator and registered it with
// WithValidator. The plugin
//
//   - makes the Makefile's generate target also run
//     "$(IMMUTABLE_GEN)" validators, which writes ValidateImmutableUpdate
//     for the root kinds of every API package with +immutable markers;
//   - if the kind's API package has such markers, registers
//     immutablewebhook.ImmutableValidator[*<Kind>]{Next: &<Kind>CustomValidator{}}
//     instead, so updates are checked against the markers and then by the
//     project's validator. Without markers the generated method would not
//     exist and the project would not build: the webhook is left as it is,
//     with a note saying how to wrap it once fields are marked.
func scaffoldWebhook(req PluginRequest, out map[string]string, log io.Writer) error {
	if v, ok := argValue(req.Args, "programmatic-validation"); !ok || v == "false" {
		return nil // no validator scaffolded
	}
	kind, _ := argValue(req.Args, "kind")
	version, _ := argValue(req.Args, "version")
	if kind == "" || version == "" {
		return fmt.Errorf("create webhook: no --kind or --version in the arguments %q", req.Args)
	}

	if src, ok := req.Universe["Makefile"]; ok {
		edited, err := wireMakefile(src, defaultImmutableGenVersion(), false)
		if err == nil {
			edited, err = wireGenerate(edited)
		}
		if err != nil {
			fmt.Fprintf(log, "%s: note: Makefile left as it is: %v; run \"$(IMMUTABLE_GEN)\" validators paths=\"./...\" in make generate by hand\n", pluginKey, err)
		} else if edited != src {
			out["Makefile"] = edited
		}
	}

	file := webhookFile(req.Universe, kind, version)
	if file == "" {
		fmt.Fprintf(log, "%s: note: no %s_webhook.go registering %sCustomValidator found; wrap your validator by hand: %s\n",
			pluginKey, strings.ToLower(kind), kind, wrapped(kind, "*"+kind))
		return nil
	}
	src := req.Universe[file]
	if strings.Contains(src, webhookSignature) {
		return nil
	}
	typ := objectType(src, kind)
	if !hasImmutableMarkers(req.Universe, path.Dir(typesFile(req))) {
		fmt.Fprintf(log, "%s: note: %s has no +immutable marker yet, so %s registers %sCustomValidator alone. "+
			"Once fields are marked and make generate has written ValidateImmutableUpdate, register\n\t%s\n"+
			"(import %s %q).\n",
			pluginKey, kind, file, kind, wrapped(kind, typ), adapterAlias, adapterPackage)
		return nil
	}
	edited, err := wrapValidator(file, src, kind, typ)
	if err != nil {
		fmt.Fprintf(log, "%s: note: %s left as it is: %v\n", pluginKey, file, err)
		return nil
	}
	out[file] = edited
	return nil
}

// wrapped is the WithValidator argument that checks immutability first.
func wrapped(kind, typ string) string {
	return "WithValidator(&" + adapterAlias + ".ImmutableValidator[" + typ + "]{Next: &" + kind + "CustomValidator{}})"
}

// webhookFile finds the webhook file go/v4 scaffolded for kind and version
// (internal/webhook/[group/]version/<kind>_webhook.go, or api/... in the
// legacy layout): the one that registers <Kind>CustomValidator, wrapped or
// not.
func webhookFile(universe map[string]string, kind, version string) string {
	name := strings.ToLower(kind) + "_webhook.go"
	var found []string
	for p, src := range universe {
		registers := strings.Contains(src, "WithValidator(&"+kind+"CustomValidator{})") || strings.Contains(src, "{Next: &"+kind+"CustomValidator{}})")
		if path.Base(p) == name && path.Base(path.Dir(p)) == version && registers {
			found = append(found, p)
		}
	}
	slices.Sort(found)
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// objectType is the Go type of the kind as the webhook file names it:
// *cachev1.Memcached (go/v4), or *Memcached in the legacy layout where the
// webhook lives in the API package.
func objectType(src, kind string) string {
	re := regexp.MustCompile(`NewWebhookManagedBy\(mgr,\s*&(\w+\.)?` + regexp.QuoteMeta(kind) + `\{\}\)`)
	if m := re.FindStringSubmatch(src); m != nil {
		return "*" + m[1] + kind
	}
	return "*" + kind
}

// markerLine is a live +immutable marker: a comment line of its own, not a
// line inside the plugin's example comment (which is indented by a tab
// after the comment's //).
var markerLine = regexp.MustCompile(`(?m)^[ \t]*// ?\+immutable(=(keys|once))?[ \t]*$`)

// hasImmutableMarkers reports whether a Go file directly in dir holds an
// +immutable marker.
func hasImmutableMarkers(universe map[string]string, dir string) bool {
	for p, src := range universe {
		if path.Dir(p) == dir && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") && markerLine.MatchString(src) {
			return true
		}
	}
	return false
}

// wrapValidator registers immutablewebhook.ImmutableValidator around the
// scaffolded validator and imports the adapter. The result is gofmt-formatted
// and checked to parse.
func wrapValidator(filename, src, kind, typ string) (string, error) {
	call := "WithValidator(&" + kind + "CustomValidator{})"
	i := strings.Index(src, call)
	lineStart := strings.LastIndexByte(src[:i], '\n') + 1
	indent := src[lineStart:i]
	if strings.TrimLeft(indent, " \t") != "" {
		return "", fmt.Errorf("%s does not start a line", call)
	}
	comment := indent + "// " + webhookSignature + " of " + kind + ",\n" +
		indent + "// with the ValidateImmutableUpdate that make generate writes, then by " + kind + "CustomValidator.\n"
	edited := src[:lineStart] + comment + indent + wrapped(kind, typ) + src[i+len(call):]

	const admissionImport = "\t\"sigs.k8s.io/controller-runtime/pkg/webhook/admission\"\n"
	at := strings.Index(edited, admissionImport)
	if at < 0 {
		return "", fmt.Errorf("no import of sigs.k8s.io/controller-runtime/pkg/webhook/admission")
	}
	at += len(admissionImport)
	edited = edited[:at] + "\n\t" + adapterAlias + " " + fmt.Sprintf("%q", adapterPackage) + "\n" + edited[at:]

	formatted, err := format.Source([]byte(edited))
	if err != nil {
		return "", fmt.Errorf("internal error: the edited file does not parse: %w", err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), filename, formatted, parser.ParseComments); err != nil {
		return "", fmt.Errorf("internal error: the edited file does not parse: %w", err)
	}
	return string(formatted), nil
}

// objectLine matches the recipe line of generate that runs controller-gen's
// object generator, capturing its arguments.
var objectLine = regexp.MustCompile(`^\t"?\$\((CONTROLLER_GEN|IMMUTABLE_GEN)\)"?\s+object(\S*)(.*)$`)

// wireGenerate makes the generate target (deep-copy code) also run
// "$(IMMUTABLE_GEN)" validators with the object generator's header and
// paths, and depend on immutable-gen. Running it twice changes nothing.
func wireGenerate(src string) (string, error) {
	m := &makefile{lines: strings.Split(src, "\n")}
	rule := m.find(ruleDef("generate"))
	if rule < 0 {
		return "", fmt.Errorf("no generate target")
	}
	end := m.recipeEnd(rule)
	for j := rule + 1; j < end; j++ {
		if strings.Contains(m.lines[j], "$(IMMUTABLE_GEN)\" validators") || strings.Contains(m.lines[j], "$(IMMUTABLE_GEN) validators") {
			return src, nil
		}
	}
	line := "\t\"$(IMMUTABLE_GEN)\" validators paths=\"./...\""
	at := end
	for j := rule + 1; j < end; j++ {
		if g := objectLine.FindStringSubmatch(m.lines[j]); g != nil {
			line = "\t\"$(IMMUTABLE_GEN)\" validators" + g[2] + g[3]
			at = j + 1
			break
		}
	}
	m.insert(at, line)
	m.lines[rule] = generatePrerequisites(m.lines[rule])
	if m.find(regexp.MustCompile(`^`+regexp.QuoteMeta(generateComment)+`$`)) < 0 {
		at := rule
		if rule > 0 && strings.HasPrefix(m.lines[rule-1], ".PHONY:") {
			at = rule - 1
		}
		m.insert(at, generateComment)
	}
	return strings.Join(m.lines, "\n"), nil
}

// generatePrerequisites adds immutable-gen to the generate rule's
// prerequisites, keeping its help comment.
func generatePrerequisites(line string) string {
	head, comment, hasComment := strings.Cut(line, "#")
	if immutableGenWord.MatchString(head) {
		return line
	}
	name, prereqs, _ := strings.Cut(head, ":")
	head = name + ": " + strings.TrimSpace(strings.TrimSpace(prereqs)+" immutable-gen")
	if hasComment {
		return head + " #" + comment
	}
	return head
}
