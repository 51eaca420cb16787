// Package v1 is a test API whose +immutable:when conditions each carry one
// mistake a new user makes: not CEL, not a bool, an optional field read
// without has(), a field the schema does not have, a construct outside the
// runtime's subset (extensions output only), and one written right.
// +groupName=whenerrors.example.com
package v1
