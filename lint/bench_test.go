package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/genall"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/internal/cputime"
	"github.com/immutable-gen/immutable-gen/output"
)

// BenchmarkFiles100 lints 100 CRD manifests in one Files call, as
// `immutable-gen lint DIR` does (reading, parsing, every check, the API
// server's CRD validation). The corpus: the 24 CRDs generated from
// testdata/apis/bench (built-in kinds of k8s.io/api — pods, workloads,
// services, storage, policy — as custom resources, 5 KB to 1.5 MB each,
// with the CEL rules controller-tools generates for k8s.io/api's own
// +k8s:immutable markers) and the 16 CRDs committed under testdata and
// examples (CEL and extensions; Gateway API, cert-manager and Karpenter
// shapes), repeated to 100 files. Two sets: "all" takes every CRD of the
// corpus (mean 346 KB, 34 MB in all); "typical" those under 200 KB (mean
// 26 KB).
//
//	go test ./lint -run '^$' -bench Files100 -benchtime 5x
func BenchmarkFiles100(b *testing.B) {
	corpus := benchCorpus(b)
	for _, set := range []struct {
		name string
		keep func([]byte) bool
	}{
		{"all", func([]byte) bool { return true }},
		{"typical", func(d []byte) bool { return len(d) < 200<<10 }},
	} {
		var picked [][]byte
		for _, d := range corpus {
			if set.keep(d) {
				picked = append(picked, d)
			}
		}
		dir := b.TempDir()
		var size int64
		for i := range 100 {
			d := picked[i%len(picked)]
			size += int64(len(d))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("crd%03d.yaml", i)), d, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(size)
			cpu0 := cputime.Process()
			for b.Loop() {
				if _, err := Files([]string{dir}); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time, all threads: on a shared machine it varies less
			// than the wall time.
			b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(size)/100/1024, "KB/CRD")
		})
	}
}

// benchCorpus generates the bench API's CRDs in memory and adds the
// committed ones.
func benchCorpus(b *testing.B) [][]byte {
	b.Helper()
	var gen genall.Generator = crdgen.Generator{Immutability: crdgen.ModeExtensions}.WithReport(func(diag.List) {}).WithServer(apiserver.InProcess{})
	rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{}, "../testdata/apis/bench/...")
	if err != nil {
		b.Fatal(err)
	}
	buf := &output.Buffer{}
	ctx := rt.GenerationContext
	ctx.OutputRule = buf.Rule(genall.OutputToNothing)
	if err := gen.Generate(&ctx); err != nil {
		b.Fatal(err)
	}
	var corpus [][]byte
	for _, a := range buf.Artifacts {
		corpus = append(corpus, a.Data)
	}
	if len(corpus) != 24 {
		b.Fatalf("%d bench CRDs, want 24", len(corpus))
	}
	var committed []string
	for _, pattern := range []string{"../testdata/golden/crd/*/*.yaml", "../examples/config/crd/*/*.yaml", "../testdata/lint/wellknown/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		committed = append(committed, m...)
	}
	slices.Sort(committed)
	for _, f := range committed {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		corpus = append(corpus, d)
	}
	return corpus
}
