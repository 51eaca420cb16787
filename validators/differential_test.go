package validators_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/internal/proofsize"
	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/immutable"
	v1 "github.com/immutable-gen/immutable-gen/testdata/apis/validators/v1"
)

// The generated validators of the test API against the runtime, on the CRD
// the crd generator makes of the same types (extensions mode): random typed
// objects and random updates of them; the typed verdict and errors (type,
// path, detail, origin, in order) must be the runtime's on the JSON of the
// same two objects.

var (
	seedFlag  = flag.Uint64("seed", 0, "seed of the differential test (0: a new one, logged)")
	pairsFlag = flag.Int("pairs", 0, "number of random updates of the differential test (0: 12000 with IMMUTABLE_GEN_PROOFS=full, else 3000)")
)

var (
	crdsOnce sync.Once
	crds     map[string][]byte
	crdsErr  error
)

// checkerFor compiles the runtime's checker of kind from the CRDs the crd
// generator writes for the test API, in extensions mode.
func checkerFor(t testing.TB, kind string) *runtime.Checker {
	t.Helper()
	crdsOnce.Do(func() {
		res := run(t, crdgen.Generator{Immutability: crdgen.ModeExtensions, AllowDangerousTypes: ptr(true)}, "./testdata/apis/validators/...")
		if res.err != nil || res.diags.HasErrors() || len(res.pkgErrors) > 0 {
			crdsErr = fmt.Errorf("crd generator: %v %v %v", res.err, res.diags, res.pkgErrors)
		}
		crds = res.files
	})
	if crdsErr != nil {
		t.Fatal(crdsErr)
	}
	for _, data := range crds {
		if c, err := runtime.CompileCRD(data, runtime.CRDOptions{Kind: kind}); err == nil {
			return c
		}
	}
	t.Fatalf("no CRD of kind %s", kind)
	return nil
}

var (
	widgetOnce    sync.Once
	widgetChecker *runtime.Checker
)

// widget is the runtime's checker of the Widget CRD.
func widget(t testing.TB) *runtime.Checker {
	widgetOnce.Do(func() { widgetChecker = checkerFor(t, "Widget") })
	if widgetChecker == nil {
		t.Fatal("no Widget checker")
	}
	return widgetChecker
}

// viaRuntime is the runtime's verdict on the JSON of the two objects.
func viaRuntime(t testing.TB, c *runtime.Checker, obj, old *v1.Widget) field.ErrorList {
	return c.ValidateUpdate(toJSON(t, obj), toJSON(t, old))
}

// toJSON is the object as the API server stores it: encoding/json's
// encoding, decoded with integers kept as int64.
func toJSON(t testing.TB, obj any) map[string]any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// describe renders an error list for comparison: type, path, detail and
// origin of each error, in order.
func describe(l field.ErrorList) string {
	var b strings.Builder
	for _, e := range l {
		fmt.Fprintf(&b, "%s | %s | %s | %s\n", e.Type, e.Field, e.Detail, e.Origin)
	}
	return b.String()
}

func TestDifferential(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with go test ./validators -run TestDifferential -seed %d)", seed, seed)
	pairs := proofsize.OrFlag(t, "random updates", *pairsFlag, 12000, 3000)
	t.Run("Widget", func(t *testing.T) { differential[v1.Widget](t, widget(t), seed, pairs) })
	t.Run("Gadget", func(t *testing.T) { differential[v1.Gadget](t, checkerFor(t, "Gadget"), seed, pairs/6) })
}

// validated is a kind with generated validators.
type validated[T any] interface {
	*T
	ValidateImmutableUpdate(old *T) field.ErrorList
	DeepCopy() *T
}

// differential checks n random updates of kind T.
func differential[T any, PT validated[T]](t *testing.T, c *runtime.Checker, seed uint64, n int) {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0))}
	var disagreements, rejected, changed int
	for i := range n {
		old := PT(new(T))
		g.fill(reflect.ValueOf(old).Elem(), 0)
		obj := PT(old.DeepCopy())
		g.rate = [...]float64{0, 0.005, 0.02, 0.1, 0.3}[g.r.IntN(5)]
		g.mutate(reflect.ValueOf(obj).Elem(), 0)
		want := describe(c.ValidateUpdate(toJSON(t, obj), toJSON(t, old)))
		got := describe(obj.ValidateImmutableUpdate((*T)(old)))
		if !reflect.DeepEqual(old, obj) {
			changed++
		}
		if want != "" {
			rejected++
		}
		if got != want {
			disagreements++
			if disagreements <= 3 {
				on, _ := json.Marshal(obj)
				oo, _ := json.Marshal(old)
				t.Errorf("pair %d disagrees\nold: %s\nnew: %s\ntyped:\n%sruntime:\n%s", i, oo, on, got, want)
			}
		}
	}
	t.Logf("%d pairs, %d changed, %d rejected, %d disagreements", n, changed, rejected, disagreements)
	if disagreements > 0 {
		t.Fatalf("%d disagreements (seed %d)", disagreements, seed)
	}
	if rejected == 0 || rejected == n {
		t.Fatalf("%d of %d pairs rejected: the generator of updates is broken", rejected, n)
	}
}

// FuzzDifferential is TestDifferential driven by the fuzzer: go test
// ./validators -fuzz FuzzDifferential.
func FuzzDifferential(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(10))
	f.Add(uint64(7), uint64(7), uint8(100))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, rate uint8) {
		c := widget(t)
		g := &gen{r: rand.New(rand.NewPCG(s1, s2)), rate: float64(rate) / 255}
		old := &v1.Widget{}
		g.fill(reflect.ValueOf(old).Elem(), 0)
		obj := old.DeepCopy()
		g.mutate(reflect.ValueOf(obj).Elem(), 0)
		want := describe(viaRuntime(t, c, obj, old))
		if got := describe(obj.ValidateImmutableUpdate(old)); got != want {
			t.Fatalf("typed:\n%sruntime:\n%s", got, want)
		}
	})
}

// TestUnchangedAllocatesNothing checks the generated validator allocates
// nothing on an update that changes nothing, on full objects.
func TestUnchangedAllocatesNothing(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(3, 4)), full: true}
	for range 20 {
		old := &v1.Widget{}
		g.fill(reflect.ValueOf(old).Elem(), 0)
		obj := old.DeepCopy()
		if errs := obj.ValidateImmutableUpdate(old); len(errs) > 0 {
			t.Fatalf("unchanged object rejected: %v", errs)
		}
		// Color's own MarshalJSON allocates its result; comparing it
		// allocates that much, and nothing else may allocate.
		color := testing.AllocsPerRun(10, func() { immutable.SameMarshaled(obj.Spec.Color, old.Spec.Color) })
		if n := testing.AllocsPerRun(10, func() { obj.ValidateImmutableUpdate(old) }); n != color {
			t.Fatalf("%v allocations on an unchanged object, %v of them by Color.MarshalJSON", n, color)
		}
	}
}

// gen makes random typed values from small domains, so that equal values
// (and equal keys) are frequent.
type gen struct {
	r    *rand.Rand
	rate float64 // mutation probability per value
	full bool    // no nil, empty or zero values
}

var (
	quantities = []resource.Quantity{
		resource.MustParse("1"), resource.MustParse("1000m"), resource.MustParse("1Ki"), resource.MustParse("1024"),
		*resource.NewQuantity(1, resource.DecimalSI), *resource.NewMilliQuantity(1000, resource.DecimalSI), {},
	}
	times = []metav1.Time{{}, metav1.Unix(0, 0), metav1.Unix(1, 0), metav1.Unix(1, 500), metav1.Unix(2, 0)}
	// leaves are the types generated as a whole, never walked into.
	leaves = map[reflect.Type]func(g *gen) any{
		reflect.TypeFor[metav1.Time]():     func(g *gen) any { return times[g.r.IntN(len(times))] },
		reflect.TypeFor[metav1.Duration](): func(g *gen) any { return metav1.Duration{Duration: time.Duration(g.r.IntN(3)) * time.Second} },
		reflect.TypeFor[resource.Quantity](): func(g *gen) any {
			if g.full {
				// Quantities parsed from their canonical form ("1", "1Ki",
				// "1024") keep it: comparing them allocates nothing.
				return quantities[[]int{0, 2, 3}[g.r.IntN(3)]].DeepCopy()
			}
			return quantities[g.r.IntN(len(quantities))].DeepCopy()
		},
		reflect.TypeFor[apiruntime.RawExtension](): func(g *gen) any {
			return apiruntime.RawExtension{Raw: g.raw()}
		},
		reflect.TypeFor[apiextv1.JSON](): func(g *gen) any {
			return apiextv1.JSON{Raw: g.raw()}
		},
		reflect.TypeFor[metav1.FieldsV1](): func(g *gen) any {
			return *metav1.NewFieldsV1(string(g.raw()))
		},
		reflect.TypeFor[intstr.IntOrString](): func(g *gen) any {
			if g.r.IntN(2) == 0 {
				return intstr.FromInt32(int32(g.r.IntN(2)))
			}
			return intstr.FromString([]string{"", "a", "1"}[g.r.IntN(3)])
		},
	}
)

var (
	typeMeta   = reflect.TypeFor[metav1.TypeMeta]()
	objectMeta = reflect.TypeFor[metav1.ObjectMeta]()
)

var words = []string{"", "a", "b", "c"}

// raws are JSON documents, some equal as values but not as bytes.
var raws = []string{`{"a":1}`, `{"a":1.0}`, `{ "a" : 1 }`, `{"a":2}`, `[1,2]`, `[2,1]`, `null`, `"s"`, `{"a":{"b":[1]},"c":true}`, `{"c":true,"a":{"b":[1]}}`}

// raw returns a JSON document, or nil (null) when g may.
func (g *gen) raw() []byte {
	if !g.full && g.r.IntN(5) == 0 {
		return nil
	}
	return []byte(raws[g.r.IntN(len(raws))])
}

func (g *gen) word() string {
	if g.full {
		return words[1+g.r.IntN(len(words)-1)]
	}
	return words[g.r.IntN(len(words))]
}

// fill sets v to a random value.
func (g *gen) fill(v reflect.Value, depth int) {
	switch v.Type() {
	case typeMeta:
		v.Set(reflect.ValueOf(metav1.TypeMeta{APIVersion: "validators.example.com/v1", Kind: "Widget"}))
		return
	case objectMeta:
		if depth <= 1 {
			// The object's own metadata: never compared.
			v.Set(reflect.ValueOf(metav1.ObjectMeta{Name: "w", Namespace: "default"}))
			return
		}
	}
	if leaf, ok := leaves[v.Type()]; ok {
		v.Set(reflect.ValueOf(leaf(g)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(g.word())
	case reflect.Bool:
		v.SetBool(g.full || g.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(g.r.IntN(3)) - 1 + g.nonZero())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(g.r.IntN(3)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 0.5, 1, 2}[g.r.IntN(4)])
	case reflect.Pointer:
		if !g.full && (depth > 6 || g.r.IntN(3) == 0) {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		g.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch {
		case !g.full && (depth > 6 || g.r.IntN(4) == 0):
			v.SetZero()
		case !g.full && g.r.IntN(6) == 0:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := 1 + g.r.IntN(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				g.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		switch {
		case !g.full && (depth > 6 || g.r.IntN(4) == 0):
			v.SetZero()
		case !g.full && g.r.IntN(6) == 0:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range 1 + g.r.IntN(3) {
				k := reflect.New(v.Type().Key()).Elem()
				g.fill(k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				g.fill(e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				g.fill(v.Field(i), depth+1)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			g.fill(v.Index(i), depth+1)
		}
	case reflect.Interface:
		// No implementation to choose from: nil (the rules tests set
		// interface values).
		v.SetZero()
	default:
		panic(fmt.Sprintf("no random values of %s", v.Type()))
	}
}

func (g *gen) nonZero() int64 {
	if g.full {
		return 3
	}
	return 0
}

func (g *gen) hit() bool { return g.r.Float64() < g.rate }

// mutate changes parts of v at random, with probability rate each.
func (g *gen) mutate(v reflect.Value, depth int) {
	if v.Type() == typeMeta || (v.Type() == objectMeta && depth <= 1) {
		return
	}
	if g.hit() {
		g.fill(v, depth)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			g.mutate(v.Elem(), depth+1)
		}
	case reflect.Struct:
		if _, ok := leaves[v.Type()]; ok {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				g.mutate(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		n := v.Len()
		if g.hit() && n > 1 {
			// Reorder.
			s := reflect.MakeSlice(v.Type(), n, n)
			for i, j := range g.r.Perm(n) {
				s.Index(i).Set(v.Index(j))
			}
			v.Set(s)
		}
		if g.hit() {
			// Append.
			e := reflect.New(v.Type().Elem()).Elem()
			g.fill(e, depth+1)
			v.Set(reflect.Append(v, e))
		}
		if g.hit() && v.Len() > 0 {
			// Remove one item.
			i := g.r.IntN(v.Len())
			s := reflect.MakeSlice(v.Type(), 0, v.Len()-1)
			s = reflect.AppendSlice(s, v.Slice(0, i))
			s = reflect.AppendSlice(s, v.Slice(i+1, v.Len()))
			v.Set(s)
		}
		for i := range v.Len() {
			g.mutate(v.Index(i), depth+1)
		}
	case reflect.Array:
		for i := range v.Len() {
			g.mutate(v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		if g.hit() {
			k := reflect.New(v.Type().Key()).Elem()
			g.fill(k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			g.fill(e, depth+1)
			v.SetMapIndex(k, e)
		}
		for _, k := range v.MapKeys() {
			if g.hit() {
				v.SetMapIndex(k, reflect.Value{})
				continue
			}
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			g.mutate(e, depth+1)
			v.SetMapIndex(k, e)
		}
	}
}
