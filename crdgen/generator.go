// Package crdgen is immutable-gen's `crd` generator: controller-tools' CRD
// generator, unchanged, followed by the immutability pipeline on every CRD it
// produces — the model and its KEP placement findings (package crdmodel),
// the API server's CRD validation (package crdvalidation), and the
// extensions or CEL emitted into the tree. CRDs without markers pass
// through byte for byte, so the generator is a drop-in for controller-gen's.
package crdgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/cache"
	"github.com/immutable-gen/immutable-gen/crdmodel"
	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Immutability modes.
const (
	// ModeCEL lowers the markers to x-kubernetes-validations rules that real
	// API servers enforce (the default).
	ModeCEL = "cel"
	// ModeExtensions writes the KEP's x-kubernetes-immutable and
	// x-kubernetes-immutable-keys booleans.
	ModeExtensions = "extensions"
)

// Generator generates CustomResourceDefinition objects, with immutability.
// Its options are controller-gen's `crd` options plus Immutability.
type Generator struct {
	IgnoreUnexportedFields     *bool    `marker:",optional"`
	AllowDangerousTypes        *bool    `marker:",optional"`
	MaxDescLen                 *int     `marker:",optional"`
	CRDVersions                []string `marker:"crdVersions,optional"`
	GenerateEmbeddedObjectMeta *bool    `marker:",optional"`
	HeaderFile                 string   `marker:",optional"`
	Year                       string   `marker:",optional"`

	DeprecatedV1beta1CompatibilityPreserveUnknownFields *bool `marker:",optional"`

	OmitToolVersion *bool `marker:",optional"`

	// Immutability selects how +immutable markers are written: "cel" (the
	// default) or "extensions".
	Immutability string `marker:",optional"`

	// KubeVersion is the oldest Kubernetes version ("1.N") the CRDs must
	// work on; CEL rules that need a newer API server are an error.
	KubeVersion string `marker:",optional"`

	// report receives the diagnostics of a run (warnings and notes as well
	// as errors). When nil, errors are returned from Generate and the rest
	// is printed to standard error (diag.List.Report).
	report func(diag.List)

	// server runs the API server's CRD validation of the CRDs with markers
	// (semantics 2.2 rule 7). Without one, a run that has CRDs with markers
	// fails: their validation is not optional.
	server crdvalidation.Server
}

// WithServer returns g with s running the API server's CRD validation of
// the CRDs with markers (crdvalidation/apiserver.InProcess in immutable-gen).
func (g Generator) WithServer(s crdvalidation.Server) Generator {
	g.server = s
	return g
}

// WithReport returns g with fn receiving every run's diagnostics.
func (g Generator) WithReport(fn func(diag.List)) Generator {
	g.report = fn
	return g
}

// upstream is controller-tools' generator with the same options.
func (g Generator) upstream() crd.Generator {
	return crd.Generator{
		IgnoreUnexportedFields:     g.IgnoreUnexportedFields,
		AllowDangerousTypes:        g.AllowDangerousTypes,
		MaxDescLen:                 g.MaxDescLen,
		CRDVersions:                g.CRDVersions,
		GenerateEmbeddedObjectMeta: g.GenerateEmbeddedObjectMeta,
		HeaderFile:                 g.HeaderFile,
		Year:                       g.Year,
		DeprecatedV1beta1CompatibilityPreserveUnknownFields: g.DeprecatedV1beta1CompatibilityPreserveUnknownFields,
		OmitToolVersion: g.OmitToolVersion,
	}
}

// CheckFilter is controller-tools' filter for CRD types.
func (g Generator) CheckFilter() loader.NodeFilter { return g.upstream().CheckFilter() }

// RegisterMarkers registers controller-tools' CRD markers and ours.
func (g Generator) RegisterMarkers(into *ctmarkers.Registry) error {
	if err := g.upstream().RegisterMarkers(into); err != nil {
		return err
	}
	return markers.Register(into)
}

// Help describes the generator's options.
func (g Generator) Help() *ctmarkers.DefinitionHelp {
	h := crd.Generator{}.Help()
	h.Summary = "generates CustomResourceDefinition objects, with +immutable markers compiled in."
	h.FieldHelp["KubeVersion"] = ctmarkers.DetailedHelp{
		Summary: "is the oldest Kubernetes version (1.N) the CRDs must work on: a marker whose CEL rule needs a newer API server is an error there, with the reason; without it, a CRD whose rules need more than " + baselineFloor + " gets a note.",
	}
	h.FieldHelp["Immutability"] = ctmarkers.DetailedHelp{
		Summary: "selects how +immutable markers are written: cel (default) or extensions.",
		Details: "cel: x-kubernetes-validations transition rules that real API servers enforce.\n" +
			"extensions: the KEP's x-kubernetes-immutable / x-kubernetes-immutable-keys booleans, for tools and the immutable-gen runtime (kubectl apply rejects them).",
	}
	return h
}

func (g Generator) mode() (string, error) {
	switch g.Immutability {
	case "", ModeCEL:
		return ModeCEL, nil
	case ModeExtensions:
		return ModeExtensions, nil
	}
	return "", fmt.Errorf("crd:immutability=%s: unknown mode; use cel or extensions", g.Immutability)
}

// checkOptions rejects option values that would otherwise be ignored.
func (g Generator) checkOptions() error {
	if _, err := g.mode(); err != nil {
		return err
	}
	if g.KubeVersion != "" {
		if _, err := version.ParseGeneric(g.KubeVersion); err != nil {
			return fmt.Errorf("crd:kubeVersion=%s: want a version like 1.32", g.KubeVersion)
		}
	}
	return nil
}

// Generate generates the CRDs as controller-tools' generator does, runs
// the immutability pipeline on each, and writes the results through ctx.
// It writes nothing if any CRD has an error.
func (g Generator) Generate(ctx *genall.GenerationContext) error {
	if err := g.checkOptions(); err != nil {
		return err
	}
	mode, _ := g.mode()
	files, err := crdmodel.Parse(ctx, g.upstream())
	if err != nil {
		return err
	}
	diags := append(markers.Lint(ctx.Roots), otherKinds(files)...)
	out, ds, err := g.processAll(files, mode, cache.Open())
	if err != nil {
		return err
	}
	diags = append(diags, ds...).Sort()
	if err := diags.Report(g.report, "crd"); err != nil {
		return err
	}
	for i, f := range files {
		w, err := ctx.Open(nil, f.Path)
		if err != nil {
			return err
		}
		_, werr := w.Write(out[i])
		if err := errors.Join(werr, w.Close()); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}

// processAll runs process on every file. CRDs with markers are processed
// in parallel: they are independent, and the API server's validation of
// each (CEL compilation and cost estimation) dominates the pipeline's cost.
// CRDs without markers are only encoded, one after the other, as
// controller-gen does: encoding them in parallel raised the peak memory of
// a run (2.5 MB of 87 MB on Gateway API, median of 20) and saved no time.
// Results keep file order.
func (g Generator) processAll(files []crdmodel.File, mode string, c *cache.Cache) ([][]byte, diag.List, error) {
	out := make([][]byte, len(files))
	perFile := make([]diag.List, len(files))
	errs := make([]error, len(files))
	var marked []int
	for i, f := range files {
		if crdmodel.HasMarkers(f.CRD) {
			marked = append(marked, i)
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(marked)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				out[i], perFile[i], errs[i] = g.process(files[i], mode, c)
			}
		}()
	}
	for _, i := range marked {
		work <- i
	}
	close(work)
	for i := range files {
		if !slices.Contains(marked, i) {
			out[i], perFile[i], errs[i] = g.process(files[i], mode, c)
		}
	}
	wg.Wait()
	var diags diag.List
	for i, f := range files {
		if errs[i] != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.Path, errs[i])
		}
		diags = append(diags, perFile[i]...)
	}
	return out, diags, nil
}

// process runs the immutability pipeline on one CRD and returns the file to
// write. A CRD without markers is controller-gen's CRD: it is encoded
// exactly as controller-tools encodes it, with no further check — the API
// server's CRD validation (semantics 2.2 rule 7) runs on CRDs with markers,
// where the output differs from controller-gen's and the findings map back
// to the markers (docs/semantics.md). Its findings are kept in c.
func (g Generator) process(f crdmodel.File, mode string, c *cache.Cache) ([]byte, diag.List, error) {
	obj, j, err := f.Tree()
	if err != nil {
		return nil, nil, err
	}
	if !crdmodel.HasMarkers(f.CRD) {
		data, err := encode(f.Header, obj)
		return data, nil, err
	}
	models, diags, err := crdmodel.Build(f.CRD.Name, obj)
	if err != nil {
		return nil, nil, err
	}
	for v, root := range models {
		// Where the user cannot add a bound (docs/semantics.md).
		crdmodel.MarkExternal(f.Sources[v], f.CRD.Spec.Names.Kind, root)
	}
	conds, err := g.conditions(f.CRD, models, mode == ModeExtensions)
	if err != nil {
		return nil, nil, err
	}
	diags = append(diags, conds...)
	misplaced := diags.HasErrors()
	switch mode {
	case ModeExtensions:
		for _, name := range slices.Sorted(maps.Keys(models)) {
			schema.EmitExtensions(models[name])
			diags = append(diags, messageNotes(f.CRD.Name, name, models[name])...)
		}
	default:
		for _, name := range slices.Sorted(maps.Keys(models)) {
			diags = append(diags, g.lowerCEL(f.CRD.Name, name, models[name])...)
		}
	}
	diags = append(diags, g.kubeFloor(f.CRD.Name, models)...)
	if misplaced {
		// Nothing is written, and the API server would only repeat the
		// placement errors in its words (a rule on metadata, say).
		return nil, diags, nil
	}
	found, err := g.apiServerFindings(f.CRD, obj, j, mode, models, c)
	if err != nil {
		return nil, nil, err
	}
	diags = append(diags, found...)
	data, err := encode(f.Header, obj)
	return data, diags, err
}

// apiServerFindings is the API server's CRD validation of the CRD as
// written (obj, after the lowering), with the findings mapped back to the
// markers of models. They depend on the CRD as controller-tools generated
// it (j, its JSON, which holds the markers and their Go positions), on the
// mode, on the one option toTree applies after j (preserveUnknownFields)
// and on the binary — the models and the rules are computed from those — so
// they are kept in c: a CRD that did not change since the last run is not
// validated again, and the run reports the same findings. Anything else the
// findings come to depend on must join the key.
func (g Generator) apiServerFindings(crd *apiextv1.CustomResourceDefinition, obj map[string]any, j []byte, mode string, models map[string]*schema.Node, c *cache.Cache) (diag.List, error) {
	preserve := ""
	if p := g.DeprecatedV1beta1CompatibilityPreserveUnknownFields; p != nil {
		preserve = fmt.Sprint(*p)
	}
	key := c.Key([]byte("crdgen: API server findings on a CRD with markers"), []byte(mode), []byte(preserve), j, externalNodes(models))
	if data, ok := c.Get(key); ok {
		var ds diag.List
		if err := json.Unmarshal(data, &ds); err == nil {
			return ds, nil
		}
	}
	checked := crd
	if mode != ModeExtensions {
		// The API server must see the rules: check the tree as written.
		var err error
		if checked, err = fromTree(obj); err != nil {
			return nil, err
		}
	}
	if g.server == nil {
		return nil, errors.New("no API server CRD validation to run on a CRD with markers (crdgen.Generator.WithServer)")
	}
	ds, err := crdvalidation.Check(g.server, checked, models, diag.Error)
	if err != nil {
		return nil, fmt.Errorf("the API server's CRD validation: %w", err)
	}
	if data, err := json.Marshal(ds); err == nil {
		c.Put(key, data)
	}
	return ds, nil
}

// externalNodes lists the nodes of models declared outside the user's
// module (the bounds the findings may suggest depend on it), for the
// cache key.
func externalNodes(models map[string]*schema.Node) []byte {
	var b strings.Builder
	for _, v := range slices.Sorted(maps.Keys(models)) {
		models[v].Walk(func(n *schema.Node) {
			if n.External != "" {
				fmt.Fprintf(&b, "%s %s %s\n", v, n.Path(), n.External)
			}
		})
	}
	return []byte(b.String())
}

// The IDs of the crd generator's own findings (the placement and API
// server findings are validation's).
const (
	// IDInexpressible: a marker CEL cannot enforce exactly.
	IDInexpressible diag.ID = "IG031"
	// IDBlindSpot: a marker CEL enforces with one documented blind spot.
	IDBlindSpot diag.ID = "IG032"
	// IDKubeVersion: CEL rules that need a newer Kubernetes than kubeVersion.
	IDKubeVersion diag.ID = "IG033"
	// IDKubeFloor: without kubeVersion, the Kubernetes version a CRD's
	// rules need, when it is more than every CRD's rules need.
	IDKubeFloor diag.ID = "IG035"
)

// Checks describes the crd generator's own findings.
func Checks() []diag.Check {
	return []diag.Check{
		{ID: IDInexpressible, Severity: diag.Error, Title: "a marker the CEL lowering cannot enforce exactly (nothing weaker is emitted)"},
		{ID: IDBlindSpot, Severity: diag.Warning, Title: "a marker lowered to CEL with one blind spot (free-form content)"},
		{ID: IDKubeVersion, Severity: diag.Error, Title: "a marker whose CEL rule needs a newer Kubernetes than crd:kubeVersion (at the marker, with the reason)"},
		{ID: IDKubeFloor, Severity: diag.Note, Title: "without crd:kubeVersion, a CRD whose CEL rules need a newer Kubernetes than " + baselineFloor + " (once per CRD, at the first marker that needs it)"},
		{ID: IDCondition, Severity: diag.Error, Title: "an +immutable:when condition the API server's CEL compiler refuses (not CEL, not a bool, a field the schema does not have), at its line and column in the marker"},
		{ID: IDConditionUnguarded, Severity: diag.Error, Title: "an +immutable:when condition that reads an optional field without has(): an error on objects without the field, where the API server then refuses every change of the marked field"},
		{ID: IDConditionOutsideSubset, Severity: diag.Error, Title: "in the extensions output, an +immutable:when condition outside the subset of CEL the runtime evaluates, at the construct's column"},
		{ID: IDOtherKinds, Severity: diag.Note, Title: "a marker that reaches kinds declared in another package than its own (a shared type)"},
	}
}

// messageNotes says, once per +immutable:message, that the extensions
// output has no place for it: the runtime reports its own messages
// (docs/semantics.md, "+immutable:message").
func messageNotes(crd, version string, model *schema.Node) diag.List {
	var out diag.List
	seen := map[string]bool{}
	model.Walk(func(n *schema.Node) {
		for _, o := range n.Origins {
			if o.Message == "" || o.When != "" || seen[o.Pos.String()+o.Marker()] {
				continue
			}
			seen[o.Pos.String()+o.Marker()] = true
			out = append(out, diag.Diagnostic{
				ID:       markers.IDMessageUnused,
				Pos:      o.Pos,
				Severity: diag.Note,
				Marker:   o.Marker(),
				CRD:      crd,
				Version:  version,
				Path:     n.Path(),
				Message:  "its +immutable:message is used by the CEL rules only: the extensions have no place for it, and the immutable-gen runtime reports `field is immutable`",
			})
		}
	})
	return out
}

// lowerCEL emits the CEL rules for one version's model and reports what
// could not be expressed and what the target Kubernetes version lacks.
func (g Generator) lowerCEL(crd, version string, model *schema.Node) diag.List {
	return g.celReport(crd, version, model, schema.EmitCEL(model))
}

// celReport renders what a CEL lowering of one version's model could not
// express, its blind spots, and what the target Kubernetes version lacks.
func (g Generator) celReport(crd, version string, model *schema.Node, res schema.CELResult) diag.List {
	var out diag.List
	for _, x := range res.Inexpressible {
		out = append(out, diag.Diagnostic{
			ID:       IDInexpressible,
			Pos:      x.Origin.Pos,
			Severity: diag.Error,
			Marker:   x.Origin.Marker(),
			CRD:      crd,
			Version:  version,
			Path:     x.Node.Path(),
			Message:  "cannot be lowered to CEL exactly, and nothing weaker is emitted: " + x.Reason,
			Fix:      x.Fix,
		})
	}
	for _, x := range res.Limits {
		out = append(out, diag.Diagnostic{
			ID:       IDBlindSpot,
			Pos:      x.Origin.Pos,
			Severity: diag.Warning,
			Marker:   x.Origin.Marker(),
			CRD:      crd,
			Version:  version,
			Path:     x.Node.Path(),
			Message:  "lowered to CEL with one blind spot: " + x.Reason,
			Fix:      x.Fix,
		})
	}
	return out
}

// baselineFloor is the Kubernetes version every CRD with immutability
// rules needs (the rules' fieldPath and reason), documented once
// (docs/guide.md): the default note is only for a CRD whose rules need more.
const baselineFloor = "1.28"

// kubeFloor reports the Kubernetes version the CRD's rules need, at the
// markers that need it, with the reason (docs/semantics.md, "The
// Kubernetes floor"). Under crd:kubeVersion, every marker whose rule needs
// a newer version is an error, once per marker and need; without it, one
// note per CRD at the first marker of the rules that need the most, when
// that is more than the baseline.
func (g Generator) kubeFloor(crd string, models map[string]*schema.Node) diag.List {
	type at struct {
		node    *schema.Node
		version string
		need    schema.KubeNeed
		origin  schema.Origin
	}
	var needs []at
	for _, v := range slices.Sorted(maps.Keys(models)) {
		models[v].Walk(func(n *schema.Node) {
			for _, e := range n.Emitted {
				for _, o := range e.Origins {
					needs = append(needs, at{named(n, o), v, e.Needs, o})
				}
			}
		})
	}
	var out diag.List
	if g.KubeVersion != "" {
		seen := map[string]bool{}
		for _, x := range needs {
			key := x.origin.Pos.String() + x.origin.Marker() + x.need.Reason
			if !versionLess(g.KubeVersion, x.need.Version) || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, diag.Diagnostic{
				ID:       IDKubeVersion,
				Pos:      x.origin.Pos,
				Severity: diag.Error,
				Marker:   x.origin.Marker(),
				CRD:      crd,
				Version:  x.version,
				Path:     x.node.Path(),
				Message:  fmt.Sprintf("its CEL rule needs Kubernetes %s or later, but crd:kubeVersion=%s: %s", x.need.Version, g.KubeVersion, x.need.Reason),
				Fix:      x.need.Fix,
			})
		}
		return out
	}
	var top *at
	for i := range needs {
		if top == nil || needs[i].need.Newer(top.need) {
			top = &needs[i]
		}
	}
	if top == nil || !versionLess(baselineFloor, top.need.Version) {
		return nil
	}
	return diag.List{{
		ID:       IDKubeFloor,
		Pos:      top.origin.Pos,
		Severity: diag.Note,
		Marker:   top.origin.Marker(),
		CRD:      crd,
		Version:  top.version,
		Path:     top.node.Path(),
		Message:  fmt.Sprintf("the CRD's CEL rules need Kubernetes %s or later, for this marker first: %s", top.need.Version, top.need.Reason),
		Fix:      fmt.Sprintf("nothing to do if every cluster runs Kubernetes %s or later; else set crd:kubeVersion to the oldest, which makes every marker that needs more an error with its fix", top.need.Version),
	}}
}

// named is the node at or below n (where a rule sits) that the marker o
// names, for the path of a finding about o: a presence rule sits on the
// parent, an atomic list's rule on the list. n when none is found.
func named(n *schema.Node, o schema.Origin) *schema.Node {
	var found *schema.Node
	n.Walk(func(c *schema.Node) {
		if found == nil && slices.ContainsFunc(c.Origins, func(x schema.Origin) bool { return x.Pos == o.Pos && x.Marker() == o.Marker() }) {
			found = c
		}
	})
	if found == nil {
		return n
	}
	return found
}

// versionLess compares Kubernetes versions ("1.N", "v1.N.P"); an
// unparsable one is never less.
func versionLess(a, b string) bool {
	va, err := version.ParseGeneric(a)
	if err != nil {
		return false
	}
	vb, err := version.ParseGeneric(b)
	if err != nil {
		return false
	}
	return va.LessThan(vb)
}

// nested returns the value at keys in obj, or nil.
func nested(obj map[string]any, keys ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, keys...)
	return v
}
