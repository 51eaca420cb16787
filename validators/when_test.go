package validators_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/controller-tools/pkg/deepcopy"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/internal/proofsize"
	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	v1 "github.com/immutable-gen/immutable-gen/testdata/apis/validators-when/v1"
	"github.com/immutable-gen/immutable-gen/validators"
)

// The typed validators' conditions (+immutable:when) against the API
// server: the test API testdata/apis/validators-when holds, beside its
// hand-written conditional fields (Kueue's, JobSet's), one conditional
// field per condition of conditions.go, drawn from a grammar of the subset
// over the API's fields (seed whenSeed) and taken from every condition the
// repository's testdata, examples and docs write; TestWhenAPIUpToDate
// writes it (-update) keeping the conditions the crd generator takes (the
// API server's CEL compiler, and its guard analysis) and lists those the
// typed validators refuse. TestDifferentialWhen then compares, on random
// updates of random objects, the API server's CEL validator running the
// CRD the crd generator writes (CEL mode) with the generated typed
// validator: the same verdict and the same field paths on every update.

var (
	whenPairs = flag.Int("when.pairs", 0, "random updates of TestDifferentialWhen (0: 400 with IMMUTABLE_GEN_PROOFS=full, else 80)")
	whenSeed  = flag.Uint64("when.seed", 0, "seed of TestDifferentialWhen's updates (0: a new one, logged)")
)

// condSeed and condCount draw the conditions of conditions.go.
const (
	condSeed  = 33
	condCount = 90
)

const whenDir = "testdata/apis/validators-when/v1"

// wgen draws conditions over the test API's fields, each optional field
// read behind has() (the crd generator refuses unguarded reads, IG046);
// spec.name is always present, spec.mode is required but absent when
// empty: its reads are the errors the conditions meet, with list indexes
// out of bounds and absent map keys.
type wgen struct{ r *rand.Rand }

func (g *wgen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *wgen) root() string             { return g.pick("self", "oldSelf") }
func (g *wgen) strLit() string           { return "'" + g.pick("", "a", "b", "c", "ab") + "'" }
func (g *wgen) intLit() string           { return g.pick("-1", "0", "1", "2", "3") }
func (g *wgen) relop() string            { return g.pick("==", "!=", "<", "<=", ">", ">=") }

// guarded returns a read of the optional field path (from the root) behind
// the has() of every optional object on the way: "G && R.x", the guard
// and the read.
func (g *wgen) guarded(r, path string) (string, string) {
	parts := strings.Split(path, ".")
	var guards []string
	for i := range parts {
		p := r + "." + strings.Join(parts[:i+1], ".")
		if parts[0] == "spec" && i == 0 {
			continue // spec is required
		}
		guards = append(guards, "has("+p+")")
	}
	return strings.Join(guards, " && "), r + "." + path
}

var (
	wBools   = []string{"spec.locked", "spec.suspend", "spec.paused", "spec.topology.flag", "status.ready"}
	wInts    = []string{"spec.size", "spec.replicas", "status.observed", "spec.topology.inner.n"}
	wStrings = []string{"spec.note", "spec.queue", "status.phase", "spec.topology.inner.value"}
)

// atom is a guarded read of a field of type kind ("" guard when none).
func (g *wgen) atom(kind string) (string, string) {
	r := g.root()
	switch kind {
	case "bool":
		return g.guarded(r, g.pick(wBools...))
	case "int":
		switch g.r.IntN(6) {
		case 0:
			return "", g.intLit()
		case 1:
			return "", "size(" + r + ".spec.name)"
		case 2:
			return "", r + ".spec.mode.size()"
		case 3:
			gd, x := g.guarded(r, g.pick("spec.items", "spec.tags", "spec.labels", "spec.ports"))
			return gd, "size(" + x + ")"
		}
		return g.guarded(r, g.pick(wInts...))
	}
	switch g.r.IntN(5) {
	case 0, 1:
		return "", g.strLit()
	case 2:
		return "", r + "." + g.pick("spec.name", "spec.mode", "metadata.name")
	}
	return g.guarded(r, g.pick(wStrings...))
}

func and(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " && ")
}

// boolean draws a condition of depth at most d.
func (g *wgen) boolean(d int) string {
	n := 18
	if d <= 0 {
		n = 11
	}
	r := g.root()
	switch g.r.IntN(n) {
	case 0:
		gd, x := g.guarded(r, g.pick(append(append(slices.Clone(wBools), wInts...), wStrings...)...))
		if i := strings.LastIndex(gd, " && "); i >= 0 {
			return gd[:i] + " && has(" + x + ")"
		}
		return "has(" + x + ")"
	case 1:
		return and(g.atom("bool"))
	case 2:
		g1, a := g.atom("int")
		g2, b := g.atom("int")
		return and(g1, g2, a+" "+g.relop()+" "+b)
	case 3:
		g1, a := g.atom("string")
		g2, b := g.atom("string")
		return and(g1, g2, a+" "+g.relop()+" "+b)
	case 4:
		g1, a := g.atom("int")
		return and(g1, a+" "+g.relop()+" "+g.pick("0.5", "1.0", "-2.5", "2.0"))
	case 5:
		g1, a := g.atom("string")
		switch g.r.IntN(3) {
		case 0:
			gd, l := g.guarded(r, "spec.tags")
			return and(g1, gd, a+" in "+l)
		case 1:
			gd, l := g.guarded(r, "spec.labels")
			return and(g1, gd, a+" in "+l)
		}
		return and(g1, a+" in ["+g.strLit()+", "+g.strLit()+"]")
	case 6:
		g1, a := g.atom("int")
		if g.r.IntN(2) == 0 {
			return and(g1, a+" in [1, 2, "+g.intLit()+"]")
		}
		gd, l := g.guarded(r, "spec.items")
		return and(g1, gd, a+" in "+l)
	case 7:
		g1, a := g.atom("string")
		g2, b := g.atom("string")
		return and(g1, g2, a+"."+g.pick("startsWith", "endsWith", "contains")+"("+b+")")
	case 8:
		gd, l := g.guarded(r, "spec.items")
		return and(gd, l+"["+g.pick("0", "1", "2")+"] "+g.relop()+" "+g.intLit())
	case 9:
		gd, m := g.guarded(r, g.pick("spec.labels", "spec.counts"))
		if strings.HasSuffix(m, "labels") {
			return and(gd, m+"["+g.strLit()+"] == "+g.strLit())
		}
		return and(gd, m+"["+g.strLit()+"] "+g.relop()+" "+g.intLit())
	case 10:
		return g.macro(d)
	case 11:
		return "!(" + g.boolean(d-1) + ")"
	case 12, 13:
		return "(" + g.boolean(d-1) + ") " + g.pick("&&", "||") + " (" + g.boolean(d-1) + ")"
	case 14:
		return "(" + g.boolean(d-1) + ") ? (" + g.boolean(d-1) + ") : (" + g.boolean(d-1) + ")"
	case 16:
		switch g.r.IntN(4) {
		case 0:
			g1, a := g.guarded(g.root(), g.pick("spec.started", "spec.deadline"))
			g2, b := g.guarded(g.root(), g.pick("spec.started", "spec.deadline"))
			return and(g1, g2, a+" "+g.relop()+" "+b)
		case 1:
			g1, a := g.guarded(g.root(), "spec.timeout")
			return and(g1, a+" "+g.pick("==", "!=", "<")+" "+g.pick("'1s'", "'0s'", "'2s'"))
		case 2:
			p := g.pick("spec.tags", "spec.items", "spec.labels", "spec.counts")
			g1, a := g.guarded("self", p)
			g2, b := g.guarded("oldSelf", p)
			return and(g1, g2, a+" "+g.pick("==", "!=")+" "+b)
		}
		if g.r.IntN(2) == 0 {
			g1, a := g.guarded(g.root(), "spec.started")
			return and(g1, a+" in ["+a+"]")
		}
		switch g.r.IntN(3) {
		case 0:
			g1, a := g.guarded("self", "spec.port")
			g2, b := g.guarded("oldSelf", "spec.port")
			return and(g1, g2, a+" "+g.pick("==", "!=")+" "+b)
		case 1:
			g1, a := g.guarded(g.root(), "spec.port")
			return and(g1, a+" in "+g.pick("[0, 1]", "['1', 'a']"))
		}
		g1, a := g.guarded(g.root(), "spec.port")
		return and(g1, a+" "+g.pick("==", "!=")+" "+g.pick("0", "1", "1.0", "''", "'a'", "'1'"))
	case 15:
		g1, a := g.atom("int")
		return and(g1, "(("+g.boolean(d-1)+") ? "+g.intLit()+" : "+g.intLit()+") "+g.relop()+" "+a)
	}
	return g.pick("true", "false")
}

func (g *wgen) macro(d int) string {
	m := g.pick("exists", "all", "exists_one")
	r := g.root()
	switch g.r.IntN(5) {
	case 0:
		gd, l := g.guarded(r, "spec.ports")
		return and(gd, fmt.Sprintf("%s.%s(p, p.name == %s || has(p.port) && p.port %s %s)", l, m, g.strLit(), g.relop(), g.intLit()))
	case 1:
		gd, l := g.guarded(r, "status.conditions")
		return and(gd, fmt.Sprintf("%s.%s(c, c.type == %s && c.status == %s)", l, m, g.pick("'QuotaReserved'", "'Admitted'", "'a'"), g.pick("'True'", "'False'")))
	case 2:
		gd, l := g.guarded(r, "spec.labels")
		return and(gd, fmt.Sprintf("%s.%s(k, k.startsWith(%s) || %s[k] == %s)", l, m, g.strLit(), l, g.strLit()))
	case 3:
		gd, l := g.guarded(r, "spec.tags")
		return and(gd, fmt.Sprintf("%s.%s(t, t.size() < %s)", l, m, g.intLit()))
	}
	gd, l := g.guarded(r, "spec.items")
	return and(gd, fmt.Sprintf("%s.%s(i, i > %s || (%s))", l, m, g.intLit(), g.boolean(d-1)))
}

// whenMarker finds the conditions the repository writes.
var whenMarker = regexp.MustCompile("\\+immutable:when=(\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`)")

// corpus returns every condition in the repository's testdata, examples
// and docs, but the test API's own.
func corpus(t *testing.T) []string {
	seen := map[string]bool{}
	for _, dir := range []string{"testdata", "examples", "docs"} {
		err := filepath.WalkDir(filepath.Join(moduleRoot(t), dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(filepath.ToSlash(path), "validators-when") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range whenMarker.FindAllStringSubmatch(string(b), -1) {
				cond := m[1]
				if cond[0] == '`' {
					cond = cond[1 : len(cond)-1]
				} else if cond, err = strconv.Unquote(cond); err != nil {
					continue
				}
				if !strings.Contains(cond, "\n") {
					seen[cond] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for c := range seen {
			if !yield(c) {
				return
			}
		}
	})
}

// fieldForms are the conditional fields' Go types and markers, in turn.
var fieldForms = []struct{ typ, marker string }{
	{"*string", "+immutable"},
	{"int32", "+immutable=once"},
	{"[]string", "+immutable"},
	{"map[string]string", "+immutable=keys"},
	{"*Inner", "+immutable"},
}

// writeConditions writes conditions.go with one field per condition and
// returns the line of each condition's marker.
func writeConditions(t *testing.T, conds []string) map[int]int {
	var b bytes.Buffer
	b.WriteString("package v1\n\n// Code written by TestWhenAPIUpToDate (validators/when_test.go, -update): one\n// conditional field per condition, drawn from the subset's grammar or\n// taken from the repository's corpus.\n\n// Guarded holds the conditional fields of the differential.\ntype Guarded struct {\n")
	for i, c := range conds {
		f := fieldForms[i%len(fieldForms)]
		fmt.Fprintf(&b, "\t// %s\n\t// +immutable:message=\"c%d\"\n", f.marker, i)
		fmt.Fprintf(&b, "\t// +immutable:when=%s\n", strconv.Quote(c))
		fmt.Fprintf(&b, "\t// +optional\n\tC%d %s `json:\"c%d,omitempty\"`\n", i, f.typ, i)
	}
	b.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(moduleRoot(t), whenDir, "conditions.go"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := map[int]int{}
	for n, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "+immutable:when=") {
			lines[n+1] = len(lines)
		}
	}
	return lines
}

// TestWhenAPIUpToDate regenerates the test API's conditions (-update) and
// its generated files, and compares them with the committed ones.
func TestWhenAPIUpToDate(t *testing.T) {
	if golden.Updating() {
		g := &wgen{r: rand.New(rand.NewPCG(condSeed, 0))}
		var conds []string
		for range condCount {
			conds = append(conds, g.boolean(2))
		}
		conds = append(conds, corpus(t)...)
		refusedBy := map[string][]string{}
		for round := 0; ; round++ {
			if round > 8 {
				t.Fatal("the conditions do not settle")
			}
			lines := writeConditions(t, conds)
			drop := map[int]bool{}
			for _, res := range []result{run(t, crdgen.Generator{}, "./"+whenDir+"/..."), run(t, validators.Generator{}, "./"+whenDir+"/...")} {
				for _, d := range res.diags {
					if d.Severity != diag.Error {
						continue
					}
					i, ok := lines[d.Pos.Line]
					if !ok || !strings.HasSuffix(d.Pos.Filename, "conditions.go") {
						t.Fatalf("an error outside the drawn conditions: %s", d)
					}
					drop[i] = true
					refusedBy[string(d.ID)] = append(refusedBy[string(d.ID)], conds[i]+": "+d.Message)
				}
			}
			if len(drop) == 0 {
				break
			}
			var kept []string
			for i, c := range conds {
				if !drop[i] {
					kept = append(kept, c)
				}
			}
			conds = kept
		}
		for _, id := range slices.Sorted(func(yield func(string) bool) {
			for k := range refusedBy {
				if !yield(k) {
					return
				}
			}
		}) {
			t.Logf("%s: %d conditions dropped", id, len(refusedBy[id]))
			for _, r := range refusedBy[id] {
				t.Logf("  %s", r)
			}
		}
		t.Logf("%d conditions kept", len(conds))
	}
	for _, gen := range []struct {
		name string
		res  result
	}{
		{"zz_generated.deepcopy.go", run(t, deepcopy.Generator{}, "./"+whenDir+"/...")},
		{validators.FileName, run(t, validators.Generator{}, "./"+whenDir+"/...")},
	} {
		if gen.res.err != nil || gen.res.diags.HasErrors() {
			t.Fatalf("%s: %v %s", gen.name, gen.res.err, render(t, gen.res.diags))
		}
		data := gen.res.files[whenDir+"/"+gen.name]
		dst := filepath.Join(moduleRoot(t), whenDir, gen.name)
		if golden.Updating() {
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(committed, data) {
			t.Errorf("%s is not what the generators write: run go test ./validators -run TestWhenAPIUpToDate -update and review the diff", dst)
		}
	}
}

var (
	whenCELOnce sync.Once
	whenCELVal  *cel.Validator
	whenCELSS   *structuralschema.Structural
	whenCELErr  error
)

// apiServerCEL is the API server's CEL validator of the Gadget CRD the crd
// generator writes (CEL mode).
func apiServerCEL(t testing.TB) (*cel.Validator, *structuralschema.Structural) {
	whenCELOnce.Do(func() {
		res := run(t, crdgen.Generator{}, "./"+whenDir+"/...")
		if res.err != nil || res.diags.HasErrors() {
			whenCELErr = fmt.Errorf("crd generator: %v %s", res.err, res.diags)
			return
		}
		for _, data := range res.files {
			var crd apiextv1.CustomResourceDefinition
			if err := yaml.Unmarshal(data, &crd); err != nil {
				whenCELErr = err
				return
			}
			var internal apiextensions.JSONSchemaProps
			if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
				whenCELErr = err
				return
			}
			ss, err := structuralschema.NewStructural(&internal)
			if err != nil {
				whenCELErr = err
				return
			}
			whenCELVal, whenCELSS = cel.NewValidator(ss, true, celconfig.PerCallLimit), ss
			return
		}
		whenCELErr = fmt.Errorf("no CRD written")
	})
	if whenCELErr != nil {
		t.Fatal(whenCELErr)
	}
	return whenCELVal, whenCELSS
}

// runtimeChecker is the runtime's Checker of the test API's CRD in the
// extensions output.
func runtimeChecker(t testing.TB) *runtime.Checker {
	t.Helper()
	res := run(t, crdgen.Generator{Immutability: crdgen.ModeExtensions}, "./"+whenDir+"/...")
	if res.err != nil || res.diags.HasErrors() {
		t.Fatalf("crd generator (extensions): %v %s", res.err, res.diags)
	}
	for _, data := range res.files {
		rs, err := enforce.FromCRD(data)
		if err != nil {
			t.Fatal(err)
		}
		return rs[0].Checker
	}
	t.Fatal("no CRD written")
	return nil
}

// fieldsVerdict renders an error list as allowed, or the fields it names
// (sorted, each once; the root, where a condition's error is reported,
// as ""): what the three enforcers must agree on.
func fieldsVerdict(l field.ErrorList) string {
	if len(l) == 0 {
		return "allowed"
	}
	var paths []string
	for _, e := range l {
		p := e.Field
		if p == "<nil>" {
			p = ""
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return fmt.Sprintf("refused at %q", paths)
}

// verdict renders an error list for comparison across the two sides:
// allowed, or refused at these paths (sorted, each once), and each
// condition's error whole (type, root path, detail: "<error> evaluating
// rule: <message>", each conditional field of the test API with a message
// of its own). The violations' types and texts differ by design: CEL's
// rules say "Invalid: <message>", the typed validators the runtime's
// violations (docs/semantics.md).
func verdict(l field.ErrorList) string {
	if len(l) == 0 {
		return "allowed"
	}
	var paths []string
	for _, e := range l {
		p := e.Field
		if strings.Contains(e.Detail, " evaluating rule: ") {
			p = fmt.Sprintf("%s %s: %s", e.Type, e.Field, e.Detail)
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return "refused at " + strings.Join(paths, ", ")
}

// spice gives a random gadget conditions of the types and statuses the
// conditions read.
func spice(g *gen, o *v1.Gadget) {
	if o.Status == nil || g.r.IntN(3) == 0 {
		return
	}
	for i := range o.Status.Conditions {
		c := &o.Status.Conditions[i]
		c.Type = []string{"QuotaReserved", "Admitted", "a", ""}[g.r.IntN(4)]
		c.Status = []string{"True", "False"}[g.r.IntN(2)]
	}
}

func TestDifferentialWhen(t *testing.T) {
	seed := *whenSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with go test ./validators -run TestDifferentialWhen -when.seed %d)", seed, seed)
	v, ss := apiServerCEL(t)
	rt := runtimeChecker(t)
	g := &gen{r: rand.New(rand.NewPCG(seed, 33))}
	pairs := proofsize.OrFlag(t, "random updates", *whenPairs, 400, 80)
	var disagreements, refused, conditionErrors, runtimeDisagreements int
	for i := range pairs {
		old := &v1.Gadget{}
		g.fill(reflect.ValueOf(old).Elem(), 0)
		spice(g, old)
		obj := old.DeepCopy()
		g.rate = [...]float64{0.002, 0.005, 0.02, 0.1}[g.r.IntN(4)]
		g.mutate(reflect.ValueOf(obj).Elem(), 0)
		if g.r.IntN(4) == 0 {
			spice(g, obj)
		}
		errs, _ := v.Validate(context.Background(), nil, ss, toJSON(t, obj), toJSON(t, old), celconfig.RuntimeCELCostBudget)
		want := verdict(errs)
		got := verdict(obj.ValidateImmutableUpdate(old))
		if want != "allowed" {
			refused++
		}
		for _, e := range errs {
			if strings.Contains(e.Detail, "evaluating rule") {
				conditionErrors++
				break
			}
		}
		if got != want {
			disagreements++
			if disagreements <= 3 {
				on, _ := json.Marshal(obj)
				oo, _ := json.Marshal(old)
				t.Errorf("update %d disagrees\nold: %s\nnew: %s\ntyped:      %s\nAPI server: %s\n%s", i, oo, on, got, want, describe(errs))
			}
		}
		// The third enforcer: the runtime on the extensions output
		// (x-immutable-gen-when), on the JSON of the same objects; its
		// condition errors are worded its own way, at the same root.
		if r, w := fieldsVerdict(rt.ValidateUpdate(toJSON(t, obj), toJSON(t, old))), fieldsVerdict(errs); r != w {
			runtimeDisagreements++
			if runtimeDisagreements <= 3 {
				on, _ := json.Marshal(obj)
				oo, _ := json.Marshal(old)
				t.Errorf("update %d: the runtime disagrees\nold: %s\nnew: %s\nruntime:    %s\nAPI server: %s", i, oo, on, r, w)
			}
		}
	}
	t.Logf("%d updates, %d refused by the API server (%d with a condition's error), %d disagreements of the typed validators, %d of the runtime", pairs, refused, conditionErrors, disagreements, runtimeDisagreements)
	if disagreements > 0 || runtimeDisagreements > 0 {
		t.Fatalf("%d disagreements of the typed validators, %d of the runtime (seed %d)", disagreements, runtimeDisagreements, seed)
	}
	if refused == 0 || refused == pairs || conditionErrors == 0 {
		t.Fatalf("%d of %d updates refused, %d by a condition's error: the draw does not exercise the verdicts", refused, pairs, conditionErrors)
	}
}

// FuzzDifferentialWhen is TestDifferentialWhen driven by the fuzzer: go
// test ./validators -fuzz FuzzDifferentialWhen.
func FuzzDifferentialWhen(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(10))
	f.Add(uint64(7), uint64(7), uint8(100))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, rate uint8) {
		v, ss := apiServerCEL(t)
		g := &gen{r: rand.New(rand.NewPCG(s1, s2)), rate: float64(rate) / 255}
		old := &v1.Gadget{}
		g.fill(reflect.ValueOf(old).Elem(), 0)
		spice(g, old)
		obj := old.DeepCopy()
		g.mutate(reflect.ValueOf(obj).Elem(), 0)
		errs, _ := v.Validate(context.Background(), nil, ss, toJSON(t, obj), toJSON(t, old), celconfig.RuntimeCELCostBudget)
		if got, want := verdict(obj.ValidateImmutableUpdate(old)), verdict(errs); got != want {
			t.Fatalf("typed: %s\nAPI server: %s\n%s", got, want, describe(errs))
		}
	})
}

// kueueGadgets are the objects of BenchmarkWhen: a gadget holding quota,
// and the same gadget without.
func kueueGadgets() (held, free *v1.Gadget) {
	held = &v1.Gadget{Spec: v1.GadgetSpec{Name: "w", Mode: "a", Queue: "q1", Tags: []string{"a", "b"}, Ports: []v1.Port{{Name: "a"}, {Name: "b"}}},
		Status: &v1.GadgetStatus{Phase: "Running", Conditions: []v1.Condition{{Type: "Admitted", Status: "True"}, {Type: "PodsReady", Status: "True"}, {Type: "Evicted", Status: "False"}, {Type: "QuotaReserved", Status: "True"}}}}
	held.Name = "w"
	free = held.DeepCopy()
	free.Status.Conditions[3].Status = "False"
	return held, free
}

// TestWhenAllocatesNothing: an update that changes nothing, and one whose
// conditional field changed where the condition is false, allocate
// nothing (the condition's code allocates only errors).
func TestWhenAllocatesNothing(t *testing.T) {
	held, free := kueueGadgets()
	same := held.DeepCopy()
	moved := free.DeepCopy()
	moved.Spec.Queue = "q2"
	for _, c := range []struct {
		name     string
		obj, old *v1.Gadget
	}{{"unchanged", same, held}, {"changed, the condition false", moved, free}} {
		if errs := c.obj.ValidateImmutableUpdate(c.old); len(errs) != 0 {
			t.Fatalf("%s: refused: %v", c.name, errs)
		}
		if n := testing.AllocsPerRun(20, func() { c.obj.ValidateImmutableUpdate(c.old) }); n != 0 {
			t.Errorf("%s: %v allocations", c.name, n)
		}
	}
}

// BenchmarkWhen: the generated validator of the test API on a Kueue-style
// update: nothing changed; the conditional field spec.queue changed while
// the old gadget holds quota (the condition evaluated, true: refused), and
// while it does not (evaluated, false: allowed). Every other conditional
// field of the API is checked too (unchanged: its condition never runs).
//
//	go test ./validators -run '^$' -bench BenchmarkWhen -benchmem -count 6
func BenchmarkWhen(b *testing.B) {
	old, free := kueueGadgets()
	for _, c := range []struct {
		name     string
		old      *v1.Gadget
		queue    string
		refusals int
	}{{"unchanged", old, "q1", 0}, {"changed-condition-true", old, "q2", 1}, {"changed-condition-false", free, "q2", 0}} {
		obj := c.old.DeepCopy()
		obj.Spec.Queue = c.queue
		if n := len(obj.ValidateImmutableUpdate(c.old)); n != c.refusals {
			b.Fatalf("%s: %d errors, want %d", c.name, n, c.refusals)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				obj.ValidateImmutableUpdate(c.old)
			}
		})
	}
}
