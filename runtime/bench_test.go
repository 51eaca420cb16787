package runtime_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// The comparative benchmarks (CEL, DeepEqual, whole update validation) are
// in internal/runtimebench, to keep their dependencies out of this
// package's tests.

func BenchmarkValidateUpdate(b *testing.B) {
	c := database(b)
	oldObj, newObj := realisticPair(b)
	b.Run("unchanged", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if errs := c.ValidateUpdate(newObj, oldObj); errs != nil {
				b.Fatal(errs)
			}
		}
	})
	allowed := deepCopy(newObj)
	spec := allowed["spec"].(map[string]interface{})
	spec["replicas"] = int64(5)
	spec["zones"] = reversed(spec["zones"].([]interface{}))
	spec["template"].(map[string]interface{})["spec"].(map[string]interface{})["containers"] =
		reversed(spec["template"].(map[string]interface{})["spec"].(map[string]interface{})["containers"].([]interface{}))
	b.Run("allowed-change", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if errs := c.ValidateUpdate(allowed, oldObj); errs != nil {
				b.Fatal(errs)
			}
		}
	})
	rejected := deepCopy(newObj)
	rejected["spec"].(map[string]interface{})["serviceName"] = "other"
	b.Run("one-violation", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if errs := c.ValidateUpdate(rejected, oldObj); len(errs) != 1 {
				b.Fatal(errs)
			}
		}
	})
}

func reversed(l []interface{}) []interface{} {
	out := make([]interface{}, len(l))
	for i, v := range l {
		out[len(l)-1-i] = v
	}
	return out
}

// BenchmarkSet checks an immutable set of n strings, in order and
// reordered (the 10,000-item reordered set must take well under 5 ms).
func BenchmarkSet(b *testing.B) {
	c := widget(b)
	for _, n := range []int{100, 10000} {
		old := make([]interface{}, n)
		for i := range old {
			old[i] = fmt.Sprintf("item-%05d.example.com", i)
		}
		same := make([]interface{}, n)
		copy(same, old)
		perm := make([]interface{}, n)
		copy(perm, old)
		rand.New(rand.NewSource(1)).Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for _, tc := range []struct {
			name  string
			items []interface{}
		}{{"in-order", same}, {"reordered", perm}} {
			b.Run(fmt.Sprintf("%s-%d", tc.name, n), func(b *testing.B) {
				newObj := withSpec(map[string]interface{}{"tags": tc.items})
				oldObj := withSpec(map[string]interface{}{"tags": old})
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if errs := c.ValidateUpdate(newObj, oldObj); errs != nil {
						b.Fatal(errs)
					}
				}
			})
		}
	}
}

func BenchmarkCompileCRD(b *testing.B) {
	manifest, err := os.ReadFile(filepath.Join("testdata", "database-crd.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := runtime.CompileCRD(manifest, runtime.CRDOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
