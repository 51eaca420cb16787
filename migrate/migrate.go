// Package migrate rewrites the immutability rules an API's Go sources
// write by hand (+kubebuilder:validation:XValidation transition rules such
// as `self == oldSelf`, and optionally controller-tools' +k8s:immutable)
// into immutable-gen's markers, and proves each rewrite before writing it:
// the CRDs are generated before and after, in memory, and compared on the
// API server's own verdicts for the updates of every migrated field that
// its constraint and the schema name, then random ones (package proof). A
// rewrite with a difference that closes no hole is left as written, with
// the reason, and the others are planned and proven again.
//
// Run plans and proves; Result.Write writes the files, all or nothing.
// docs/guide.md ("Migrating") describes the shapes it recognises and what
// it leaves as written.
package migrate

import (
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
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
	// validators: ValidatorsAuto ("" too) when a package of paths= has
	// zz_generated.immutable.go. Where they are used, a conditional rule
	// becomes +immutable:when only if the typed validators compile its
	// condition (else it stays as written, with their reason).
	Validators string
	// typedWhen is set by Run where the typed validators are used.
	typedWhen bool
	// Random updates per CRD version in the differential (default 1000),
	// after the targeted ones, and their seed (default 1). The targeted
	// updates decide what is written; the seed changes nothing but the
	// random updates.
	Updates int
	Seed    uint64
	// AcceptRefusals keeps the rewrites whose only differences are new
	// refusals (--accept-refusals); they are not proven.
	AcceptRefusals bool

	// mutate changes the planned decisions, and mutateWhen the conditions
	// written (not the ones planned), in tests that check that the
	// differential catches a wrong one.
	mutate     func(*decision)
	mutateWhen func(string) string
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
	// Exact is set for a rewrite with the verdicts of the rule on every
	// update of the differential; Holes counts the updates on which the
	// rewrite refuses a change the rule let through.
	Exact bool
	Holes int
	// Refusals counts the updates the rule allows that its rewrite
	// refuses, changing nothing the rule calls immutable: kept only with
	// Options.AcceptRefusals.
	Refusals int
	// site is the rule's.
	site *site
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
	// Missing are the differences that only random updates found, in any
	// round of the proof: targeted cases missing (a bug of the targeted
	// updates). A rewrite they are about is left as written.
	Missing []proof.Difference
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
	// With typed validators, each +immutable:when written must compile
	// into them too: the validators generator runs on the migrated sources,
	// and a condition it refuses (IG047, IG048) leaves its rule as written.
	o.typedWhen = o.Validators == ValidatorsYes || (o.Validators == ValidatorsAuto && usesValidators(before.roots))
	p := &planner{sc: sc, k8sImmutable: o.K8sImmutable}
	if err := p.probe(o); err != nil {
		return nil, err
	}
	if p.fixed, err = fixedPlaces(before.crds); err != nil {
		return nil, err
	}
	p.init()
	res := &Result{}
	for {
		decisions, after, err := p.build(o, res)
		if err != nil {
			return nil, err
		}
		res.Rules = p.rules(decisions)
		if after == nil {
			res.Proof, res.Fields = proof.Report{}, nil
			return res, nil
		}
		res.Notes = newNotes(before.diags, after.diags)
		var owners []*decision
		res.Fields = nil
		for _, d := range decisions {
			// The other uses of a shared type it reaches too, proved
			// unchanged with the rest.
			for _, pl := range appendPlaces(slices.Clip(d.places), d.reaches...) {
				res.Fields = append(res.Fields, proof.Field{CRD: pl.crd, Version: pl.version, Path: pl.path, When: d.when})
				owners = append(owners, d)
			}
		}
		res.Proof, err = proof.Run(before.crds, after.crds, res.Fields, proof.Options{Updates: o.Updates, Seed: o.Seed})
		if err != nil {
			return nil, fmt.Errorf("the differential: %w", err)
		}
		if !p.leaveUnproven(res, owners, o.AcceptRefusals) {
			p.grade(res, decisions, owners)
			return res, nil
		}
	}
}

// build plans the markers, rewrites the sources and generates the CRDs
// after. A marker the generator refuses (a bound the lowering needs, a
// placement rule) puts its rules back as written, and the rest is planned
// again. after is nil when nothing is rewritten.
func (p *planner) build(o Options, res *Result) ([]*decision, *generation, error) {
	for attempt := 0; ; attempt++ {
		decisions := p.plan()
		if o.mutate != nil {
			for _, d := range decisions {
				o.mutate(d)
			}
		}
		fileEdits := rewrite(decisions, o.mutateWhen)
		res.Files, res.Diff = map[string][]byte{}, ""
		inserted := map[string]map[int]*decision{} // file → new line → decision
		for _, name := range slices.Sorted(maps.Keys(fileEdits)) {
			src, err := p.sc.source(name)
			if err != nil {
				return nil, nil, err
			}
			ops := fileEdits[name].apply(string(src))
			res.Files[name] = []byte(newText(ops))
			res.Diff += unified(o.rel(name), ops)
			inserted[name] = insertedLines(ops)
		}
		if len(res.Files) == 0 {
			return decisions, nil, nil
		}
		after, err := o.generate(res.Files)
		if err != nil {
			// Markers the markers package refuses while generating (a
			// +k8s:update form where validation-gen has none): their
			// rules stay, and the rest is tried again.
			if attempt < 8 && p.leaveRefused(err, inserted) {
				continue
			}
			return nil, nil, err
		}
		if !after.diags.HasErrors() {
			return decisions, after, nil
		}
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
			return nil, nil, fmt.Errorf("the crd generator refuses the migrated sources:\n%s", render(after.diags, diag.Error))
		}
	}
}

// positioned matches a line of a generation error: file:line:col: message.
var positioned = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(.+):(\d+):\d+: (.+)$`) })

// leaveRefused leaves as written the rules whose markers err names, at
// the lines the rewrite inserted, and reports whether every positioned
// line of err is such a marker (then the plan is tried again).
func (p *planner) leaveRefused(err error, inserted map[string]map[int]*decision) bool {
	found := false
	for _, l := range strings.Split(err.Error(), "\n") {
		m := positioned().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		dec := inserted[m[1]][line]
		if dec == nil {
			return false
		}
		for _, c := range dec.claims {
			if p.left[c.site] == "" {
				p.left[c.site] = "the marker it would become is refused: " + m[3]
				found = true
			}
		}
	}
	return found
}

// leaveUnproven leaves as written the rules of every rewrite a difference
// that closes no hole is about (new refusals too unless acceptRefusals),
// with the difference as the reason, and reports whether it left any. The
// targeted updates decide: the differences of random updates count only
// when the targeted ones found none, and are then targeted cases missing
// (res.Missing).
func (p *planner) leaveUnproven(res *Result, owners []*decision, acceptRefusals bool) bool {
	var bad []proof.Difference
	for _, c := range res.Proof.CRDs {
		for _, d := range c.Differences {
			if d.Class == proof.NewAcceptance || (d.Class == proof.NewRefusal && !acceptRefusals) {
				bad = append(bad, d)
			}
		}
	}
	targeted := slices.ContainsFunc(bad, func(d proof.Difference) bool { return !d.Missing() })
	left := false
	for _, d := range bad {
		if targeted == d.Missing() {
			continue
		}
		if d.Missing() {
			res.Missing = append(res.Missing, d)
		}
		reason := unproven(d)
		for _, dec := range p.blame(d, owners) {
			for _, c := range dec.claims {
				if p.left[c.site] == "" {
					p.left[c.site] = reason
					left = true
				}
			}
		}
	}
	return left
}

// blame returns the rewrites a difference is about: for a new acceptance,
// the rewrites whose hand-written rules refused the update (their message,
// or their text, in an error the original gave at their node or below);
// otherwise, or when no such rule is found, the owners of the fields it
// names.
func (p *planner) blame(d proof.Difference, owners []*decision) []*decision {
	var out []*decision
	if d.Class == proof.NewAcceptance {
		for _, dec := range owners {
			if !slices.Contains(out, dec) && slices.ContainsFunc(dec.claims, func(c claim) bool { return p.refused(c.site, d.Errors) }) {
				out = append(out, dec)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, i := range d.Fields {
		if i < len(owners) && !slices.Contains(out, owners[i]) {
			out = append(out, owners[i])
		}
	}
	return out
}

// refused reports whether one of errs (field.Error lines) is the error of
// site's rule: its message (or its text) at the node the rule is on, or
// below it (a fieldPath).
func (p *planner) refused(s *site, errs []string) bool {
	r := s.rule
	if r == nil {
		return false
	}
	for _, e := range errs {
		if !(r.Message != "" && strings.Contains(e, r.Message)) && !strings.Contains(e, r.Rule) {
			continue
		}
		at, _, _ := strings.Cut(e, ": ")
		at = proof.StripIndexes(at)
		for _, pl := range p.probes[s] {
			var steps []string
			for _, x := range pl.path {
				if x != "[]" && x != "{}" {
					steps = append(steps, x)
				}
			}
			node := strings.Join(steps, ".")
			if node == "" || at == node || strings.HasPrefix(at, node+".") || at == "<nil>" {
				return true
			}
		}
	}
	return false
}

// unproven is the reason a rewrite is left after the differential found d.
func unproven(d proof.Difference) string {
	what := "refuse an update the rule allows that changes no field the rule calls immutable"
	if d.Class == proof.NewAcceptance {
		what = "allow an update the rule refuses"
	}
	how := "the update " + d.Update
	if d.Missing() {
		how = "a random update only (a targeted case is missing: a bug of immutable-gen)"
	}
	return fmt.Sprintf("not proven (%s at %s): the marker would %s, on %s: old %s, new %s", d.Class, d.Field, what, how, js(d.Old), js(d.New))
}

// grade marks each migrated rule exact, or counts the holes its rewrite
// closes.
func (p *planner) grade(res *Result, decisions, owners []*decision) {
	holes, refusals := map[*decision]int{}, map[*decision]int{}
	differs := map[*decision]bool{}
	for _, c := range res.Proof.CRDs {
		for _, d := range c.Differences {
			for _, dec := range p.blame(d, owners) {
				differs[dec] = true
				switch d.Class {
				case proof.ClosesHole:
					holes[dec] += d.Count
				case proof.NewRefusal:
					refusals[dec] += d.Count
				}
			}
		}
	}
	bySite := map[*site][]*decision{}
	for _, d := range decisions {
		for _, c := range d.claims {
			bySite[c.site] = append(bySite[c.site], d)
		}
	}
	for i, r := range res.Rules {
		if !r.Migrated() {
			continue
		}
		exact := true
		for _, d := range bySite[r.site] {
			exact = exact && !differs[d]
			res.Rules[i].Holes += holes[d]
			res.Rules[i].Refusals += refusals[d]
		}
		res.Rules[i].Exact = exact
	}
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
// decision whose marker they hold, and the declaration below them too
// (errors about a field are reported at its declaration).
func insertedLines(ops []op) map[int]*decision {
	out := map[int]*decision{}
	for i, o := range ops {
		if o.kind != '+' || o.owner == nil {
			continue
		}
		out[o.newLine] = o.owner
		for _, n := range ops[i+1:] {
			if n.kind == '-' || strings.HasPrefix(strings.TrimSpace(n.text), "//") {
				continue
			}
			if out[n.newLine] == nil {
				out[n.newLine] = o.owner
			}
			break
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
		e.before[s.pos.Line+1] = append(e.before[s.pos.Line+1], added{text: s.indent + "// " + probeLine(probeMessage(i))})
	}
	shared := p.sharedFields()
	for i, d := range shared {
		e := files[d.file]
		if e == nil {
			e = newEdits()
			files[d.file] = e
		}
		e.before[d.line] = append(e.before[d.line], added{text: d.indent + "// " + probeLine(useProbeMessage(i))})
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
	p.usePlaces = map[*types.Var][]place{}
	for i, d := range shared {
		p.usePlaces[d.field] = found[useProbeMessage(i)]
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
			if d.ignoreOrder {
				what += " (+" + markers.IgnoreOrderName + ")"
			}
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
		r := Rule{Pos: s.pos, Marker: s.text, On: s.decl.String(), To: to[s], Reason: p.left[s], site: s}
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
