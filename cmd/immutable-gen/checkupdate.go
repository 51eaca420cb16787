package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"
)

const checkUpdateSynopsis = "usage: immutable-gen check-update --schema CRD_FILE [--version NAME] --old FILE --new FILE"

const checkUpdateUsage = checkUpdateSynopsis + `

Checks the update of the object in --old to the object in --new against the
x-kubernetes-immutable and x-kubernetes-immutable-keys extensions of a
CustomResourceDefinition.

  --schema FILE   CustomResourceDefinition manifest, YAML or JSON; it may hold
                  several documents, the CRD is chosen by the objects' kind
  --version NAME  version of the CRD whose schema applies; default: the
                  version of the new object's apiVersion, else the storage
                  version
  --old FILE      the object before the update, YAML or JSON, one object
  --new FILE      the object after the update, YAML or JSON, one object

Exit status: 0 allowed; 1 rejected, with one "path: message" line per
violation on standard output; 2 unusable input, with a message on standard
error.
`

// runCheckUpdate implements "immutable-gen check-update" and returns the
// exit status.
func runCheckUpdate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-update", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	schemaPath := fs.String("schema", "", "")
	version := fs.String("version", "", "")
	oldPath := fs.String("old", "", "")
	newPath := fs.String("new", "", "")
	fail := func(format string, args ...interface{}) int {
		fmt.Fprintf(stderr, "immutable-gen check-update: "+format+"\n", args...)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, checkUpdateUsage)
			return 0
		}
		fmt.Fprintln(stderr, checkUpdateSynopsis)
		return fail("%v", err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, checkUpdateSynopsis)
		return fail("unexpected argument %q", fs.Arg(0))
	}
	var missing []string
	for _, f := range []struct{ name, value string }{{"--schema", *schemaPath}, {"--old", *oldPath}, {"--new", *newPath}} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintln(stderr, checkUpdateSynopsis)
		return fail("missing %s", strings.Join(missing, ", "))
	}

	oldObj, err := readObject(*oldPath)
	if err != nil {
		return fail("%v", err)
	}
	newObj, err := readObject(*newPath)
	if err != nil {
		return fail("%v", err)
	}
	manifest, err := os.ReadFile(*schemaPath)
	if err != nil {
		return fail("%v", err)
	}

	opts, err := selectCRD(newObj, oldObj, *version)
	if err != nil {
		return fail("%v", err)
	}
	checker, err := runtime.CompileCRD(manifest, opts)
	if err != nil {
		return fail("%s:%s", *schemaPath, indent(err.Error()))
	}

	errs := checker.ValidateUpdate(newObj, oldObj)
	for _, e := range errs {
		fmt.Fprintln(stdout, formatViolation(e))
	}
	if len(errs) > 0 {
		fmt.Fprintf(stderr, "immutable-gen check-update: update rejected: %d violation(s)\n", len(errs))
		return 1
	}
	return 0
}

// selectCRD derives the CRD selection from the objects: their kind and the
// group of their apiVersion pick the CRD, the version of the new object's
// apiVersion picks the version unless --version does.
func selectCRD(newObj, oldObj map[string]interface{}, version string) (runtime.CRDOptions, error) {
	ng, nv, nk := typeOf(newObj)
	og, _, ok := typeOf(oldObj)
	if nk != "" && ok != "" && (ng != og || nk != ok) {
		return runtime.CRDOptions{}, fmt.Errorf("the old object is a %s, the new one a %s: an update keeps the group and kind", groupKind(og, ok), groupKind(ng, nk))
	}
	opts := runtime.CRDOptions{Group: ng, Kind: nk, Version: version}
	if nk == "" {
		opts.Group, opts.Kind = og, ok
	}
	if opts.Version == "" {
		opts.Version = nv
	}
	return opts, nil
}

// typeOf returns the group, version and kind an object declares.
func typeOf(obj map[string]interface{}) (group, version, kind string) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ = obj["kind"].(string)
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:], kind
	}
	return "", apiVersion, kind
}

func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// readObject reads the one object of a YAML or JSON file. Integers decode
// as int64 and other numbers as float64, as in the API server.
func readObject(path string) (map[string]interface{}, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []map[string]interface{}
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", path, n, err)
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			continue
		}
		var obj map[string]interface{}
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("%s: document %d is not an object: %v", path, n, err)
		}
		objs = append(objs, obj)
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%s: holds %d objects; check-update takes exactly one object per file", path, len(objs))
	}
	return objs[0], nil
}

// formatViolation renders a violation as one "path: message" line: the
// field.Error text, with "<root>" for the root of the object.
func formatViolation(e *field.Error) string {
	p := e.Field
	if p == "" {
		p = "<root>"
	}
	return p + ": " + e.ErrorBody()
}

// indent formats a message to follow "FILE:": on the same line if it is
// one line, else indented below.
func indent(s string) string {
	if !strings.Contains(s, "\n") {
		return " " + s
	}
	return "\n  " + strings.ReplaceAll(s, "\n", "\n  ")
}
