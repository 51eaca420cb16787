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

	file, validator := webhookFile(req.Universe, kind, version)
	if file == "" {
		// go/v4 names the validator <Kind>Validator from v4.16 on,
		// <Kind>CustomValidator before.
		fmt.Fprintf(log, "%s: note: no %s_webhook.go registering a validator for %s found; in the webhook's Setup%sWebhookWithManager, register\n\t%s\n"+
			"(import %s %q; %s is your validator's type, %sValidator or %sCustomValidator as go/v4 scaffolds it).\n",
			pluginKey, strings.ToLower(kind), kind, kind, wrapped(kind, apiType(req, kind), kind+"Validator"), adapterAlias, adapterPackage, kind+"Validator", kind, kind)
		return nil
	}
	src := req.Universe[file]
	if strings.Contains(src, webhookSignature) {
		return nil
	}
	typ := objectType(src, kind)
	if !hasImmutableMarkers(req.Universe, path.Dir(typesFile(req))) {
		fmt.Fprintf(log, "%s: note: %s has no +immutable marker yet, so %s registers %s alone. "+
			"Once fields are marked and make generate has written ValidateImmutableUpdate, register\n\t%s\n"+
			"(import %s %q).\n",
			pluginKey, kind, file, validator, wrapped(kind, typ, validator), adapterAlias, adapterPackage)
		return nil
	}
	edited, err := wrapValidator(file, src, kind, typ, validator)
	if err != nil {
		fmt.Fprintf(log, "%s: note: %s left as it is: %v\n", pluginKey, file, err)
		return nil
	}
	out[file] = edited
	return nil
}

// wrapped is the WithValidator argument that checks immutability first,
// then with the project's validator.
func wrapped(kind, typ, validator string) string {
	return "WithValidator(&" + adapterAlias + ".ImmutableValidator[" + typ + "]{Next: &" + validator + "{}})"
}

// registration is how go/v4 registers a validator, whatever its name
// (<Kind>CustomValidator up to v4.15, <Kind>Validator from v4.16): recognised
// by shape, not by name.
var registration = regexp.MustCompile(`WithValidator\(&(\w+)\{\}\)|\{Next: &(\w+)\{\}\}\)`)

// webhookFile finds the webhook file go/v4 scaffolded for kind and version
// (internal/webhook/[group/]version/<kind>_webhook.go, or api/... in the
// legacy layout): the one that registers a validator of the kind's, wrapped
// or not, and the validator's type name.
func webhookFile(universe map[string]string, kind, version string) (string, string) {
	name := strings.ToLower(kind) + "_webhook.go"
	var found []string
	validators := map[string]string{}
	for p, src := range universe {
		if path.Base(p) != name || path.Base(path.Dir(p)) != version {
			continue
		}
		m := registration.FindStringSubmatch(src)
		if m == nil {
			continue
		}
		v := m[1]
		if v == "" {
			v = m[2]
		}
		found = append(found, p)
		validators[p] = v
	}
	slices.Sort(found)
	if len(found) != 1 {
		return "", ""
	}
	return found[0], validators[found[0]]
}

// apiType is the kind's Go type as go/v4's webhook file names it, from the
// PROJECT file: *<group><version>.<Kind> (the import alias go/v4 gives the
// API package), else *<Kind>.
func apiType(req PluginRequest, kind string) string {
	version, _ := argValue(req.Args, "version")
	group, _ := argValue(req.Args, "group")
	if group == "" || version == "" {
		return "*" + kind
	}
	return "*" + strings.ToLower(strings.ReplaceAll(group, "-", "")) + version + "." + kind
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
func wrapValidator(filename, src, kind, typ, validator string) (string, error) {
	call := "WithValidator(&" + validator + "{})"
	i := strings.Index(src, call)
	if i < 0 {
		return "", fmt.Errorf("no %s to wrap", call)
	}
	lineStart := strings.LastIndexByte(src[:i], '\n') + 1
	indent := src[lineStart:i]
	if strings.TrimLeft(indent, " \t") != "" {
		return "", fmt.Errorf("%s does not start a line", call)
	}
	comment := indent + "// " + webhookSignature + " of " + kind + ",\n" +
		indent + "// with the ValidateImmutableUpdate that make generate writes, then by " + validator + ".\n"
	edited := src[:lineStart] + comment + indent + wrapped(kind, typ, validator) + src[i+len(call):]

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
	// The typed validators evaluate +immutable:when: no
	// conditional=skip (a target wired before keeps it; it is still
	// accepted).
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
