package validators_test

import (
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/immutable-gen/immutable-gen/testdata/apis/validators/v1"
)

// The update semantics (docs/semantics.md 2.3) on typed objects, one named
// case per rule: the generated validator's errors are the expected ones,
// and the runtime's on the JSON of the same objects.

func base() *v1.Widget {
	return &v1.Widget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "validators.example.com/v1", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "w"},
		Spec: v1.WidgetSpec{
			Name:      "w",
			Tags:      []string{"a", "b", "a"},
			Ports:     []v1.Port{{Name: "http", Number: 80}, {Name: "https", Number: 443}},
			Routes:    []v1.Route{{Host: "h", Path: "/", Backend: "b1"}, {Host: "h", Path: "/x", Backend: "b2"}},
			Labels:    map[string]string{"team": "a"},
			Listeners: []v1.Listener{{Port: 80, Protocol: "TCP"}},
			Network:   v1.Network{VPC: "vpc", Subnets: map[string]v1.Subnet{"s": {CIDR: "10.0.0.0/8"}}},
			Target:    intstr.FromInt32(80),
			Memory:    ptr(resource.MustParse("1Ki")),
			Created:   metav1.Unix(100, 0),
			Steps:     []v1.Step{{Name: "a"}, {Name: "b"}},
			Items:     []string{},
			Counts:    map[string]int64{},
			Raw:       apiruntime.RawExtension{Raw: []byte(`{"a":1}`)},
			Color:     &v1.Color{R: 1},
		},
	}
}

func TestRules(t *testing.T) {
	c := widget(t)
	type want struct{ typ, field, detail string }
	cases := []struct {
		name   string
		change func(w *v1.Widget)
		want   []want
	}{
		{"nothing changed", func(*v1.Widget) {}, nil},
		{"immutable scalar changed", func(w *v1.Widget) { w.Spec.Name = "x" },
			[]want{{"FieldValueInvalid", "spec.name", "field is immutable"}}},
		{"mutable field changed", func(w *v1.Widget) { w.Spec.Size = 3 }, nil},
		{"optional immutable set after creation", func(w *v1.Widget) { w.Spec.Class = "c" },
			[]want{{"FieldValueForbidden", "spec.class", `field "class" is immutable and may not be added`}}},
		{"omitempty zero is absent: set to the zero value is no change", func(w *v1.Widget) { w.Spec.Enabled = false }, nil},
		{"set reordered", func(w *v1.Widget) { w.Spec.Tags = []string{"b", "a", "a"} }, nil},
		{"set multiplicity changed", func(w *v1.Widget) { w.Spec.Tags = []string{"a", "b", "b"} },
			[]want{{"FieldValueInvalid", "spec.tags", "field is immutable"}}},
		{"atomic list reordered", func(w *v1.Widget) { w.Spec.Steps = []v1.Step{{Name: "b"}, {Name: "a"}} },
			[]want{{"FieldValueInvalid", "spec.steps[0]", "field is immutable"}, {"FieldValueInvalid", "spec.steps[1]", "field is immutable"}}},
		{"atomic list appended", func(w *v1.Widget) { w.Spec.Steps = append(w.Spec.Steps, v1.Step{Name: "c"}) }, nil},
		{"list map reordered", func(w *v1.Widget) {
			w.Spec.Ports = []v1.Port{{Name: "https", Number: 443}, {Name: "http", Number: 80}}
		}, nil},
		{"list map item field changed, reported at the new index", func(w *v1.Widget) {
			w.Spec.Ports = []v1.Port{{Name: "https", Number: 8443}, {Name: "http", Number: 80}}
		}, []want{{"FieldValueInvalid", "spec.ports[0].number", "field is immutable"}}},
		{"=keys list map key removed", func(w *v1.Widget) { w.Spec.Ports = w.Spec.Ports[:1] },
			[]want{{"FieldValueForbidden", "spec.ports", `key {"name":"https"} may not be removed: keys are immutable`}}},
		{"=keys list map with two keys, key added", func(w *v1.Widget) {
			w.Spec.Listeners = append(w.Spec.Listeners, v1.Listener{Port: 80, Protocol: "UDP"})
		}, []want{{"FieldValueForbidden", "spec.listeners", `key {"port":80,"protocol":"UDP"} may not be added: keys are immutable`}}},
		{"list map with two keys: items come and go", func(w *v1.Widget) { w.Spec.Routes = w.Spec.Routes[1:] }, nil},
		{"list map with two keys: value changed", func(w *v1.Widget) { w.Spec.Routes[1].Backend = "b3" },
			[]want{{"FieldValueInvalid", "spec.routes[1].backend", "field is immutable"}}},
		{"=keys map key added", func(w *v1.Widget) { w.Spec.Labels["env"] = "x" },
			[]want{{"FieldValueForbidden", "spec.labels", `key "env" may not be added: keys are immutable`}}},
		{"=keys map value changed", func(w *v1.Widget) { w.Spec.Labels["team"] = "b" }, nil},
		{"=keys map emptied is absent (omitempty)", func(w *v1.Widget) { w.Spec.Labels = map[string]string{} },
			[]want{{"FieldValueForbidden", "spec.labels", `field "labels" has immutable keys and may not be removed`}}},
		{"=keys map value's immutable field", func(w *v1.Widget) { w.Spec.Network.Subnets["s"] = v1.Subnet{CIDR: "x"} },
			[]want{{"FieldValueInvalid", "spec.network.subnets[s].cidr", "field is immutable"}}},
		{"once: set later", func(w *v1.Widget) { w.Spec.Seed = "s" }, nil},
		{"no omitempty: empty list becomes null", func(w *v1.Widget) { w.Spec.Items = nil },
			[]want{{"FieldValueInvalid", "spec.items", "field is immutable"}}},
		{"no omitempty: empty map becomes null", func(w *v1.Widget) { w.Spec.Counts = nil },
			[]want{{"FieldValueInvalid", "spec.counts", "field is immutable"}}},
		{"IntOrString: integer to the same string", func(w *v1.Widget) { w.Spec.Target = intstr.FromString("80") },
			[]want{{"FieldValueInvalid", "spec.target", "field is immutable"}}},
		{"Quantity: equal amount, other form", func(w *v1.Widget) { w.Spec.Memory = ptr(resource.MustParse("1024")) },
			[]want{{"FieldValueInvalid", "spec.memory", "field is immutable"}}},
		{"Quantity: same form", func(w *v1.Widget) { w.Spec.Memory = ptr(resource.MustParse("1Ki")) }, nil},
		{"Time: same second", func(w *v1.Widget) { w.Spec.Created = metav1.Unix(100, 999) }, nil},
		{"Time: to zero (null)", func(w *v1.Widget) { w.Spec.Created = metav1.Time{} },
			[]want{{"FieldValueInvalid", "spec.created", "field is immutable"}}},
		{"RawExtension: same JSON value, other bytes", func(w *v1.Widget) { w.Spec.Raw.Raw = []byte(`{ "a" : 1.0 }`) }, nil},
		{"RawExtension: list reordered", func(w *v1.Widget) { w.Spec.Raw.Raw = []byte(`[2,1]`) },
			[]want{{"FieldValueInvalid", "spec.raw", "field is immutable"}}},
		{"apiextensions JSON: set to null is present", func(w *v1.Widget) { w.Spec.Config = &apiextv1.JSON{} },
			[]want{{"FieldValueForbidden", "spec.config", `field "config" is immutable and may not be added`}}},
		{"own MarshalJSON: compared as written", func(w *v1.Widget) { w.Spec.Color.G = 1 },
			[]want{{"FieldValueInvalid", "spec.color", "field is immutable"}}},
		{"optional parent removed with its immutable fields", func(w *v1.Widget) { w.Spec.Storage = nil }, nil},
		{"embedded pointer set: its immutable field appears", func(w *v1.Widget) { w.Spec.Extra = &v1.Extra{Region: "r"} },
			[]want{{"FieldValueForbidden", "spec.region", `field "region" is immutable and may not be added`}}},
		{"inline embedded field changed", func(w *v1.Widget) { w.Spec.Network.Gateway = "g" },
			[]want{{"FieldValueForbidden", "spec.network.gateway", `field "gateway" is immutable and may not be added`}}},
		{"all violations, in order", func(w *v1.Widget) { w.Spec.Name, w.Spec.Network.VPC, w.Spec.Class = "x", "y", "z" },
			[]want{
				{"FieldValueForbidden", "spec.class", `field "class" is immutable and may not be added`},
				{"FieldValueInvalid", "spec.name", "field is immutable"},
				{"FieldValueInvalid", "spec.network.vpc", "field is immutable"},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := base()
			obj := old.DeepCopy()
			tc.change(obj)
			got := obj.ValidateImmutableUpdate(old)
			var gotW []want
			for _, e := range got {
				gotW = append(gotW, want{string(e.Type), e.Field, e.Detail})
				if e.Origin != "immutable" {
					t.Errorf("origin = %q", e.Origin)
				}
			}
			if len(gotW) != len(tc.want) {
				t.Fatalf("got %v, want %v", gotW, tc.want)
			}
			for i := range gotW {
				if gotW[i] != tc.want[i] {
					t.Errorf("error %d: got %v, want %v", i, gotW[i], tc.want[i])
				}
			}
			if r := describe(viaRuntime(t, c, obj, old)); r != describe(got) {
				t.Errorf("the runtime says:\n%sthe typed validator:\n%s", r, describe(got))
			}
		})
	}
}

// TestOnceRemoved checks +immutable=once refuses a removal.
func TestOnceRemoved(t *testing.T) {
	old := base()
	old.Spec.Seed = "s"
	old.Spec.Owner = &v1.Owner{Kind: "k"}
	obj := old.DeepCopy()
	obj.Spec.Seed, obj.Spec.Owner = "", nil
	got := describe(obj.ValidateImmutableUpdate(old))
	want := "Forbidden | spec.owner | field \"owner\" is immutable once set and may not be removed | immutable\n" +
		"Forbidden | spec.seed | field \"seed\" is immutable once set and may not be removed | immutable\n"
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	if r := describe(viaRuntime(t, widget(t), obj, old)); r != got {
		t.Errorf("the runtime says:\n%s", r)
	}
}

// TestNilObjects checks a nil object is absent: nothing is compared.
func TestNilObjects(t *testing.T) {
	var none *v1.Widget
	if errs := none.ValidateImmutableUpdate(base()); errs != nil {
		t.Errorf("nil new: %v", errs)
	}
	if errs := base().ValidateImmutableUpdate(nil); errs != nil {
		t.Errorf("nil old: %v", errs)
	}
}
