// Command kubebuilder-immutable-gen is a kubebuilder external plugin,
// immutable-gen.immutable-gen.io/v1-alpha, that wires immutable-gen into a
// kubebuilder (go/v4) project:
//
//   - init and edit: the Makefile's manifests target runs immutable-gen in
//     place of controller-gen, with the same arguments, and a target installs
//     immutable-gen into ./bin like the other tools;
//   - create api: the new API types file gets a comment above the Spec's
//     example field that shows how to mark a field +immutable.
//
// kubebuilder runs the plugin with no arguments, a JSON PluginRequest on
// standard input and reads a PluginResponse on standard output (the external
// plugin protocol of sigs.k8s.io/kubebuilder/v4, pkg/plugin/external). Run
// by hand, the command installs itself where kubebuilder looks for plugins:
//
//	go install github.com/immutable-gen/immutable-gen/cmd/kubebuilder-immutable-gen@latest
//	kubebuilder-immutable-gen install
//	kubebuilder init --plugins go/v4,immutable-gen.immutable-gen.io/v1-alpha --domain example.com --repo example.com/demo
//	kubebuilder edit --plugins immutable-gen.immutable-gen.io/v1-alpha   # an existing project
//
// See docs/guide.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if f, ok := stdin.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				fmt.Fprint(stderr, usage)
				return 2
			}
		}
		return serve(stdin, stdout, stderr)
	}
	switch args[0] {
	case "install":
		fs := flag.NewFlagSet("install", flag.ContinueOnError)
		fs.SetOutput(stderr)
		dir := fs.String("dir", "", "plugins root `directory` (default: $EXTERNAL_PLUGINS_PATH, else kubebuilder's per-user plugins directory)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		path, err := install(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "kubebuilder-immutable-gen: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, path)
		return 0
	case "version":
		fmt.Fprintf(stdout, "%s (installs immutable-gen %s)\n", pluginKey, defaultImmutableGenVersion())
		return 0
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "kubebuilder-immutable-gen: unknown command %q\n%s", args[0], usage)
	return 2
}

const usage = `kubebuilder-immutable-gen is the kubebuilder external plugin ` + pluginKey + `.
kubebuilder runs it with a PluginRequest on standard input.

Usage:
  kubebuilder-immutable-gen install [-dir DIR]   copy this binary to where kubebuilder finds plugins; prints the path
  kubebuilder-immutable-gen version              print the plugin key and the immutable-gen version it installs

Then:
  kubebuilder init --plugins go/v4,` + pluginKey + ` --domain example.com --repo example.com/demo
  kubebuilder edit --plugins ` + pluginKey + `     (an existing go/v4 project)
`

// serve answers one PluginRequest. Errors go back to kubebuilder in the
// response (error, errorMsgs), which it prints; the exit status is non-zero
// only when no response could be written at all.
func serve(stdin io.Reader, stdout, stderr io.Writer) int {
	var req PluginRequest
	var resp PluginResponse
	data, err := io.ReadAll(stdin)
	if err == nil {
		err = json.Unmarshal(data, &req)
	}
	if err != nil {
		resp = errorResponse(req.Command, fmt.Errorf("reading the PluginRequest from standard input: %w", err))
	} else {
		resp = handle(req, stderr)
	}
	out, err := json.Marshal(resp)
	if err != nil {
		fmt.Fprintf(stderr, "kubebuilder-immutable-gen: encoding the response: %v\n", err)
		return 1
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "kubebuilder-immutable-gen: writing the response: %v\n", err)
		return 1
	}
	return 0
}
