// Package runtime enforces the immutability extensions of Kubernetes OpenAPI
// schemas on updates.
//
// It is the reference implementation of the update semantics of
// x-kubernetes-immutable and x-kubernetes-immutable-keys (see the KEP
// "Immutable fields" and the project's docs/semantics.md), and of
// immutable-gen's own x-immutable-gen-immutable-once (+immutable=once,
// beyond the KEP: set once, then fixed): Compile turns a
// schema carrying the extensions into a Checker, and
// (*Checker).ValidateUpdate walks a new and an old object together, guided by
// the schema, and returns one field.Error per violation, its path from the
// object's root; (*Checker).ValidateUpdateAt, after apimachinery's
// ValidateXUpdate(new, old, fldPath) convention, prefixes the paths with the
// *field.Path where the objects sit in a larger object.
//
// A Checker is built once and is then read-only: it is safe for concurrent
// use, and ValidateUpdate does not allocate when the objects are equal.
// Schemas come from anywhere: a spec.Schema built by hand (Compile,
// CompileWithDefinitions), the definitions of a kube-openapi
// GetOpenAPIDefinitions function (CompileDefinitions), or a
// CustomResourceDefinition manifest (CompileCRD). A schema without any
// extension compiles into a Checker that allows every update, which
// (*Checker).Empty reports; the enforcers built on it (runtime/enforce, the
// webhook, the admission plugin) refuse such a schema.
//
// Objects are unstructured JSON values as decoded by
// k8s.io/apimachinery (map[string]interface{}, []interface{}, string, bool,
// int64, float64, nil); other Go integer and float types and json.Number are
// accepted too. Go structs are checked with ValidateUpdateTyped.
package runtime
