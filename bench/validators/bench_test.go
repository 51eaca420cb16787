package validators

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// impl is one validator measured on the benchmark cases: prepare turns a
// case into a call (conversions the validator does not do itself happen
// in prepare, outside the measurement).
type impl struct {
	name    string
	prepare func(tb testing.TB, a *api, obj, old interface{}) func() field.ErrorList
	// validationGen marks validation-gen, whose want differs (set order).
	validationGen bool
	// noAllocs: the validator promises no allocation when nothing changed.
	noAllocs bool
}

func impls() []impl {
	return []impl{
		// immutable-gen's typed validators on the typed objects.
		{name: "typed", noAllocs: true, prepare: func(_ testing.TB, a *api, obj, old interface{}) func() field.ErrorList {
			return func() field.ErrorList { return a.typed(obj, old) }
		}},
		{name: "validation-gen", validationGen: true, prepare: func(_ testing.TB, a *api, obj, old interface{}) func() field.ErrorList {
			return func() field.ErrorList { return a.validationGen(obj, old) }
		}},
		// The runtime on unstructured content, as the webhook and the
		// admission plugin call it (decoding the request is not measured).
		{name: "runtime", noAllocs: true, prepare: func(tb testing.TB, a *api, obj, old interface{}) func() field.ErrorList {
			c := a.checker(tb)
			nu, ou := unstructured(tb, obj), unstructured(tb, old)
			return func() field.ErrorList { return c.ValidateUpdate(nu, ou) }
		}},
		// The runtime on the typed objects: converted to unstructured
		// content unless reflect.DeepEqual finds them equal.
		{name: "runtime-typed", prepare: func(tb testing.TB, a *api, obj, old interface{}) func() field.ErrorList {
			c := a.checker(tb)
			return func() field.ErrorList { return c.ValidateUpdateTyped(obj, old) }
		}},
	}
}

var apisByName = map[string]*api{"Widget": &widgetAPI, "Deployment": &deploymentAPI}

// TestBenchCases checks that every validator reports what it should on
// the benchmark cases, so that the benchmarks measure the same work, and
// that the runtime allocates nothing on the unchanged objects.
func TestBenchCases(t *testing.T) {
	for apiName, cases := range benchCases() {
		a := apisByName[apiName]
		for _, c := range cases {
			for _, im := range impls() {
				t.Run(apiName+"/"+c.name+"/"+im.name, func(t *testing.T) {
					want := c.want
					if im.validationGen && c.wantVG != nil {
						want = c.wantVG
					}
					call := im.prepare(t, a, c.obj, c.old)
					if got := paths(call()); !slices.Equal(got, want) {
						t.Errorf("fields reported: %q, want %q", got, want)
					}
					if c.name == "unchanged" && im.noAllocs {
						if n := testing.AllocsPerRun(100, func() { call() }); n != 0 {
							t.Errorf("%v allocations on an unchanged object, want 0", n)
						}
					}
				})
			}
		}
	}
}

// BenchmarkUpdate measures every validator on the same updates. Compare
// side by side with: benchstat -col /impl
func BenchmarkUpdate(b *testing.B) {
	for _, apiName := range []string{"Widget", "Deployment"} {
		a := apisByName[apiName]
		for _, c := range benchCases()[apiName] {
			for _, im := range impls() {
				b.Run("api="+apiName+"/case="+c.name+"/impl="+im.name, func(b *testing.B) {
					call := im.prepare(b, a, c.obj, c.old)
					b.ReportAllocs()
					for b.Loop() {
						call()
					}
				})
			}
		}
	}
}
