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
	chk := widgetChecker(b)
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
