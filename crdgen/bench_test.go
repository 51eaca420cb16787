package crdgen

import (
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"

	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/output"
)

// BenchmarkGenerate compares a whole CRD generation run — package loading,
// marker collection, schema generation, and for immutable-gen the
// immutability pipeline with every generation-time check (placement rules
// and the API server's CRD validation) — with controller-gen's crd generator
// on the same packages: testdata/apis/bench wraps the specs and statuses of
// 24 built-in kinds of k8s.io/api (core, apps, batch, networking, policy,
// autoscaling, storage) as custom resources with immutability markers.
//
//	go test ./crdgen -run '^$' -bench Generate -benchmem -count 6 | tee /tmp/gen.txt && benchstat /tmp/gen.txt
func BenchmarkGenerate(b *testing.B) {
	impls := []struct {
		name string
		gen  genall.Generator
		// failOK: the CEL rules of this API exceed the cost budget (its
		// lists and strings are unbounded), so the run ends in errors after
		// doing all the work; it is measured all the same.
		failOK bool
	}{
		{"controller-gen", crd.Generator{}, false},
		{"immutable-gen-extensions", Generator{Immutability: ModeExtensions}.WithReport(func(diag.List) {}).WithServer(apiserver.InProcess{}), false},
		{"immutable-gen-cel", Generator{Immutability: ModeCEL}.WithReport(func(diag.List) {}).WithServer(apiserver.InProcess{}), true},
	}
	for _, impl := range impls {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				gen := impl.gen
				rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{}, "../testdata/apis/bench/...")
				if err != nil {
					b.Fatal(err)
				}
				buf := &output.Buffer{}
				ctx := rt.GenerationContext
				ctx.OutputRule = buf.Rule(genall.OutputToNothing)
				err = gen.Generate(&ctx)
				if impl.failOK {
					continue
				}
				if err != nil {
					b.Fatal(err)
				}
				if len(buf.Artifacts) != 24 {
					b.Fatalf("%d CRDs, want 24", len(buf.Artifacts))
				}
			}
		})
	}
}
