// Package validators compares immutable-gen's immutability checks with
// Kubernetes' validation-gen (k8s.io/code-generator at the version go.mod
// pins) on two test APIs whose fields carry both +immutable and
// +k8s:immutable: a peer differential on random objects and mutations, and
// benchmarks of both generators' code against the unstructured runtime.
//
// Regenerate everything with `go generate .` in this module; the test
// TestGeneratedUpToDate fails when a committed file differs from what the
// generators write.
package validators

// Deep-copy code and the CRDs with the KEP's extensions (for runtime.Compile):
//go:generate go tool immutable-gen object crd:immutability=extensions paths=./apis/... output:crd:dir=./config/crd
// immutable-gen's typed validators, ValidateImmutableUpdate:
//go:generate go tool immutable-gen validators paths=./apis/...
// validation-gen's Validate_* functions:
//go:generate go tool validation-gen --go-header-file=./hack/boilerplate.go.txt --output-file=zz_generated.validations.go --readonly-pkg=k8s.io/apimachinery/pkg/apis/meta/v1,k8s.io/apimachinery/pkg/types,k8s.io/apimachinery/pkg/runtime,k8s.io/apimachinery/pkg/util/intstr,k8s.io/apimachinery/pkg/api/resource,time ./apis/widget/v1 ./apis/deploy/v1
