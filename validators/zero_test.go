package validators_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-tools/pkg/genall"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/internal/proofsize"
	"github.com/immutable-gen/immutable-gen/output"
	"github.com/immutable-gen/immutable-gen/runtime"
	v1 "github.com/immutable-gen/immutable-gen/testdata/apis/validators-omitzero/v1"
	"github.com/immutable-gen/immutable-gen/testdata/apis/validators-omitzero/v1/opaque"
	"github.com/immutable-gen/immutable-gen/validators"
)

// encoding/json's omitzero in the typed validators (docs/semantics.md,
// "Typed validators", the presence row): the test API
// testdata/apis/validators-omitzero has a field with the option of each
// kind of type; a field is present exactly when encoding/json writes it.

const omitZeroAPI = "./testdata/apis/validators-omitzero/..."

// TestOmitZeroGolden: the committed zz_generated.immutable.go of the
// omitzero test API (which the tests below compile) and its golden copy
// are what the generator writes now, with no finding.
func TestOmitZeroGolden(t *testing.T) {
	res := run(t, validators.Generator{}, omitZeroAPI)
	if res.err != nil || len(res.pkgErrors) > 0 || len(res.diags) > 0 {
		t.Fatalf("generation failed: %v %v %v", res.err, res.pkgErrors, res.diags)
	}
	const path = "testdata/apis/validators-omitzero/v1/" + validators.FileName
	got, ok := res.files[path]
	if !ok || len(res.files) != 1 {
		t.Fatalf("files written: %v", keys(res.files))
	}
	if formatted, err := format.Source(got); err != nil || !bytes.Equal(formatted, got) {
		t.Errorf("the generated code is not gofmt-clean (%v)", err)
	}
	golden.Check(t, filepath.Join(moduleRoot(t), path), got)
	golden.Check(t, filepath.Join(moduleRoot(t), "testdata/golden/validators/omitzero.go.golden"), got)
}

var (
	zeroOnce    sync.Once
	zeroChecker *runtime.Checker
	zeroErr     error
)

// zeroCheck is the runtime's checker of the Zero CRD (extensions mode).
func zeroCheck(t testing.TB) *runtime.Checker {
	t.Helper()
	zeroOnce.Do(func() {
		res := run(t, crdgen.Generator{Immutability: crdgen.ModeExtensions, AllowDangerousTypes: ptr(true)}, omitZeroAPI)
		if res.err != nil || res.diags.HasErrors() || len(res.pkgErrors) > 0 || len(res.files) != 1 {
			zeroErr = fmt.Errorf("crd generator: %v %v %v %v", res.err, res.diags, res.pkgErrors, keys(res.files))
			return
		}
		for _, data := range res.files {
			zeroChecker, zeroErr = runtime.CompileCRD(data, runtime.CRDOptions{Kind: "Zero"})
		}
	})
	if zeroErr != nil {
		t.Fatal(zeroErr)
	}
	return zeroChecker
}

func TestOmitZero(t *testing.T) {
	c := zeroCheck(t)
	type want struct{ typ, field, detail string }
	added := func(path, name string) want {
		return want{"FieldValueForbidden", path, fmt.Sprintf("field %q is immutable and may not be added", name)}
	}
	removed := func(path, name string) want {
		return want{"FieldValueForbidden", path, fmt.Sprintf("field %q is immutable and may not be removed", name)}
	}
	onceRemoved := func(path, name string) want {
		return want{"FieldValueForbidden", path, fmt.Sprintf("field %q is immutable once set and may not be removed", name)}
	}
	changed := func(path string) want { return want{"FieldValueInvalid", path, "field is immutable"} }
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name        string
		old, change func(s *v1.ZeroSpec)
		want        []want
	}{
		{"nothing set", nil, nil, nil},
		{"non-comparable struct: an empty list is not zero", nil,
			func(s *v1.ZeroSpec) { s.Meta.Finalizers = []string{} },
			[]want{added("spec.meta", "meta")}},
		{"non-comparable struct: an empty map is not zero", nil,
			func(s *v1.ZeroSpec) { s.Meta.Labels = map[string]string{} },
			[]want{added("spec.meta", "meta")}},
		{"non-comparable struct: every field nil or empty string is zero", func(s *v1.ZeroSpec) { s.Meta.Name = "m" },
			func(s *v1.ZeroSpec) { s.Meta = v1.Meta{} },
			[]want{removed("spec.meta", "meta")}},
		{"non-comparable struct: a changed list is a change", func(s *v1.ZeroSpec) { s.Meta.Finalizers = []string{"a"} },
			func(s *v1.ZeroSpec) { s.Meta.Finalizers = []string{"b"} },
			[]want{changed("spec.meta")}},
		{"nested struct: a non-zero inner struct keeps the outer one present", func(s *v1.ZeroSpec) { s.Outer.ID = "a" },
			func(s *v1.ZeroSpec) { s.Outer = v1.Outer{Inner: v1.Meta{Finalizers: []string{}}} },
			[]want{removed("spec.outer.id", "id")}},
		{"nested struct: the outer struct zero is absent, nothing below is compared", func(s *v1.ZeroSpec) { s.Outer.ID = "a" },
			func(s *v1.ZeroSpec) { s.Outer = v1.Outer{} }, nil},
		{"nested struct: an empty list of pointers keeps it present", func(s *v1.ZeroSpec) { s.Outer.ID = "a" },
			func(s *v1.ZeroSpec) { s.Outer = v1.Outer{Refs: []*string{}} },
			[]want{removed("spec.outer.id", "id")}},
		{"array: an element set keeps the struct present", func(s *v1.ZeroSpec) { s.Sched.Owner = "a" },
			func(s *v1.ZeroSpec) { s.Sched = v1.Sched{Days: [3]bool{false, false, true}} },
			[]want{removed("spec.sched.owner", "owner")}},
		{"array of non-comparable structs: an empty list in an element keeps it present", func(s *v1.ZeroSpec) { s.Sched.Owner = "a" },
			func(s *v1.ZeroSpec) { s.Sched = v1.Sched{}; s.Sched.Windows[1].Finalizers = []string{} },
			[]want{removed("spec.sched.owner", "owner")}},
		{"array: every element zero is absent", func(s *v1.ZeroSpec) { s.Sched.Owner = "a" },
			func(s *v1.ZeroSpec) { s.Sched = v1.Sched{} }, nil},
		{"array compared whole: set", nil,
			func(s *v1.ZeroSpec) { s.Slots[1].Name = "n" },
			[]want{added("spec.slots", "slots")}},
		{"array compared whole: an element changed", func(s *v1.ZeroSpec) { s.Slots[1].Name = "n" },
			func(s *v1.ZeroSpec) { s.Slots[1].Finalizers = []string{"f"} },
			[]want{changed("spec.slots")}},
		{"array compared whole: an empty map in an element is omitempty's, no change", func(s *v1.ZeroSpec) { s.Slots[1].Name = "n" },
			func(s *v1.ZeroSpec) { s.Slots[1].Labels = map[string]string{} }, nil},
		{"pointer: a pointer to a zero struct is present", func(s *v1.ZeroSpec) { s.MetaPtr = &v1.Meta{} },
			func(s *v1.ZeroSpec) { s.MetaPtr = nil },
			[]want{onceRemoved("spec.metaPtr", "metaPtr")}},
		{"IsZero on the value receiver: the notes do not count", nil,
			func(s *v1.ZeroSpec) { s.Version.Notes = []string{"n"} }, nil},
		{"IsZero on the value receiver: set", nil,
			func(s *v1.ZeroSpec) { s.Version.Minor = 1 },
			[]want{added("spec.version", "version")}},
		{"IsZero on the value receiver, by pointer: a pointer to a zero value is absent", nil,
			func(s *v1.ZeroSpec) { s.VersionPtr = &v1.Version{Notes: []string{"n"}} }, nil},
		{"IsZero on the value receiver, by pointer: set", nil,
			func(s *v1.ZeroSpec) { s.VersionPtr = &v1.Version{Major: 1} },
			[]want{added("spec.versionPtr", "versionPtr")}},
		{"IsZero on the pointer receiver: the aliases do not count", nil,
			func(s *v1.ZeroSpec) { s.Handle.Aliases = []string{"a"} }, nil},
		{"IsZero on the pointer receiver: a change of the aliases is a change", func(s *v1.ZeroSpec) { s.Handle = v1.Handle{ID: "h", Aliases: []string{"a"}} },
			func(s *v1.ZeroSpec) { s.Handle.Aliases = nil },
			[]want{changed("spec.handle")}},
		{"IsZero on the pointer receiver, by pointer: a pointer to a zero value is absent", func(s *v1.ZeroSpec) { s.HandlePtr = &v1.Handle{ID: "h"} },
			func(s *v1.ZeroSpec) { s.HandlePtr = &v1.Handle{Aliases: []string{"a"}} },
			[]want{onceRemoved("spec.handlePtr", "handlePtr")}},
		{"*metav1.Time: a pointer to the zero time is absent", func(s *v1.ZeroSpec) { s.Started = &metav1.Time{} },
			func(s *v1.ZeroSpec) { s.Started = nil }, nil},
		{"*metav1.Time: set to the zero time is removed", func(s *v1.ZeroSpec) { s.Started = ptr(metav1.Unix(1, 0)) },
			func(s *v1.ZeroSpec) { s.Started = &metav1.Time{} },
			[]want{onceRemoved("spec.started", "started")}},
		{"embedded struct: an empty list of the embedded Meta keeps it present", nil,
			func(s *v1.ZeroSpec) { s.Wrapped.Finalizers = []string{} },
			[]want{added("spec.wrapped", "wrapped")}},
		{"omitempty and omitzero: an empty list is absent", nil,
			func(s *v1.ZeroSpec) { s.Both = []string{} }, nil},
		{"omitzero alone: an empty list is present", nil,
			func(s *v1.ZeroSpec) { s.List = []string{} },
			[]want{added("spec.list", "list")}},
		{"omitzero alone: an empty map is present", nil,
			func(s *v1.ZeroSpec) { s.Labels = map[string]string{} },
			[]want{{"FieldValueForbidden", "spec.labels", `field "labels" has immutable keys and may not be added`}}},
		{"another package's struct: an unexported nil list is zero", nil,
			func(s *v1.ZeroSpec) { s.Box = opaque.Box{}.WithTags() },
			nil},
		{"another package's struct: an unexported empty list is not zero", nil,
			func(s *v1.ZeroSpec) { s.Box = opaque.Box{}.WithTags([]string{}...) },
			[]want{added("spec.box", "box")}},
		{"another package's struct: an unexported item keeps it present", nil,
			func(s *v1.ZeroSpec) { s.Box = opaque.Box{}.WithTags("t") },
			[]want{added("spec.box", "box")}},
		{"local struct: an unexported list keeps it present", nil,
			func(s *v1.ZeroSpec) { s.Private.SetNotes([]string{}) },
			[]want{added("spec.private", "private")}},
		{"comparable struct: -0 is zero", nil,
			func(s *v1.ZeroSpec) { s.Pair.Weight = negZero }, nil},
		{"comparable struct: set", nil,
			func(s *v1.ZeroSpec) { s.Pair.Key = "k" },
			[]want{added("spec.pair", "pair")}},
		{"interface with IsZero: a nil pointer inside is absent", func(s *v1.ZeroSpec) { s.Probed.Probe = v1.Level{N: 1} },
			func(s *v1.ZeroSpec) { s.Probed.Probe = (*v1.Level)(nil) },
			[]want{onceRemoved("spec.probed.probe", "probe")}},
		{"interface with IsZero: IsZero true is absent", func(s *v1.ZeroSpec) { s.Probed.Probe = v1.Level{N: 1} },
			func(s *v1.ZeroSpec) { s.Probed.Probe = v1.Level{} },
			[]want{onceRemoved("spec.probed.probe", "probe")}},
		{"interface with IsZero: a pointer to a non-zero value is present", func(s *v1.ZeroSpec) { s.Probed.Probe = v1.Level{N: 1} },
			func(s *v1.ZeroSpec) { s.Probed.Probe = &v1.Level{N: 2} }, nil},
		{"interface with IsZero: nil leaves its struct zero, absent: nothing below is compared", func(s *v1.ZeroSpec) { s.Probed.Probe = v1.Level{N: 1} },
			func(s *v1.ZeroSpec) { s.Probed.Probe = nil }, nil},
		{"inline embedding: its field's own omitzero", nil,
			func(s *v1.ZeroSpec) { s.Region.Finalizers = []string{} },
			[]want{added("spec.region", "region")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := &v1.Zero{ObjectMeta: metav1.ObjectMeta{Name: "z"}, Spec: v1.ZeroSpec{Name: "z"}}
			if tc.old != nil {
				tc.old(&old.Spec)
			}
			obj := old.DeepCopy()
			if tc.change != nil {
				tc.change(&obj.Spec)
			}
			var got []want
			errs := obj.ValidateImmutableUpdate(old)
			for _, e := range errs {
				got = append(got, want{string(e.Type), e.Field, e.Detail})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if r := describe(c.ValidateUpdate(toJSON(t, obj), toJSON(t, old))); r != describe(errs) {
				n, _ := json.Marshal(obj.Spec)
				o, _ := json.Marshal(old.Spec)
				t.Errorf("the runtime says:\n%sthe typed validator:\n%sold: %s\nnew: %s", r, describe(errs), o, n)
			}
		})
	}
}

// TestOmitZeroDifferential compares the typed verdicts with the runtime's
// on random updates of the omitzero test API (the seed and count of
// TestDifferential: -seed, -pairs).
func TestOmitZeroDifferential(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with go test ./validators -run TestOmitZeroDifferential -seed %d)", seed, seed)
	differential[v1.Zero](t, zeroCheck(t), seed, proofsize.OrFlag(t, "random updates", *pairsFlag, 12000, 3000))
}

// TestOmitZeroUnchangedAllocatesNothing: deciding omitzero allocates
// nothing, the reflect fallback included.
func TestOmitZeroUnchangedAllocatesNothing(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(5, 6)), full: true}
	for range 20 {
		old := &v1.Zero{}
		g.fill(reflect.ValueOf(old).Elem(), 0)
		old.Spec.Box = old.Spec.Box.WithTags("t")
		obj := old.DeepCopy()
		if errs := obj.ValidateImmutableUpdate(old); len(errs) > 0 {
			t.Fatalf("unchanged object rejected: %v", errs)
		}
		if n := testing.AllocsPerRun(10, func() { obj.ValidateImmutableUpdate(old) }); n != 0 {
			t.Fatalf("%v allocations on an unchanged object", n)
		}
	}
}

// TestOmitZeroToolchain: in a module whose go line is older than 1.24 a
// toolchain that ignores omitzero may build the package, so the field's
// presence is not fixed: one error (IG053) for the package, at the first
// field with the option, naming the go line and the fix; nothing is
// written. At go 1.24 the same package generates.
func TestOmitZeroToolchain(t *testing.T) {
	const types = `// +kubebuilder:object:generate=true
// +groupName=old.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Meta struct {
	// +optional
	Labels map[string]string ` + "`json:\"labels,omitempty\"`" + `
}

type OldSpec struct {
	// +immutable
	// +optional
	Meta Meta ` + "`json:\"meta,omitzero\"`" + `
	// +immutable
	// +optional
	Other Meta ` + "`json:\"other,omitzero\"`" + `
}

// +kubebuilder:object:root=true
type Old struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec OldSpec ` + "`json:\"spec\"`" + `
}
`
	// The runtime module's requirements (k8s.io/apimachinery v0.31,
	// whose own go line is older than 1.24) and sums: all in the module
	// cache.
	sum, err := os.ReadFile(filepath.Join(moduleRoot(t), "runtime", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(moduleRoot(t), "runtime", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	_, requires, ok := strings.Cut(string(mod), "\nrequire")
	if !ok {
		t.Fatal("runtime/go.mod has no requirements")
	}
	for _, tc := range []struct {
		goLine string
		want   []string
	}{
		{"1.23.0", []string{"IG053 v1/types.go:15 spec.meta: field Meta has the json option omitzero, which encoding/json honours from Go 1.24 on and ignores before; module example.com/old says go 1.23.0, so a toolchain that ignores it may build the package, and whether the field is in the JSON depends on the toolchain"}},
		{"1.24", nil},
	} {
		t.Run("go "+tc.goLine, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"go.mod":      "module example.com/old\n\ngo " + tc.goLine + "\n\nrequire" + requires,
				"go.sum":      string(sum),
				"v1/types.go": types,
			}
			for name, data := range files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var diags diag.List
			var gen genall.Generator = validators.Generator{}.WithReport(func(d diag.List) { diags = append(diags, d...) })
			rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{Dir: dir}, "./...")
			if err != nil {
				t.Fatal(err)
			}
			buf := &output.Buffer{}
			ctx := rt.GenerationContext
			ctx.OutputRule = buf.Rule(genall.OutputArtifacts{Config: genall.OutputToDirectory(filepath.Join(dir, "crds"))})
			if err := gen.Generate(&ctx); (err != nil) != (tc.want != nil) {
				t.Fatalf("Generate: %v", err)
			}
			var got []string
			for _, d := range diags {
				rel, _ := filepath.Rel(dir, d.Pos.Filename)
				got = append(got, fmt.Sprintf("%s %s:%d %s: %s", d.ID, filepath.ToSlash(rel), d.Pos.Line, d.Path, d.Message))
				if !strings.Contains(d.Fix, "go mod edit -go=1.24") {
					t.Errorf("fix %q", d.Fix)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			if written := len(buf.Artifacts) > 0; written != (tc.want == nil) {
				t.Errorf("%d files written", len(buf.Artifacts))
			}
		})
	}
}
