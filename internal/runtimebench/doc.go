// Package runtimebench holds the comparative benchmarks of the runtime: the API
// server's CEL validator running hand-written transition rules, reflect and
// semantic DeepEqual on the same subtrees, and the API server's whole update
// validation with and without the check. It has no code of its own: its
// benchmarks live in bench_test.go, so that their heavy dependencies stay
// out of every build but this package's tests.
package runtimebench
