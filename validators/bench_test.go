package validators_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	v1 "github.com/immutable-gen/immutable-gen/testdata/apis/validators/v1"
)

// The generated validator of the test API beside the unstructured runtime
// on the JSON of the same objects: a full Widget (every field set but
// spec.color, whose MarshalJSON allocates), updated
// with nothing changed, one immutable field changed, and a set reordered.
//
//	go test ./validators -run '^$' -bench . -benchmem -count 6

func benchObjects(b *testing.B) (old, unchanged, changed, reordered *v1.Widget) {
	g := &gen{r: rand.New(rand.NewPCG(5, 6)), full: true}
	old = &v1.Widget{}
	g.fill(reflect.ValueOf(old).Elem(), 0)
	old.Spec.Tags = []string{"a", "b", "c", "d"}
	// Without the field whose own MarshalJSON (fmt.Sprintf) allocates.
	old.Spec.Color = nil
	unchanged = old.DeepCopy()
	changed = old.DeepCopy()
	changed.Spec.Network.VPC += "x"
	reordered = old.DeepCopy()
	reordered.Spec.Tags = []string{"d", "c", "b", "a"}
	return
}

func BenchmarkTyped(b *testing.B) {
	old, unchanged, changed, reordered := benchObjects(b)
	for _, c := range []struct {
		name string
		obj  *v1.Widget
	}{{"unchanged", unchanged}, {"one-change", changed}, {"reordered-set", reordered}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.obj.ValidateImmutableUpdate(old)
			}
		})
	}
}

func BenchmarkRuntime(b *testing.B) {
	chk := widget(b)
	old, unchanged, changed, reordered := benchObjects(b)
	om := toJSON(b, old)
	for _, c := range []struct {
		name string
		obj  *v1.Widget
	}{{"unchanged", unchanged}, {"one-change", changed}, {"reordered-set", reordered}} {
		nm := toJSON(b, c.obj)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				chk.ValidateUpdate(nm, om)
			}
		})
	}
}

// The small Widget-like kind Gadget (a name, a =keys map and list map, a
// set, an optional immutable struct), as in issue 12's measurement.

func gadgets() (old, unchanged, changed, reordered *v1.Gadget) {
	old = &v1.Gadget{Spec: v1.GadgetSpec{
		Name:   "g",
		Size:   3,
		Labels: map[string]string{"team": "a", "env": "prod"},
		Ports:  []v1.Port{{Name: "http", Number: 80}, {Name: "https", Number: 443}},
		Tags:   []string{"a", "b", "c"},
		Image:  &v1.Image{Repository: "r", Tag: "t"},
	}}
	unchanged = old.DeepCopy()
	changed = old.DeepCopy()
	changed.Spec.Name = "h"
	reordered = old.DeepCopy()
	reordered.Spec.Tags = []string{"c", "b", "a"}
	return
}

func BenchmarkTypedGadget(b *testing.B) {
	old, unchanged, changed, reordered := gadgets()
	for _, c := range []struct {
		name string
		obj  *v1.Gadget
	}{{"unchanged", unchanged}, {"one-change", changed}, {"reordered-set", reordered}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.obj.ValidateImmutableUpdate(old)
			}
		})
	}
}

func BenchmarkRuntimeGadget(b *testing.B) {
	chk := checkerFor(b, "Gadget")
	old, unchanged, changed, reordered := gadgets()
	om := toJSON(b, old)
	for _, c := range []struct {
		name string
		obj  *v1.Gadget
	}{{"unchanged", unchanged}, {"one-change", changed}, {"reordered-set", reordered}} {
		nm := toJSON(b, c.obj)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				chk.ValidateUpdate(nm, om)
			}
		})
	}
}
