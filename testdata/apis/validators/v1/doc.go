// Package v1 is the test API of the typed validators: every marker form on
// structs, pointers, scalars, sets, list maps with one and two keys, maps,
// omitempty and required fields. Its zz_generated.immutable.go is generated
// by `immutable-gen validators` (the golden test keeps it current) and
// checked against the runtime by validators' differential test. After a
// change of the types or the generator, regenerate before the tests can
// compile:
//
//	go run ./cmd/immutable-gen object validators paths=./testdata/apis/validators/...
//	go test ./validators -run TestGolden -update
//
// +kubebuilder:object:generate=true
// +groupName=validators.example.com
package v1
