package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/preflight"
)

const checkUpdateSynopsis = "usage: immutable-gen check-update --schema CRD_FILE_OR_DIR... [--version NAME] [--old FILE_OR_DIR] --new FILE_OR_DIR [--subresource=status] [-o text|json] [--allow-unknown-kinds]"

const checkUpdateUsage = checkUpdateSynopsis + `

Answers, with no cluster, whether the Kubernetes API server would accept the
objects in --new, given the objects in --old as they are stored: the server's
own validation of custom resources (k8s.io/apiextensions-apiserver), for the
main resource: the OpenAPI schema with ratcheting, x-kubernetes-list-type
uniqueness, every x-kubernetes-validations rule (transition rules included),
metadata; after the server's pruning of unknown fields, defaulting, and reset
of status when the status subresource is on (a change of status there is
ignored by the server, and said so on standard error). CRDs with the
x-kubernetes-immutable extensions are also checked against them, as the
ImmutableFields admission plugin or webhook would.

  --schema PATH   CustomResourceDefinition manifests (apiextensions.k8s.io/v1),
                  a file or a directory; may be repeated
  --version NAME  the version of the CRDs the objects are sent as (their
                  apiVersion's version is replaced); default: each object's
                  apiVersion, and for an object without apiVersion the
                  storage version of the only CRD defining its kind
  --old PATH      the objects as they are stored: a file of YAML or JSON
                  documents, or a directory of them; omitted, every object of
                  --new is checked as a create
  --new PATH      the objects to apply, a file or a directory
  --subresource=status
                  check each update as an update through /status, as the
                  server's status strategy does: the stored object keeps
                  everything but status, status is validated against its
                  schema and the rules of the whole object; the changes the
                  server ignores are said on standard error ("note: ...").
                  Needs --old (a /status update changes a stored object)
  -o FORMAT       text (default) or json
  --allow-unknown-kinds
                  objects whose kind no CRD defines are listed as not checked
                  instead of making the input unusable

Objects are paired by the group of their apiVersion, kind, namespace and name
(a namespaced object without one is in "default"). An object only in --new is
a create, in both an update, only in --old a deletion (not checked).

With one object in each of --old FILE and --new FILE (or one in --new FILE
alone), the output is one "path: message" line per error, in the API
server's wording, sorted, and the server's warnings (unknown fields it
prunes) go to standard error as "warning: ..." lines. Otherwise each update
and create is one line, "OPERATION OBJECT (SOURCES): VERDICT", then,
indented, its "path: message" lines and warnings.

Exit status: 0 every change allowed; 1 some change rejected; 2 unusable input
(with a message on standard error), or an object whose kind no CRD defines.
`

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// runCheckUpdate implements "immutable-gen check-update" and returns the
// exit status.
func runCheckUpdate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-update", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var schemas stringList
	fs.Var(&schemas, "schema", "")
	version := fs.String("version", "", "")
	oldPath := fs.String("old", "", "")
	newPath := fs.String("new", "", "")
	format := fs.String("o", "text", "")
	allowUnknown := fs.Bool("allow-unknown-kinds", false, "")
	subresource := fs.String("subresource", "", "")
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
	if len(schemas) == 0 {
		missing = append(missing, "--schema")
	}
	if *newPath == "" {
		missing = append(missing, "--new")
	}
	if len(missing) > 0 {
		fmt.Fprintln(stderr, checkUpdateSynopsis)
		return fail("missing %s", strings.Join(missing, ", "))
	}
	if *subresource != "" && *subresource != "status" {
		fmt.Fprintln(stderr, checkUpdateSynopsis)
		return fail("--subresource=%s: the subresource checked is status", *subresource)
	}
	if *subresource == "status" && *oldPath == "" {
		fmt.Fprintln(stderr, checkUpdateSynopsis)
		return fail("--subresource=status needs --old: a /status update changes a stored object")
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintln(stderr, checkUpdateSynopsis)
		return fail("-o %s: the format is text or json", *format)
	}

	// The validators allocate much and keep little: collect garbage less
	// often, unless GOGC says otherwise, as lint does (BENCHMARKS.md).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	checker, err := loadChecker(schemas)
	if err != nil {
		return fail("%v", err)
	}
	var oldObjs []preflight.Object
	if *oldPath != "" {
		if oldObjs, err = preflight.Load(*oldPath); err != nil {
			return fail("%v", err)
		}
	}
	newObjs, err := preflight.Load(*newPath)
	if err != nil {
		return fail("%v", err)
	}
	for _, objs := range [][]preflight.Object{oldObjs, newObjs} {
		for _, o := range objs {
			if err := checker.SetVersion(o.Object, *version); err != nil {
				var noCRD *preflight.NoCRDError
				if errors.As(err, &noCRD) {
					continue // reported per change below
				}
				return fail("%s: %v", o.Source, err)
			}
		}
	}
	var changes []preflight.Change
	if len(oldObjs) == 1 && len(newObjs) == 1 && isFile(*oldPath) && isFile(*newPath) {
		// The contract's form: one object before, one after. What one leaves
		// out of its identity (kind, apiVersion, name, namespace) it has as
		// the other says; of one group and kind, they are one object, and a
		// changed name is reported as the server reports it. Of another
		// kind, they are paired as in a directory: a deletion and a create.
		o, n := oldObjs[0].Object, newObjs[0].Object
		completeIdentity(o, n, checker)
		completeIdentity(n, o, checker)
		for _, obj := range []preflight.Object{oldObjs[0], newObjs[0]} {
			if err := checker.SetVersion(obj.Object, *version); err != nil && !isNoCRD(err) {
				return fail("%s: %v", obj.Source, err)
			}
		}
		if sameResource(preflight.KeyOf(o), preflight.KeyOf(n)) {
			changes = []preflight.Change{{Key: preflight.KeyOf(n), Old: &oldObjs[0], New: &newObjs[0]}}
		}
	}
	if changes == nil {
		for _, objs := range [][]preflight.Object{oldObjs, newObjs} {
			for _, o := range objs {
				if err := checker.SetVersion(o.Object, *version); err != nil && !isNoCRD(err) {
					return fail("%s: %v", o.Source, err)
				}
			}
		}
		if changes, err = preflight.Pair(oldObjs, newObjs); err != nil {
			return fail("%v", err)
		}
	}

	results := checkAll(checker, changes, *subresource == "status")
	report := checkReport{Changes: []changeReport{}}
	var rejected, allowed, unknown, deleted int
	for i, ch := range changes {
		r := newChangeReport(ch)
		res, err := results[i].res, results[i].err
		var noCRD *preflight.NoCRDError
		switch {
		case errors.As(err, &noCRD):
			r.Verdict, r.Reason = verdictNotChecked, err.Error()
			unknown++
		case err != nil:
			return fail("%s: %v", r.sources(), err)
		case res.Operation == preflight.Delete:
			r.Verdict, r.Reason = verdictNotChecked, "deletions are not validated"
			deleted++
		case res.Allowed():
			r.Verdict = verdictAllowed
			allowed++
		default:
			r.Verdict = verdictRejected
			rejected++
		}
		r.Errors = jsonErrors(res.Errors)
		r.Warnings = res.Warnings
		r.Dropped = res.Dropped
		report.Changes = append(report.Changes, r)
	}
	report.Allowed = rejected == 0 && (unknown == 0 || *allowUnknown)

	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(report); err != nil {
			return fail("%v", err)
		}
	} else if len(report.Changes) == 1 && isFile(*oldPath) && isFile(*newPath) {
		report.Changes[0].writePlain(stdout, stderr)
	} else {
		for _, r := range report.Changes {
			r.writeText(stdout)
		}
	}
	fmt.Fprintf(stderr, "immutable-gen check-update: %s\n", summary(rejected, allowed, deleted, unknown))
	switch {
	case rejected > 0:
		return 1
	case unknown > 0 && !*allowUnknown:
		fmt.Fprintf(stderr, "immutable-gen check-update: %d object(s) of a kind no CustomResourceDefinition of --schema defines (--allow-unknown-kinds lists them without failing)\n", unknown)
		return 2
	}
	return 0
}

type checkResult struct {
	res preflight.Result
	err error
}

// checkAll checks the changes on every CPU; a Checker is safe for
// concurrent use. Results are in the order of changes.
//
// With status, updates go through /status (creates are checked as
// creates: the server has no /status for an object that is not stored).
func checkAll(checker *preflight.Checker, changes []preflight.Change, status bool) []checkResult {
	results := make([]checkResult, len(changes))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := min(goruntime.GOMAXPROCS(0), len(changes)); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ch := changes[i]
				if status && ch.Old != nil && ch.New != nil {
					results[i].res, results[i].err = checker.UpdateStatus(ch.New.Object, ch.Old.Object)
					continue
				}
				results[i].res, results[i].err = checker.Check(ch)
			}
		}()
	}
	for i := range changes {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// loadChecker reads the CRDs of every --schema path. Documents that are not
// CustomResourceDefinitions are skipped, so a directory of manifests may be
// given; no CRD at all is an error.
func loadChecker(paths []string) (*preflight.Checker, error) {
	var crds []preflight.CRD
	for _, p := range paths {
		objs, err := preflight.Load(p)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			k := preflight.KeyOf(o.Object)
			if k.Kind != "CustomResourceDefinition" || !strings.HasPrefix(k.APIVersion, "apiextensions.k8s.io/") {
				continue
			}
			raw, err := json.Marshal(o.Object)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", o.Source, err)
			}
			crds = append(crds, preflight.CRD{Source: o.Source, Raw: raw})
		}
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("%s: no CustomResourceDefinition", strings.Join(paths, ", "))
	}
	return preflight.NewChecker(crds)
}

const (
	verdictAllowed    = "allowed"
	verdictRejected   = "rejected"
	verdictNotChecked = "not checked"
)

// checkReport is the -o json output.
type checkReport struct {
	// Allowed is true when the exit status is 0.
	Allowed bool           `json:"allowed"`
	Changes []changeReport `json:"changes"`
}

type changeReport struct {
	Operation  string `json:"operation"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Old        string `json:"old,omitempty"` // source of the old object
	New        string `json:"new,omitempty"` // source of the new object
	// Verdict is "allowed", "rejected" or "not checked".
	Verdict  string      `json:"verdict"`
	Reason   string      `json:"reason,omitempty"` // why not checked
	Errors   []jsonError `json:"errors,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	// Dropped says what of the request the server ignores: a change of
	// status on a CRD with the status subresource, or anything but status
	// through /status.
	Dropped string `json:"dropped,omitempty"`

	key preflight.Key
}

// jsonError is a field.Error as the API server's status causes carry it.
type jsonError struct {
	Type    field.ErrorType `json:"type"`  // e.g. FieldValueInvalid
	Field   string          `json:"field"` // e.g. spec.engine
	Message string          `json:"message"`
}

func jsonErrors(errs field.ErrorList) []jsonError {
	var out []jsonError
	for _, e := range errs {
		out = append(out, jsonError{Type: e.Type, Field: e.Field, Message: e.ErrorBody()})
	}
	return out
}

func newChangeReport(ch preflight.Change) changeReport {
	r := changeReport{key: ch.Key, APIVersion: ch.Key.APIVersion, Kind: ch.Key.Kind, Namespace: ch.Key.Namespace, Name: ch.Key.Name}
	switch {
	case ch.New == nil:
		r.Operation = string(preflight.Delete)
	case ch.Old == nil:
		r.Operation = string(preflight.Create)
	default:
		r.Operation = string(preflight.Update)
	}
	if ch.Old != nil {
		r.Old = ch.Old.Source
	}
	if ch.New != nil {
		r.New = ch.New.Source
	}
	return r
}

func (r *changeReport) sources() string {
	switch {
	case r.Old == "":
		return r.New
	case r.New == "":
		return r.Old
	}
	return r.Old + " -> " + r.New
}

func (r *changeReport) writeText(w io.Writer) {
	line := fmt.Sprintf("%s %s (%s): %s", r.Operation, r.key, r.sources(), r.Verdict)
	if r.Reason != "" {
		line += ": " + r.Reason
	}
	fmt.Fprintln(w, line)
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  %s: %s\n", fieldOrRoot(e.Field), e.Message)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	if r.Dropped != "" {
		fmt.Fprintf(w, "  note: %s\n", r.Dropped)
	}
}

// writePlain writes the report of the only change of a run in the form of
// the contract (docs/semantics.md, "immutable-gen check-update"): one "path: message" line per error on w, and
// the warnings on warnw.
func (r *changeReport) writePlain(w, warnw io.Writer) {
	if r.Reason != "" {
		fmt.Fprintf(w, "%s %s (%s): %s: %s\n", r.Operation, r.key, r.sources(), r.Verdict, r.Reason)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "%s: %s\n", fieldOrRoot(e.Field), e.Message)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(warnw, "warning: %s\n", warn)
	}
	if r.Dropped != "" {
		fmt.Fprintf(warnw, "note: %s\n", r.Dropped)
	}
}

// sameResource reports whether two keys name objects of one group and kind
// (an update keeps both; another kind is a deletion and a creation).
func sameResource(a, b preflight.Key) bool {
	group := func(apiVersion string) string {
		if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
			return apiVersion[:i]
		}
		return ""
	}
	return a.Kind == b.Kind && group(a.APIVersion) == group(b.APIVersion)
}

// isNoCRD reports whether err says that no CRD defines an object's kind:
// such objects are reported per change, not as unusable input.
func isNoCRD(err error) bool {
	var noCRD *preflight.NoCRDError
	return errors.As(err, &noCRD)
}

// completeIdentity gives obj what it leaves out of its identity as other
// has it: kind and apiVersion (or, when neither says, the only kind the
// CRDs define), name and namespace.
func completeIdentity(obj, other map[string]interface{}, checker *preflight.Checker) {
	u, v := &unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: other}
	if u.GetKind() == "" {
		switch {
		case v.GetKind() != "":
			u.SetKind(v.GetKind())
			if u.GetAPIVersion() == "" {
				u.SetAPIVersion(v.GetAPIVersion())
			}
		default:
			if gvk, ok := checker.OnlyKind(); ok && u.GetAPIVersion() == "" {
				u.SetKind(gvk.Kind)
				u.SetAPIVersion(gvk.Group + "/" + gvk.Version)
			}
		}
	}
	if u.GetAPIVersion() == "" && u.GetKind() == v.GetKind() {
		u.SetAPIVersion(v.GetAPIVersion())
	}
	if u.GetName() == "" {
		u.SetName(v.GetName())
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(v.GetNamespace())
	}
}

// isFile reports whether path is empty (not given) or names no directory.
func isFile(path string) bool {
	if path == "" {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

func fieldOrRoot(p string) string {
	if p == "" {
		return "<root>"
	}
	return p
}

func summary(rejected, allowed, deleted, unknown int) string {
	parts := []string{fmt.Sprintf("%d rejected", rejected), fmt.Sprintf("%d allowed", allowed)}
	if deleted > 0 {
		parts = append(parts, fmt.Sprintf("%d deletion(s) not checked", deleted))
	}
	if unknown > 0 {
		parts = append(parts, fmt.Sprintf("%d of an unknown kind not checked", unknown))
	}
	return strings.Join(parts, ", ")
}
