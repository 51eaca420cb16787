package main

import (
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"

	"github.com/immutable-gen/immutable-gen/cache"
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
// With cache=warm, a run before the timer starts fills the cache (in a
// temporary directory): every timed run finds the API server's findings
// there; with cache=off every run validates every CRD. The CLI
// comparison (`go run .`) is the one that counts: it measures whole
// processes, peak memory included, interleaved.
func BenchmarkGatewayAPI(b *testing.B) {
	warm := b.TempDir()
	impls := []struct {
		name  string
		gen   genall.Generator
		cache string // IMMUTABLE_GEN_CACHE
	}{
		{"controller-gen", crd.Generator{}, ""},
		{"immutable-gen-cel/cache=off", crdgen.Generator{}.WithReport(func(diag.List) {}), "off"},
		{"immutable-gen-cel/cache=warm", crdgen.Generator{}.WithReport(func(diag.List) {}), warm},
		{"immutable-gen-extensions/cache=off", crdgen.Generator{Immutability: crdgen.ModeExtensions}.WithReport(func(diag.List) {}), "off"},
		{"immutable-gen-extensions/cache=warm", crdgen.Generator{Immutability: crdgen.ModeExtensions}.WithReport(func(diag.List) {}), warm},
	}
	for _, impl := range impls {
		b.Run(impl.name, func(b *testing.B) {
			b.Setenv(cache.EnvVar, impl.cache)
			if impl.cache == warm {
				generateGatewayAPI(b, impl.gen) // fills the cache, before the timer starts
			}
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
