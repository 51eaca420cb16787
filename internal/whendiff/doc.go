// Package whendiff holds the differential of runtime/when against the API
// server's CEL: random objects of a fixed schema and random conditions
// from a grammar of the subset, with every condition the repository's
// testdata, examples and docs write, evaluated by the API server's CRD
// validator (a root rule `!(<condition>)`, as the generator lowers
// +immutable:when) and by runtime/when; every verdict (true, false, error)
// must be equal. It lives in the generator's module, which has the API
// server's libraries; the runtime module does not.
package whendiff
