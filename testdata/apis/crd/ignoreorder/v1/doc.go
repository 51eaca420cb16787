// Package v1 is a test API with +immutable:ignoreOrder beside +immutable
// and +immutable=once, after JobSet: list maps whose order means nothing,
// without MaxItems where they are not inside another list (the CEL rule is
// self == oldSelf, which needs no bound for the order), one of them inside
// the items of an unbounded list map.
// +groupName=ignoreorder.example.com
package v1
