// Package engine is the runtime's compiled plan and JSON engine: Compile
// and its loaders turn a schema into a Checker (the plan: one node per
// schema position, with its immutability and structure), and the Checker
// decodes objects guided by the plan (one walk over the JSON that skips
// what the check never reads and keeps values compared whole as their
// bytes), compares them (bytes first, decoded values where the bytes
// differ), hashes and marshals them.
//
// Package runtime is its public face: runtime.Checker has this Checker's
// representation and the methods users call. runtime/webhook, which may
// import this package (it is under runtime/), converts a *runtime.Checker
// to a *Checker for what only it uses: the trusted decoding of bytes
// controller-runtime's AdmissionReview decoder validated (DecodeTrusted,
// DecodeOldTrusted) and the check that renders a denial's values from the
// bytes (ValidateUpdateMarshaled, MarshaledValue).
package engine
