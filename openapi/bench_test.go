package openapi

import "testing"

// BenchmarkGenerateKubernetesAPI runs the generator on Kubernetes' core,
// apps and batch APIs (loaded once): openapi-gen publishes hundreds of
// definitions there and none has a marker, so this is what the immutability
// model costs a large API that does not use it.
func BenchmarkGenerateKubernetesAPI(b *testing.B) {
	roots := load(b, "k8s.io/api/core/v1", "k8s.io/api/apps/v1", "k8s.io/api/batch/v1")
	for b.Loop() {
		out, diags, err := generateFrom(b, Generator{}, roots)
		if err != nil || len(diags) > 0 || len(out) != 3 {
			b.Fatalf("wrote %d files, want 3; %v\n%s", len(out), err, diags)
		}
	}
}

// BenchmarkGenerateTestAPI runs the generator on the test API (loaded once),
// whose markers need the trees of its definitions: what the model costs an
// API that uses it.
func BenchmarkGenerateTestAPI(b *testing.B) {
	roots := load(b, "./testdata/apis/openapi/v1")
	for b.Loop() {
		out, diags, err := generateFrom(b, Generator{}, roots)
		if err != nil || len(diags) > 0 || len(out) != 1 {
			b.Fatalf("wrote %d files, want 1; %v\n%s", len(out), err, diags)
		}
	}
}
