package e2e

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkUpdateVerdict measures one update's verdict two ways, on the
// same objects: the API server's own dry-run round trip (PUT ?dryRun=All
// over HTTPS to the in-process apiextensions-apiserver, as kubectl apply
// --dry-run=server would), and preflight's in-process check. The objects
// are 50 random stored objects of the rules CRD and random updates of them
// (half refused, half allowed, roughly).
//
//	(cd e2e && go test -run '^$' -bench BenchmarkUpdateVerdict -benchmem -count 6 .)
func BenchmarkUpdateVerdict(b *testing.B) {
	s := startServer(b)
	p := newParity(b, s, parityCRDs[0].file, 7)
	_, p.gvr = s.installCRD(b, parityCRDs[0].file)
	p.res = s.dyn.Resource(p.gvr).Namespace(namespace)
	c := p.checker(b)
	type pair struct{ old, new map[string]interface{} }
	var pairs []pair
	ctx := context.Background()
	for i := 0; len(pairs) < 200 && i < 10000; i++ {
		obj := p.object(fmt.Sprintf("bench-%03d", len(pairs)/4), p.gen.Spec())
		if res, _ := c.Create(obj); !res.Allowed() {
			continue
		}
		created, err := p.res.Create(ctx, unstr(obj), metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 4; j++ {
			spec, _ := p.gen.Mutate(created.Object["spec"])
			n := p.object(created.GetName(), spec)
			n["metadata"].(map[string]interface{})["resourceVersion"] = created.GetResourceVersion()
			pairs = append(pairs, pair{created.Object, n})
		}
	}
	rejected := 0
	for _, pr := range pairs {
		if res, _ := c.Update(pr.new, pr.old); !res.Allowed() {
			rejected++
		}
	}
	b.Logf("%d updates of %d stored objects, %d rejected", len(pairs), len(pairs)/4, rejected)

	b.Run("server-dry-run", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			pr := pairs[i%len(pairs)]
			_, _ = p.res.Update(ctx, unstr(pr.new), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		}
	})
	b.Run("preflight", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			pr := pairs[i%len(pairs)]
			if _, err := c.Update(pr.new, pr.old); err != nil {
				b.Fatal(err)
			}
		}
	})
}
