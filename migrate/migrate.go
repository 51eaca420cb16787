// Package migrate rewrites the immutability rules an API's Go sources
// write by hand (+kubebuilder:validation:XValidation transition rules such
// as `self == oldSelf`, and optionally controller-tools' +k8s:immutable)
// into immutable-gen's markers, and proves the rewrite before writing it:
// the CRDs are generated before and after, in memory, and compared on the
// API server's own verdicts for random updates of every migrated field
// (package proof).
//
// Run plans and proves; Result.Write writes the files, all or nothing.
// docs/guide.md ("Migrating") describes the shapes it recognises and what
// it leaves as written.
package migrate

import (
	"errors"
	"fmt"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/migrate/proof"
	"github.com/immutable-gen/immutable-gen/output"
)

// What --k8s-immutable does with controller-tools' +k8s:immutable.
const (
	// K8sImmutableKeep leaves it as written (the default).
	K8sImmutableKeep = "keep"
	// K8sImmutableMarker turns it into +immutable: immutable-gen compiles
	// +k8s:immutable with validation-gen's meaning, which is +immutable's
	// (docs/semantics.md), so the verdicts do not change.
	K8sImmutableMarker = "immutable"
)

// What --validators says about the typed validators.
const (
	// ValidatorsAuto: used when a package of paths= holds the file the
	// validators generator writes (zz_generated.immutable.go).
	ValidatorsAuto = "auto"
	// ValidatorsYes: used (say so before generating them the first time).
	ValidatorsYes = "yes"
	// ValidatorsNo: not used.
	ValidatorsNo = "no"
)

// Options of a migration.
type Options struct {
	// Dir is the directory the packages are loaded from ("": the current
	// one); Paths are the package patterns (controller-gen's paths=).
	Dir   string
	Paths []string
	// CRD is the crd generator with the project's options.
	CRD       crdgen.Generator
	BuildTags []string
	// K8sImmutable is K8sImmutableKeep ("" too) or K8sImmutableMarker.
	K8sImmutable string
	// Validators says whether the packages use immutable-gen's typed
	// validators, which refuse +immutable:when: ValidatorsAuto ("" too)
	// when a package of paths= has zz_generated.immutable.go. Where they
	// are used, conditional rules stay as written.
	Validators string
	// Updates per CRD version in the differential (default 1000), and its
	// seed (default 1).
	Updates int
	Seed    uint64
}

// A Rule is one immutability rule found (or a +k8s:immutable).
type Rule struct {
	Pos token.Position
	// Marker is the marker comment as written.
	Marker string
	// On is the field (Type.Field) or type it is written on.
	On string
	// To says what it became ("" when left); Reason why it was left.
	To     string
	Reason string
}

// Migrated reports whether the rule was rewritten.
func (r Rule) Migrated() bool { return r.To != "" }

// A Result is a planned and proven migration.
type Result struct {
	Rules []Rule
	// Files are the rewritten Go files, by name; Diff their unified diff.
	Files map[string][]byte
	Diff  string
	// Proof is the differential of the CRDs before and after, over
	// Fields, the schema nodes the markers written land on.
	Proof  proof.Report
	Fields []proof.Field
	// Notes are the crd generator's warnings and notes on the migrated
	// sources that it did not report on the original ones.
	Notes diag.List
}

// Counts returns the number of rules found, migrated and left.
func (r *Result) Counts() (found, migrated, left int) {
	for _, x := range r.Rules {
		found++
		if x.Migrated() {
			migrated++
		} else {
			left++
		}
	}
	return
}

// Proven reports whether every difference the differential found closes a
// hole.
func (r *Result) Proven() bool {
	return r.Proof.Count(proof.NewRefusal) == 0 && r.Proof.Count(proof.NewAcceptance) == 0
}

// Writable reports whether Write may write: nothing got weaker (no new
// acceptance), and there is no new refusal unless acceptRefusals.
func (r *Result) Writable(acceptRefusals bool) bool {
	return r.Proof.Count(proof.NewAcceptance) == 0 && (acceptRefusals || r.Proof.Count(proof.NewRefusal) == 0)
}

// Write writes the rewritten files, all or nothing.
func (r *Result) Write() error {
	buf := &output.Buffer{}
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		w, err := buf.Rule(genall.OutputToDirectory("")).Open(nil, name)
		if err != nil {
			return err
		}
		w.Write(r.Files[name])
		if err := w.Close(); err != nil {
			return err
		}
	}
	return buf.Commit()
}

// Run finds the rules, plans the markers, generates the CRDs before and
// after, and runs the differential. It writes nothing. An error means the
// input cannot be migrated (packages that do not load, CRDs the generator
// refuses before the migration).
func Run(o Options) (*Result, error) {
	if o.K8sImmutable == "" {
		o.K8sImmutable = K8sImmutableKeep
	}
	if o.K8sImmutable != K8sImmutableKeep && o.K8sImmutable != K8sImmutableMarker {
		return nil, fmt.Errorf("--k8s-immutable=%s: want keep or immutable", o.K8sImmutable)
	}
	switch o.Validators {
	case "":
		o.Validators = ValidatorsAuto
	case ValidatorsAuto, ValidatorsYes, ValidatorsNo:
	default:
		return nil, fmt.Errorf("--validators=%s: want auto, yes or no", o.Validators)
	}
	before, err := o.generate(nil)
	if err != nil {
		return nil, err
	}
	if before.diags.HasErrors() {
		return nil, fmt.Errorf("the crd generator refuses the sources as they are:\n%s", render(before.diags, diag.Error))
	}
	sc, err := newScanner()
	if err != nil {
		return nil, err
	}
	for _, r := range before.roots {
		sc.scan(r)
	}
	if len(sc.errs) > 0 {
		return nil, errors.Join(sc.errs...)
	}
	p := &planner{sc: sc, k8sImmutable: o.K8sImmutable, noWhen: o.Validators == ValidatorsYes || (o.Validators == ValidatorsAuto && usesValidators(before.roots))}
	if err := p.probe(o); err != nil {
		return nil, err
	}
	p.init()
	res := &Result{}
	var after *generation
	var decisions []*decision
	for attempt := 0; ; attempt++ {
		decisions = p.plan()
		fileEdits := rewrite(decisions)
		res.Files, res.Diff = map[string][]byte{}, ""
		inserted := map[string]map[int]*decision{} // file → new line → decision
		for _, name := range slices.Sorted(maps.Keys(fileEdits)) {
			src, err := sc.source(name)
			if err != nil {
				return nil, err
			}
			ops := fileEdits[name].apply(string(src))
			res.Files[name] = []byte(newText(ops))
			res.Diff += unified(o.rel(name), ops)
			inserted[name] = insertedLines(ops)
		}
		if len(res.Files) == 0 {
			break
		}
		after, err = o.generate(res.Files)
		if err != nil {
			return nil, err
		}
		if !after.diags.HasErrors() {
			break
		}
		// Markers the generator refuses (a bound the lowering needs, a
		// placement rule): their rules stay, and the rest is tried again.
		refused := false
		var others diag.List
		for _, d := range after.diags {
			if d.Severity != diag.Error {
				continue
			}
			if dec := inserted[d.Pos.Filename][d.Pos.Line]; dec != nil && attempt < 8 {
				for _, c := range dec.claims {
					if p.left[c.site] == "" {
						p.left[c.site] = "the marker it would become is refused: " + d.Message
						refused = true
					}
				}
				continue
			}
			others = append(others, d)
		}
		if !refused || len(others) > 0 {
			return nil, fmt.Errorf("the crd generator refuses the migrated sources:\n%s", render(after.diags, diag.Error))
		}
	}
	res.Rules = p.rules(decisions)
	if after == nil {
		return res, nil
	}
	res.Notes = newNotes(before.diags, after.diags)
	var fields []proof.Field
	for _, d := range decisions {
		for _, pl := range d.places {
			fields = append(fields, proof.Field{CRD: pl.crd, Version: pl.version, Path: pl.path, When: d.when})
		}
	}
	res.Fields = fields
	res.Proof, err = proof.Run(before.crds, after.crds, fields, proof.Options{Updates: o.Updates, Seed: o.Seed})
	if err != nil {
		return nil, fmt.Errorf("the differential: %w", err)
	}
	return res, nil
}

// usesValidators reports whether a package holds the typed validators'
// generated file.
func usesValidators(pkgs []*loader.Package) bool {
	for _, p := range pkgs {
		for _, f := range append(slices.Clip(p.GoFiles), p.OtherFiles...) {
			if filepath.Base(f) == validatorsFile {
				return true
			}
		}
	}
	return false
}

// insertedLines maps the lines added (numbered in the new file) to the
// decision whose marker they hold.
func insertedLines(ops []op) map[int]*decision {
	out := map[int]*decision{}
	for _, o := range ops {
		if o.kind == '+' && o.owner != nil {
			out[o.newLine] = o.owner
		}
	}
	return out
}

// probe generates the CRDs with a marking rule beside each site and finds
// where each lands.
func (p *planner) probe(o Options) error {
	files := map[string]*edits{}
	for i, s := range p.sc.sites {
		e := files[s.pos.Filename]
		if e == nil {
			e = newEdits()
			files[s.pos.Filename] = e
		}
		e.before[s.pos.Line+1] = append(e.before[s.pos.Line+1], added{text: s.indent + "// " + probeLine(i)})
	}
	srcs := map[string][]byte{}
	for name, e := range files {
		src, err := p.sc.source(name)
		if err != nil {
			return err
		}
		srcs[name] = []byte(newText(e.apply(string(src))))
	}
	g, err := o.generate(srcs)
	if err != nil {
		return err
	}
	if g.diags.HasErrors() {
		return fmt.Errorf("the crd generator refuses the sources with probe rules:\n%s", render(g.diags, diag.Error))
	}
	found, err := findProbes(g.crds)
	if err != nil {
		return err
	}
	p.probes = map[*site][]place{}
	for i, s := range p.sc.sites {
		p.probes[s] = found[probeMessage(i)]
	}
	return nil
}

// rules lists what became of every immutability rule and +k8s:immutable.
func (p *planner) rules(decisions []*decision) []Rule {
	to := map[*site]string{}
	for _, d := range decisions {
		what := d.marker() + " on " + d.target.String()
		if !d.add {
			what = "nothing: " + d.target.String() + " already has " + d.marker()
		} else {
			if d.when != "" {
				what += " (+immutable:when=" + quoteWhen(d.when) + ")"
			}
			if d.message != "" {
				what += " (+immutable:message)"
			}
		}
		for _, k := range d.keyFields {
			what += ", +immutable on its key " + k.String()
		}
		for _, c := range d.claims {
			if to[c.site] == "" {
				to[c.site] = what
			} else if !strings.Contains(to[c.site], what) {
				to[c.site] += "; " + what
			}
			if len(c.site.rest) > 0 {
				to[c.site] = strings.TrimSuffix(to[c.site], " (rest kept)") + " (rest kept)"
			}
		}
	}
	var out []Rule
	for _, s := range p.sc.sites {
		if p.other[s] {
			continue
		}
		r := Rule{Pos: s.pos, Marker: s.text, On: s.decl.String(), To: to[s], Reason: p.left[s]}
		if r.To != "" {
			r.Reason = ""
		} else if r.Reason == "" {
			r.Reason = "not migrated"
		}
		out = append(out, r)
	}
	return out
}

// newNotes are the diagnostics of after that before did not have.
func newNotes(before, after diag.List) diag.List {
	seen := map[string]bool{}
	for _, d := range before {
		seen[string(d.ID)+d.Message] = true
	}
	var out diag.List
	for _, d := range after {
		if !seen[string(d.ID)+d.Message] {
			out = append(out, d)
		}
	}
	return out
}

func render(ds diag.List, min diag.Severity) string {
	var lines []string
	for _, d := range ds {
		if d.Severity >= min {
			lines = append(lines, d.String())
		}
	}
	return strings.Join(lines, "\n")
}

// rel makes name relative to the run's directory, for the report.
func (o Options) rel(name string) string {
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if r, err := filepath.Rel(dir, name); err == nil {
		return r
	}
	return name
}
