package runtime_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

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

// BenchmarkPodSet: the immutable-heavy objects of the webhook load test
// (testdata/podset: a 9.1 KB PodSet, 8.4 KB of it under immutable markers
// — an immutable list map of containers, an immutable list of volumes, an
// immutable set, a map with immutable values; bench/webhook generates
// them), updated twice: replicas changed (allowed) and a container's image
// changed (denied).
//
//   - ValidateUpdate: on the unstructured objects, decoded in full as the
//     API server decodes them;
//   - DecodeObject+check: from the two JSON documents (DecodeObject,
//     DecodeOldObject, ValidateUpdate);
//   - DecodeObject+marshaled: the same with ValidateUpdateMarshaled, as
//     the webhook does (a denial's value written from its bytes);
//   - DecodeObject-trusted+marshaled: the same in trusted mode, as the
//     webhook decodes what controller-runtime's AdmissionReview decoder
//     validated (internal/trusted);
//   - bytes.Equal: the floor, comparing two documents of the update's
//     size in full (the old document with a copy of itself: bytes.Equal on
//     the update's own two documents stops at their first difference, a
//     few hundred bytes in).
//
// Each reports x-bytes.Equal: its time per update over the floor's, timed
// in the same benchmark. (Loops over b.N: the runtime's floor is Go 1.23.)
func BenchmarkPodSet(b *testing.B) {
	manifest, err := os.ReadFile(filepath.Join("testdata", "podset", "podsets-crd.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := runtime.CompileCRD(manifest, runtime.CRDOptions{})
	if err != nil {
		b.Fatal(err)
	}
	read := func(name string) []byte {
		raw, err := os.ReadFile(filepath.Join("testdata", "podset", name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	oldJSON := read("old")
	for _, tc := range []struct {
		name   string
		errors int
	}{{"allowed", 0}, {"denied", 1}} {
		newJSON := read(tc.name)
		newObj, err1 := fullDecode(newJSON)
		oldObj, err2 := fullDecode(oldJSON)
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		same := bytes.Clone(oldJSON)
		floor := func(n int) time.Duration {
			start := time.Now()
			for j := 0; j < n; j++ {
				if !bytes.Equal(same, oldJSON) {
					b.Fatal("a copy differs")
				}
			}
			return time.Since(start)
		}
		report := func(b *testing.B, elapsed time.Duration) {
			if f := floor(b.N); f > 0 {
				b.ReportMetric(float64(elapsed)/float64(f), "x-bytes.Equal")
			}
		}
		b.Run("ValidateUpdate/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if errs := c.ValidateUpdate(newObj, oldObj); len(errs) != tc.errors {
					b.Fatal(errs)
				}
			}
			report(b, time.Since(start))
		})
		// From the two documents: decoded by DecodeObject (validating, or in
		// the trusted mode the webhook uses for what controller-runtime's
		// AdmissionReview decoder validated, internal/trusted), checked
		// by ValidateUpdate or as the webhook checks, ValidateUpdateMarshaled
		// (a changed value kept as bytes reported as its JSON, written from
		// those bytes).
		for _, path := range []struct {
			name      string
			decode    func(*runtime.Checker, []byte) (map[string]interface{}, error)
			decodeOld func(*runtime.Checker, []byte, map[string]interface{}) (map[string]interface{}, error)
			check     func(c *runtime.Checker, obj, old map[string]interface{}) field.ErrorList
		}{
			{"DecodeObject+check", (*runtime.Checker).DecodeObject, (*runtime.Checker).DecodeOldObject, (*runtime.Checker).ValidateUpdate},
			{"DecodeObject+marshaled", (*runtime.Checker).DecodeObject, (*runtime.Checker).DecodeOldObject, (*runtime.Checker).ValidateUpdateMarshaled},
			{"DecodeObject-trusted+marshaled",
				func(c *runtime.Checker, raw []byte) (map[string]interface{}, error) {
					return runtime.DecodeTrusted(c, raw)
				},
				func(c *runtime.Checker, raw []byte, obj map[string]interface{}) (map[string]interface{}, error) {
					return runtime.DecodeOldTrusted(c, raw, obj)
				},
				(*runtime.Checker).ValidateUpdateMarshaled},
		} {
			b.Run(path.name+"/"+tc.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(newJSON) + len(oldJSON)))
				start := time.Now()
				for i := 0; i < b.N; i++ {
					n, err := path.decode(c, newJSON)
					if err != nil {
						b.Fatal(err)
					}
					o, err := path.decodeOld(c, oldJSON, n)
					if err != nil {
						b.Fatal(err)
					}
					if errs := path.check(c, n, o); len(errs) != tc.errors {
						b.Fatal(errs)
					}
				}
				report(b, time.Since(start))
			})
		}
		b.Run("bytes.Equal/"+tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(same) + len(oldJSON)))
			for i := 0; i < b.N; i++ {
				if !bytes.Equal(same, oldJSON) {
					b.Fatal("a copy differs")
				}
			}
		})
	}
}

// BenchmarkShapes: every update of shapesUpdates (testdata/shapes, eight
// items in each list and map) checked on objects decoded in full
// (ValidateUpdate), from the two JSON documents with the public decoding
// (DecodeObject, DecodeOldObject, ValidateUpdateMarshaled), and as the
// webhook checked them before issue 34's Unchanged (DecodeUpdate, which
// shares the old object's byte-identical values with the new one's, and
// ValidateUpdateMarshaled), and as it checks them now (webhook: Unchanged
// first, which answers an unchanged object without decoding it).
func BenchmarkShapes(b *testing.B) {
	c := shapes(b)
	for _, u := range shapesUpdates {
		obj, old, objJSON, oldJSON := shapesPair(b, 8, u)
		name := strings.ReplaceAll(u.name, " ", "-")
		b.Run("ValidateUpdate/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if errs := c.ValidateUpdate(obj, old); len(errs) != u.errors {
					b.Fatal(errs)
				}
			}
		})
		b.Run("DecodeObject+marshaled/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(objJSON) + len(oldJSON)))
			for i := 0; i < b.N; i++ {
				n, err := c.DecodeObject(objJSON)
				if err != nil {
					b.Fatal(err)
				}
				o, err := c.DecodeOldObject(oldJSON, n)
				if err != nil {
					b.Fatal(err)
				}
				if errs := c.ValidateUpdateMarshaled(n, o); len(errs) != u.errors {
					b.Fatal(errs)
				}
			}
		})
		b.Run("DecodeUpdate+marshaled/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(objJSON) + len(oldJSON)))
			for i := 0; i < b.N; i++ {
				n, o, err1, err2 := runtime.DecodeUpdate(c, objJSON, oldJSON, true)
				if err1 != nil || err2 != nil {
					b.Fatal(err1, err2)
				}
				if errs := c.ValidateUpdateMarshaled(n, o); len(errs) != u.errors {
					b.Fatal(errs)
				}
			}
		})
		b.Run("webhook/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(objJSON) + len(oldJSON)))
			for i := 0; i < b.N; i++ {
				if runtime.Unchanged(c, objJSON, oldJSON, true) {
					if u.errors != 0 {
						b.Fatal("allowed without decoding")
					}
					continue
				}
				n, o, err1, err2 := runtime.DecodeUpdate(c, objJSON, oldJSON, true)
				if err1 != nil || err2 != nil {
					b.Fatal(err1, err2)
				}
				if errs := c.ValidateUpdateMarshaled(n, o); len(errs) != u.errors {
					b.Fatal(errs)
				}
			}
		})
	}
}
