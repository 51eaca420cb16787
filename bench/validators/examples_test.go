package validators

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	widgetv1 "github.com/immutable-gen/immutable-gen/bench/validators/apis/widget/v1"
)

// TestDifferenceExamples pins the minimal example of each difference
// between validation-gen's +k8s:immutable and the KEP's semantics that
// docs/semantics.md names ("Differences from validation-gen's
// +k8s:immutable"), and the cases where they agree that one might expect
// to differ.
func TestDifferenceExamples(t *testing.T) {
	base := func() *widgetv1.Widget {
		w := &widgetv1.Widget{Spec: widgetv1.WidgetSpec{
			Name:     "w",
			Zones:    []string{"a", "b"},
			Ports:    []widgetv1.Port{{Name: "http", Port: 80}, {Name: "https", Port: 443}},
			Backends: []widgetv1.Backend{{Name: "primary", Address: "10.0.0.1"}},
		}}
		w.APIVersion, w.Kind, w.Name = "bench.immutable-gen.io/v1", "Widget", "w"
		return w
	}
	for _, tc := range []struct {
		name   string
		mutate func(obj, old *widgetv1.Widget)
		// fields validation-gen and the runtime report
		wantVG, wantRuntime []string
		// the error types validation-gen and the runtime report, when they
		// differ
		typeVG, typeRuntime field.ErrorType
	}{{
		name:   diffSetOrder + ": zones [a b] → [b a]",
		mutate: func(obj, _ *widgetv1.Widget) { obj.Spec.Zones = []string{"b", "a"} },
		wantVG: []string{"spec.zones"},
	}, {
		name:        diffNilEmpty + ": tags null → []",
		mutate:      func(obj, _ *widgetv1.Widget) { obj.Spec.Tags = []string{} },
		wantRuntime: []string{"spec.tags"},
	}, {
		name: diffNewParent + ": a backend added",
		mutate: func(obj, _ *widgetv1.Widget) {
			obj.Spec.Backends = append(obj.Spec.Backends, widgetv1.Backend{Name: "secondary", Address: "10.0.0.2"})
		},
		wantVG: []string{"spec.backends[1].address"},
	}, {
		name:   diffNewParent + ": options added, its immutable mode unset",
		mutate: func(obj, _ *widgetv1.Widget) { obj.Spec.Options = &widgetv1.Options{Verbose: true} },
		wantVG: []string{"spec.options.mode"},
	}, {
		name:        diffNewParent + ": a backend renamed (one removed, one added)",
		mutate:      func(obj, _ *widgetv1.Widget) { obj.Spec.Backends[0].Name = "main" },
		wantVG:      []string{"spec.backends[0].address"},
		wantRuntime: nil,
	}, {
		name: "agree: a list map reordered is a change for both (the KEP ignores order for sets only)",
		mutate: func(obj, _ *widgetv1.Widget) {
			obj.Spec.Ports[0], obj.Spec.Ports[1] = obj.Spec.Ports[1], obj.Spec.Ports[0]
		},
		wantVG:      []string{"spec.ports"},
		wantRuntime: []string{"spec.ports"},
	}, {
		name:        "agree: options removed (an optional parent) is allowed by both",
		mutate:      func(obj, old *widgetv1.Widget) { old.Spec.Options = &widgetv1.Options{Mode: "fast"} },
		wantVG:      nil,
		wantRuntime: nil,
	}, {
		name: diffKeyPath + ": a shard added",
		mutate: func(obj, old *widgetv1.Widget) {
			old.Spec.Shards = []widgetv1.Shard{{Name: "s1"}}
			obj.Spec.Shards = []widgetv1.Shard{{Name: "s1"}, {Name: "s2"}}
		},
		wantVG:      []string{"spec.shards[1]"},
		wantRuntime: []string{"spec.shards"},
	}, {
		name: "agree: a shard removed is refused at the list by both",
		mutate: func(obj, old *widgetv1.Widget) {
			old.Spec.Shards = []widgetv1.Shard{{Name: "s1"}, {Name: "s2"}}
			obj.Spec.Shards = []widgetv1.Shard{{Name: "s1", Replicas: 3}}
		},
		wantVG:      []string{"spec.shards"},
		wantRuntime: []string{"spec.shards"},
	}, {
		name:   "agree: once (NoModify, NoUnset) set after creation is allowed by both",
		mutate: func(obj, _ *widgetv1.Widget) { obj.Spec.SeedSnapshot = "snap-1" },
	}, {
		name: "agree: once changed is refused by both",
		mutate: func(obj, old *widgetv1.Widget) {
			old.Spec.SeedSnapshot = "snap-1"
			obj.Spec.SeedSnapshot = "snap-2"
		},
		wantVG:      []string{"spec.seedSnapshot"},
		wantRuntime: []string{"spec.seedSnapshot"},
	}, {
		name:        "agree: once removed is refused by both",
		mutate:      func(obj, old *widgetv1.Widget) { old.Spec.SeedSnapshot = "snap-1" },
		wantVG:      []string{"spec.seedSnapshot"},
		wantRuntime: []string{"spec.seedSnapshot"},
	}, {
		name:        "same verdict, other error type: storage added",
		mutate:      func(obj, _ *widgetv1.Widget) { obj.Spec.Storage = &widgetv1.Storage{Class: "ssd"} },
		wantVG:      []string{"spec.storage"},
		wantRuntime: []string{"spec.storage"},
		typeVG:      field.ErrorTypeInvalid,
		typeRuntime: field.ErrorTypeForbidden,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			obj, old := base(), base()
			tc.mutate(obj, old)
			vg := widgetAPI.validationGen(obj, old)
			rt := widgetAPI.checker(t).ValidateUpdate(unstructured(t, obj), unstructured(t, old))
			if ty := widgetAPI.typed(obj, old); !slices.Equal(errorKeys(ty), errorKeys(rt)) {
				t.Errorf("the typed validators report %v, the runtime %v", ty, rt)
			}
			if got := paths(vg); !slices.Equal(got, tc.wantVG) {
				t.Errorf("validation-gen reports %q, want %q: %v", got, tc.wantVG, vg)
			}
			if got := paths(rt); !slices.Equal(got, tc.wantRuntime) {
				t.Errorf("the runtime reports %q, want %q: %v", got, tc.wantRuntime, rt)
			}
			if tc.typeVG != "" && (len(vg) != 1 || vg[0].Type != tc.typeVG) {
				t.Errorf("validation-gen: %v, want one error of type %s", vg, tc.typeVG)
			}
			if tc.typeRuntime != "" && (len(rt) != 1 || rt[0].Type != tc.typeRuntime) {
				t.Errorf("the runtime: %v, want one error of type %s", rt, tc.typeRuntime)
			}
		})
	}
}
