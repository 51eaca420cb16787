package main

import (
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
)

// The plugin's identity. kubebuilder finds it at
// <plugins root>/<pluginName>/<pluginVersion>/<pluginName>.
const (
	pluginName    = "immutable-gen.immutable-gen.io"
	pluginVersion = "v1-alpha"
	pluginKey     = pluginName + "/" + pluginVersion

	// protocolVersion is the PluginRequest/PluginResponse schema version
	// kubebuilder v4 sends and expects.
	protocolVersion = "v1alpha1"

	flagVersion = "immutable-gen-version"
)

// The external plugin protocol of kubebuilder v4
// (sigs.k8s.io/kubebuilder/v4/pkg/plugin/external, checked against v4.15.0).
// The types are copied rather than imported so that the immutable-gen module
// does not depend on kubebuilder; field names and JSON keys are kubebuilder's
// (Flag and SubcommandMetadata have no JSON tags there, so their keys are the
// Go field names).

// PluginRequest is what kubebuilder writes to the plugin's standard input.
type PluginRequest struct {
	APIVersion string `json:"apiVersion"`
	// Args are the command-line flags kubebuilder received (all of them but
	// --plugins), as "--name", "value" or "--name=value".
	Args []string `json:"args"`
	// Command is "init", "edit", "create api", "create webhook", or one of
	// the queries "flags" and "metadata" with Args ["--init"], ["--edit"],
	// ["--api"] or ["--webhook"].
	Command string `json:"command"`
	// Universe holds every file of the project directory, path → content.
	Universe    map[string]string `json:"universe"`
	PluginChain []string          `json:"pluginChain,omitempty"`
	// Config is the PROJECT file; absent on a first init.
	Config map[string]any `json:"config,omitempty"`
}

// PluginResponse is what the plugin writes to its standard output.
type PluginResponse struct {
	APIVersion string             `json:"apiVersion"`
	Command    string             `json:"command"`
	Metadata   SubcommandMetadata `json:"metadata"`
	// Universe holds the files to write. kubebuilder writes each one given
	// and leaves the others alone, so the plugin returns only files it
	// changed: returning the whole universe would rewrite every file, and
	// JSON strings cannot carry binary content (bin/ is in the universe).
	Universe  map[string]string `json:"universe"`
	Error     bool              `json:"error,omitempty"`
	ErrorMsgs []string          `json:"errorMsgs,omitempty"`
	Flags     []Flag            `json:"flags,omitempty"`
}

// Flag is a flag the plugin accepts, for kubebuilder to bind and show in help.
type Flag struct {
	Name    string
	Type    string
	Default string
	Usage   string
}

// SubcommandMetadata is the help text of a subcommand.
type SubcommandMetadata struct {
	Description string
	Examples    string
}

func errorResponse(command string, err error) PluginResponse {
	return PluginResponse{
		APIVersion: protocolVersion,
		Command:    command,
		Universe:   map[string]string{},
		Error:      true,
		ErrorMsgs:  []string{pluginKey + ": " + err.Error()},
	}
}

// handle answers one request. Notes for the user go to log (kubebuilder
// passes the plugin's standard error through to the terminal).
func handle(req PluginRequest, log io.Writer) PluginResponse {
	resp := PluginResponse{APIVersion: protocolVersion, Command: req.Command, Universe: map[string]string{}}
	var err error
	switch req.Command {
	case "flags":
		resp.Flags = flagsFor(subcommandOf(req.Args))
	case "metadata":
		resp.Metadata = metadataFor(subcommandOf(req.Args))
	case "init", "edit":
		err = wire(req, resp.Universe, log)
	case "create api":
		err = annotateAPI(req, resp.Universe, log)
	case "create webhook":
		err = scaffoldWebhook(req, resp.Universe, log)
	default:
		err = fmt.Errorf("unknown command %q (this plugin speaks the kubebuilder v4 external plugin protocol %s)", req.Command, protocolVersion)
	}
	if err != nil {
		return errorResponse(req.Command, err)
	}
	return resp
}

// subcommandOf reads the subcommand of a flags or metadata query: "--init" → "init".
func subcommandOf(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return strings.TrimPrefix(args[0], "--")
}

func flagsFor(sub string) []Flag {
	switch sub {
	case "init", "edit":
		return []Flag{{
			Name:    flagVersion,
			Type:    "string",
			Default: defaultImmutableGenVersion(),
			Usage:   "immutable-gen version the Makefile installs (IMMUTABLE_GEN_VERSION); on edit, replaces the version already set",
		}}
	}
	return nil
}

func metadataFor(sub string) SubcommandMetadata {
	switch sub {
	case "init":
		return SubcommandMetadata{
			Description: `Wire immutable-gen into the project's Makefile: the manifests target runs
immutable-gen (controller-gen's generators and arguments, plus the +immutable
and +immutable=keys markers compiled into CEL rules) in place of
controller-gen, and an immutable-gen target installs it into ./bin.`,
			Examples: `  kubebuilder init --plugins go/v4,` + pluginKey + ` --domain example.com --repo example.com/demo
  kubebuilder init --plugins go/v4,` + pluginKey + ` --domain example.com --` + flagVersion + ` v0.1.0`,
		}
	case "edit":
		return SubcommandMetadata{
			Description: `Wire immutable-gen into an existing go/v4 project's Makefile: the manifests
target runs immutable-gen in place of controller-gen, with the same arguments.
Running it again changes nothing; with --` + flagVersion + ` it updates the pinned version.`,
			Examples: `  kubebuilder edit --plugins ` + pluginKey + `
  kubebuilder edit --plugins ` + pluginKey + ` --` + flagVersion + ` v0.2.0`,
		}
	case "api":
		return SubcommandMetadata{
			Description: `Add a comment to the new API's types file showing how to make a field
immutable with the +immutable marker.`,
			Examples: `  kubebuilder create api --group cache --version v1 --kind Memcached`,
		}
	case "webhook":
		return SubcommandMetadata{
			Description: `With --programmatic-validation: make generate also writes the typed
immutability validators (immutable-gen validators), and, when the kind has
+immutable markers, the scaffolded validator is registered inside
immutablewebhook.ImmutableValidator, which rejects updates of immutable
fields (422) before calling it.`,
			Examples: `  kubebuilder create webhook --group cache --version v1 --kind Memcached --programmatic-validation`,
		}
	}
	return SubcommandMetadata{}
}

// argValue returns the value of flag --name in kubebuilder's Args, given as
// "--name value" or "--name=value".
func argValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if a == "--"+name {
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				return args[i+1], true
			}
			return "", true
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// wire handles init and edit: the Makefile's manifests target runs immutable-gen.
func wire(req PluginRequest, out map[string]string, log io.Writer) error {
	if !slices.ContainsFunc(req.PluginChain, isGoPlugin) && len(req.PluginChain) > 0 {
		fmt.Fprintf(log, "%s: note: no go/v4 plugin in the plugin chain %v; editing the Makefile anyway\n", pluginKey, req.PluginChain)
	}
	src, ok := req.Universe["Makefile"]
	if !ok {
		if req.Command == "init" {
			return fmt.Errorf("no Makefile to wire immutable-gen into: put this plugin after go/v4 (--plugins go/v4,%s)", pluginKey)
		}
		return fmt.Errorf("no Makefile in the project directory: run kubebuilder edit from the project root")
	}
	version, set := argValue(req.Args, flagVersion)
	if set && !validVersion(version) {
		return fmt.Errorf("--%s %q: want a module version such as v0.1.0, or latest", flagVersion, version)
	}
	if !set {
		version = defaultImmutableGenVersion()
	}
	edited, err := wireMakefile(src, version, set)
	if err != nil {
		return fmt.Errorf("editing the Makefile: %w", err)
	}
	if edited != src {
		out["Makefile"] = edited
	}
	return nil
}

func isGoPlugin(key string) bool {
	return strings.HasPrefix(key, "go.kubebuilder.io/")
}

// moduleVersion matches a module version that pins one release for go
// install: vMAJOR.MINOR.PATCH with an optional pre-release (pseudo-versions
// included), without +build metadata.
var moduleVersion = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

func validVersion(v string) bool {
	return v == "latest" || moduleVersion.MatchString(v)
}

// defaultImmutableGenVersion is the version of the immutable-gen module this
// plugin was built from, so that `go install …/kubebuilder-immutable-gen@vX`
// wires immutable-gen vX; a development build (no module version, or one
// with +build metadata such as +dirty) says latest.
func defaultImmutableGenVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && moduleVersion.MatchString(bi.Main.Version) {
		return bi.Main.Version
	}
	return "latest"
}
