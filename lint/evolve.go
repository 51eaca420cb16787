package lint

// This file is the evolution check, `immutable-gen lint --base OLD NEW`:
// what changed in immutability between two revisions of the same CRDs
// (docs/lint.md, "Comparing two revisions"). CRDs are paired by name,
// versions by name (or, where a version was renamed or replaced, the
// storage version of each side), and for every field of every paired
// version the immutability each side enforces is read (evolvefacts.go)
// and compared; every weakening and strengthening is proved with an update
// whose verdict differs between the two CRDs, as the API server's own
// validator gives it (witness.go).

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/runtime/manifest"
)

// The IDs of the evolution check's findings (IG070–IG079).
const (
	IDWeakened       diag.ID = "IG070"
	IDStrengthened   diag.ID = "IG071"
	IDBoundAdded     diag.ID = "IG072"
	IDFloorRaised    diag.ID = "IG073"
	IDUnproven       diag.ID = "IG074"
	IDVersionDropped diag.ID = "IG075"
	IDCRDDropped     diag.ID = "IG076"
)

// evolveChecks are the evolution check's entries of the Catalog.
func evolveChecks() []Check {
	return []Check{
		{ID: IDWeakened, Severity: Warning, Title: "a field less immutable than in the base revision: an update the base refuses is allowed (proved with a pair of objects)"},
		{ID: IDStrengthened, Severity: Info, Title: "a field more immutable than in the base revision: an update the base allows is refused (proved with a pair of objects)"},
		{ID: IDBoundAdded, Severity: Warning, Title: "a new or lower bound (maxItems, maxLength, maxProperties) on an immutable field: objects above it can no longer be created, nor updated on servers without ratcheting"},
		{ID: IDFloorRaised, Severity: Info, Title: "the immutability rules need a newer Kubernetes than the base revision's"},
		{ID: IDUnproven, Severity: Warning, Title: "the immutability of a field changed in a way lint can neither prove nor refute (a condition or a rule it does not read, with no update found whose verdict differs)"},
		{ID: IDVersionDropped, Severity: Info, Title: "a served version of the base revision with immutability rules is no longer served, and no version of the new revision is paired with it"},
		{ID: IDCRDDropped, Severity: Info, Title: "a CRD of the base revision with immutability rules is not in the new revision"},
	}
}

// EvolveResult is the outcome of comparing two revisions of CRDs: the
// findings (Result's fields: CRDs counts the CRD pairs compared, Errors
// the inputs of either side that could not be used) and, beside each
// weakened or strengthened finding, its witness.
type EvolveResult struct {
	Result
	// Witnesses[i] is the witness of Findings[i], nil for a finding
	// without one.
	Witnesses []*Witness
}

// crdDoc is one CRD document of one side, as read.
type crdDoc struct {
	file, name string
	json       []byte
	obj        map[string]any
	lines      []yline
}

// line is the line of path of version in the document (0 if unknown).
func (d *crdDoc) line(version, path string) int {
	return schemaLine(d.lines, d.name, version, path)
}

// loadSide reads the CRDs (apiextensions.k8s.io/v1, whole) at paths, by
// name; "-" is standard input (`git show REF:PATH | immutable-gen lint
// --base - PATH`). Other documents are left out, as lint leaves them; what cannot be
// read is an InputError.
func loadSide(paths []string) (map[string]*crdDoc, []string, []InputError) {
	out := map[string]*crdDoc{}
	var order []string
	var errs []InputError
	for _, p := range paths {
		files := []string{p}
		if p != "-" {
			var err error
			if files, err = expand(p); err != nil {
				errs = append(errs, InputError{File: p, Message: err.Error()})
				continue
			}
		}
		for _, f := range files {
			var data []byte
			var err error
			if f == "-" {
				data, err = io.ReadAll(os.Stdin)
			} else {
				data, err = os.ReadFile(f)
			}
			if err != nil {
				errs = append(errs, InputError{File: f, Message: err.Error()})
				continue
			}
			if helmTemplate(f, data) {
				continue
			}
			for doc := range manifest.Documents(data) {
				if doc.Err != nil {
					errs = append(errs, InputError{File: f, Message: fmt.Sprintf("document %d: %s", doc.Number, syntaxError(doc.Err))})
					continue
				}
				var h header
				if json.Unmarshal(doc.JSON, &h) != nil || h.Kind != "CustomResourceDefinition" || !strings.HasPrefix(h.APIVersion, "apiextensions.k8s.io/") || h.partial() != nil {
					continue
				}
				if h.APIVersion != "apiextensions.k8s.io/v1" {
					errs = append(errs, InputError{File: f, Message: fmt.Sprintf("document %d: %s CustomResourceDefinitions are not supported (API servers serve only apiextensions.k8s.io/v1 since Kubernetes 1.22): convert it to apiextensions.k8s.io/v1", doc.Number, h.APIVersion)})
					continue
				}
				var typed apiextv1.CustomResourceDefinition
				if err := sigsjson.UnmarshalCaseSensitivePreserveInts(doc.JSON, &typed); err != nil {
					errs = append(errs, InputError{File: f, Message: fmt.Sprintf("document %d: CustomResourceDefinition %q cannot be decoded: %v", doc.Number, h.Metadata.Name, err)})
					continue
				}
				var obj map[string]any
				if err := json.Unmarshal(doc.JSON, &obj); err != nil {
					errs = append(errs, InputError{File: f, Message: fmt.Sprintf("document %d: %v", doc.Number, err)})
					continue
				}
				name := h.Metadata.Name
				if prev, ok := out[name]; ok {
					errs = append(errs, InputError{File: f, Message: fmt.Sprintf("document %d: CustomResourceDefinition %s is also in %s: one revision holds each CRD once", doc.Number, name, prev.file)})
					continue
				}
				d := &crdDoc{file: f, name: name, json: doc.JSON, obj: obj}
				if doc.YAML != nil {
					d.lines = yamlLines(doc.YAML, doc.Line)
				} else {
					d.lines = []yline{{no: doc.Line}}
				}
				out[name] = d
				order = append(order, name)
			}
		}
	}
	return out, order, errs
}

// Evolve compares the CRDs at base (the old revision) with those at paths
// (the new one): files or directories, as Files reads them. CRDs are
// paired by metadata.name; a CRD only in the new revision is new, and
// nothing could rely on its immutability. The error joins the inputs that
// could not be used, which are in the result's Errors too.
func Evolve(base, paths []string) (EvolveResult, error) {
	return EvolveWithOptions(base, paths, Options{})
}

// EvolveWithOptions is Evolve with options: findings a config file
// silences. The annotations ignore-check.immutable-gen.io/ID on the new
// revision's CRD silence too, as for lint.
func EvolveWithOptions(base, paths []string, opts Options) (EvolveResult, error) {
	oldDocs, _, errsOld := loadSide(base)
	newDocs, order, errsNew := loadSide(paths)
	var res EvolveResult
	for _, e := range errsOld {
		res.Errors = append(res.Errors, InputError{File: e.File, Message: "base: " + e.Message})
	}
	res.Errors = append(res.Errors, errsNew...)
	type out struct {
		f diag.Diagnostic
		w *Witness
	}
	var all []out
	add := func(f diag.Diagnostic, w *Witness) { all = append(all, out{f, w}) }
	for _, name := range order {
		nd := newDocs[name]
		od, ok := oldDocs[name]
		if !ok {
			continue
		}
		res.CRDs++
		cmpr, err := newCRDPair(od, nd)
		if err != nil {
			res.Errors = append(res.Errors, InputError{File: nd.file, Message: err.Error()})
			continue
		}
		for _, x := range cmpr.compare() {
			add(x.finding, x.witness)
		}
	}
	// The CRDs of the base that are gone.
	var gone []string
	for name, od := range oldDocs {
		if _, ok := newDocs[name]; !ok && hasImmutability(od.obj) {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	for _, name := range gone {
		od := oldDocs[name]
		add(diag.Diagnostic{
			Pos: token.Position{Filename: od.file, Line: od.line("", "<crd>")}, CRD: name, Path: "<crd>",
			ID: IDCRDDropped, Severity: severityOf(IDCRDDropped),
			Message: "the CRD has immutability rules in the base revision and is not in the new one: its objects are no longer served (or it moved to a file not given)",
			Fix:     "give the new revision's file of the CRD too, or keep serving the CRD",
		}, nil)
	}
	for _, x := range all {
		var ann map[string]string
		if d := newDocs[x.f.CRD]; d != nil {
			md, _ := d.obj["metadata"].(map[string]any)
			a, _ := md["annotations"].(map[string]any)
			for k, v := range a {
				if ann == nil {
					ann = map[string]string{}
				}
				ann[k], _ = v.(string)
			}
		}
		if annotationIgnores(ann)[x.f.ID] || opts.silenced(x.f) {
			res.Silenced++
			continue
		}
		res.Findings = append(res.Findings, x.f)
		res.Witnesses = append(res.Witnesses, x.w)
	}
	var errs []error
	for _, e := range res.Errors {
		errs = append(errs, fmt.Errorf("%s: %s", e.File, e.Message))
	}
	return res, errors.Join(errs...)
}

// severityOf is the Catalog's severity of id.
func severityOf(id diag.ID) Severity {
	for _, c := range Catalog() {
		if c.ID == id {
			return c.Severity
		}
	}
	return Error
}

// hasImmutability reports whether a CRD names an immutability extension or
// a transition rule (a rule reading oldSelf) anywhere.
func hasImmutability(obj map[string]any) bool {
	b, _ := json.Marshal(obj)
	s := string(b)
	return strings.Contains(s, "oldSelf") || strings.Contains(s, `"x-kubernetes-immutable`) || strings.Contains(s, `"x-immutable-gen-`)
}

// evolveFinding is one finding of a CRD pair, with its witness.
type evolveFinding struct {
	finding diag.Diagnostic
	witness *Witness
}

// sortEvolve orders a pair's findings by version, path and ID.
func sortEvolve(out []evolveFinding, order []string) {
	rank := func(v string) int { return slices.Index(order, v) + 1 }
	slices.SortStableFunc(out, func(a, b evolveFinding) int {
		return cmp.Or(cmp.Compare(rank(a.finding.Version), rank(b.finding.Version)),
			cmp.Compare(a.finding.Path, b.finding.Path), cmp.Compare(a.finding.ID, b.finding.ID),
			cmp.Compare(a.finding.Message, b.finding.Message))
	})
}

// JSON renders the result as lint's JSON (Result.JSON), each weakened or
// strengthened finding with its witness: {"witness": {"version",
// "old", "new", "refusedBy", "errors"}}.
func (r EvolveResult) JSON() ([]byte, error) {
	type finding struct {
		jsonFinding
		Witness *Witness `json:"witness,omitempty"`
	}
	out := struct {
		Findings []finding    `json:"findings"`
		Errors   []InputError `json:"errors"`
		Summary  Summary      `json:"summary"`
	}{[]finding{}, r.Errors, r.Summary()}
	for i, f := range r.Findings {
		rules := f.Rules
		if rules == nil {
			rules = []diag.RuleAt{}
		}
		out.Findings = append(out.Findings, finding{jsonFinding{f.Pos.Filename, f.Pos.Line, f.CRD, f.Version, f.Path, string(f.ID), severityName(f.Severity), f.Message, f.Fix, rules}, r.Witnesses[i]})
	}
	if out.Errors == nil {
		out.Errors = []InputError{}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// VerboseText is Text with each finding's witness below it: the update
// and the verdict of the side that refuses it.
func (r EvolveResult) VerboseText() string {
	return r.text(func(i int) string {
		if w := r.Witnesses[i]; w != nil {
			return w.indented("    ")
		}
		return ""
	})
}
