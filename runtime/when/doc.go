// Package when evaluates the conditions of +immutable:when in the runtime:
// a subset of CEL, parsed by Parse and evaluated by (*Expr).Eval on
// decoded JSON objects with the API server's CEL semantics exactly —
// values typed by the schema (Schema), errors and their absorption by &&,
// || and the macros, heterogeneous equality, lists of type set and map
// compared ignoring order.
//
// The subset is what the conditions of real APIs are written with: field
// access on self and oldSelf (the new and old objects at the kind's root),
// has(), == != < <= > >=, !, && || and ?:, in on lists and maps, size()
// (function and method), exists, all and exists_one over lists and maps
// (a map's keys), startsWith, endsWith and contains, indexing x[i] and
// x['k'], list literals, and string, int, uint, double, bool and null
// literals with CEL's syntax (quotes, escapes, raw and triple-quoted
// strings). Anything else CEL has is refused by Parse with its column and
// the construct's name; docs/semantics.md ("The condition subset") lists
// both with the reasons.
//
// It is its own parser and evaluator rather than cel-go, so that the
// runtime module keeps its floors and its users' module graphs stay
// small (docs/architecture.md). Nothing here recurses or loops without
// bound: Parse refuses conditions longer than MaxLength or nested deeper
// than MaxDepth, and Eval stops at MaxCost.
package when
