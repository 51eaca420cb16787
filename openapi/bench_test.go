package openapi

import (
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/diag"
)

// BenchmarkGenerateKubernetesAPI runs the generator on Kubernetes' core,
// apps and batch APIs (loaded once): openapi-gen publishes hundreds of
// definitions there and none has a marker, so this is what the immutability
// model costs a large API that does not use it.
func BenchmarkGenerateKubernetesAPI(b *testing.B) {
	cfg := &packages.Config{Dir: moduleRoot(b)}
	roots, err := loader.LoadRootsWithConfig(cfg, "k8s.io/api/core/v1", "k8s.io/api/apps/v1", "k8s.io/api/batch/v1")
	if err != nil {
		b.Fatal(err)
	}
	gen := Generator{}
	for b.Loop() {
		reg := &ctmarkers.Registry{}
		if err := gen.RegisterMarkers(reg); err != nil {
			b.Fatal(err)
		}
		out := memOutput{}
		ctx := &genall.GenerationContext{
			Collector:  &ctmarkers.Collector{Registry: reg},
			Roots:      roots,
			Checker:    &loader.TypeChecker{NodeFilters: []loader.NodeFilter{gen.CheckFilter()}},
			OutputRule: out,
			InputRule:  genall.InputFromFileSystem,
		}
		if err := gen.WithReport(func(diag.List) {}).Generate(ctx); err != nil {
			b.Fatal(err)
		}
		if len(out) != 3 {
			b.Fatalf("wrote %d files, want 3", len(out))
		}
	}
}
