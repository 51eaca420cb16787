package preflight_test

import (
	"testing"

	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
)

// BenchmarkUpdate checks random updates of random objects of the rules
// CRD, as TestMatchesValidators makes them.
//
//	go test ./preflight -run '^$' -bench Update -benchmem
func BenchmarkUpdate(b *testing.B) {
	lib, crd := newLibrary(b, rulesCRD)
	c := checker(b, rulesCRD)
	g := preflighttest.New(lib.schema, 7)
	type pair struct{ old, new map[string]interface{} }
	var pairs []pair
	for len(pairs) < 200 {
		old := map[string]interface{}{"apiVersion": crd.Spec.Group + "/v1", "kind": "Rule",
			"metadata": map[string]interface{}{"name": "x", "namespace": "ns"}, "spec": g.Spec()}
		if res, _ := c.Create(old); !res.Allowed() {
			continue
		}
		spec, _ := g.Mutate(old["spec"])
		n := map[string]interface{}{"apiVersion": old["apiVersion"], "kind": "Rule", "metadata": old["metadata"], "spec": spec}
		pairs = append(pairs, pair{roundTrip(b, old), roundTrip(b, n)})
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		pr := pairs[i%len(pairs)]
		if _, err := c.Update(pr.new, pr.old); err != nil {
			b.Fatal(err)
		}
	}
}
