package main

import (
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/output"
)

const gatewayAPI = "sigs.k8s.io/gateway-api/apis/..."

// BenchmarkGatewayAPI runs a whole crd generation in process — package
// loading, marker collection, schema generation and, for immutable-gen, its
// pipeline — on Gateway API's packages, for allocation counts and profiles:
//
//	go test -run '^$' -bench GatewayAPI -benchmem -count 6
//	go test -run '^$' -bench 'GatewayAPI/immutable-gen-cel' -benchtime 5x -cpuprofile /tmp/cpu.out -memprofile /tmp/mem.out
//
// The API has no markers: immutable-gen's CRDs are controller-gen's, and
// none is validated (docs/semantics.md, rule 7). The CLI comparison
// (`go run .`) is the one that counts: it measures whole processes, peak
// memory included, interleaved, and the API with markers.
func BenchmarkGatewayAPI(b *testing.B) {
	impls := []struct {
		name string
		gen  genall.Generator
	}{
		{"controller-gen", crd.Generator{}},
		{"immutable-gen-cel", crdgen.Generator{}.WithReport(func(diag.List) {})},
		{"immutable-gen-extensions", crdgen.Generator{Immutability: crdgen.ModeExtensions}.WithReport(func(diag.List) {})},
	}
	for _, impl := range impls {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				generateGatewayAPI(b, impl.gen)
			}
		})
	}
}

// generateGatewayAPI runs one whole generation of Gateway API's CRDs with gen.
func generateGatewayAPI(b *testing.B, gen genall.Generator) {
	rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{}, gatewayAPI)
	if err != nil {
		b.Fatal(err)
	}
	buf := &output.Buffer{}
	ctx := rt.GenerationContext
	ctx.OutputRule = buf.Rule(genall.OutputToNothing)
	if err := gen.Generate(&ctx); err != nil {
		b.Fatal(err)
	}
	if len(buf.Artifacts) == 0 {
		b.Fatal("no CRDs")
	}
}
