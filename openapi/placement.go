package openapi

import (
	"fmt"

	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/validation"
)

// The placement checks of DESIGN.md 2.2, on schema nodes as openapi-gen
// publishes them. Their wording follows the CRD path (package validation),
// so that a misplaced marker reads the same whichever output is generated.

// kind is the JSON shape of a schema node.
type kind int

const (
	scalarKind kind = iota
	structKind
	mapKind
	listKind
)

// shape describes one schema node as openapi-gen publishes it, for the
// placement checks.
type shape struct {
	kind kind
	// scalar is the OpenAPI type of a scalar ("string", "integer", …), or
	// "free-form" for an interface.
	scalar string
	// listType is the node's +listType ("" for none, which is atomic). Only
	// a field's own comments set it: openapi-gen reads +listType, +mapType
	// and +listMapKey from the field, never from a named type.
	listType string
	// mapType is the node's +mapType ("" for none, which is granular).
	mapType string
	// typeListType is the +listType on the node's named slice type, which
	// openapi-gen ignores (controller-gen does not), with the type's name.
	typeListType, typeName string
}

// problem is a placement error: what is wrong and what to do.
type problem struct {
	msg, fix string
}

// keysProblem checks rule 2: =keys only on a map that is not atomic, or on a
// +listType=map list. It returns nil when =keys is allowed on s.
func keysProblem(s shape) *problem {
	switch s.kind {
	case mapKind:
		if s.mapType == "atomic" {
			return &problem{"=keys is not allowed on an atomic map: it has no keys of its own to keep",
				"use +immutable, or drop +mapType=atomic"}
		}
		return nil
	case listKind:
		switch s.listType {
		case "map":
			return nil
		case "set":
			return &problem{"=keys is not allowed on a +listType=set list (KEP: set items are keys, so only +immutable is allowed)",
				"use +immutable: the items of a set are their own keys"}
		case "":
			if s.typeListType != "" {
				return &problem{fmt.Sprintf("=keys is not allowed on an atomic list, and this list is atomic: openapi-gen reads +listType from the field's comments only, and ignores the +listType=%s of type %s", s.typeListType, s.typeName),
					"add +listType=map and +listMapKey=<field> to the field's comments"}
			}
		}
		return &problem{"=keys is not allowed on an atomic list: it has no keys",
			"use +immutable, or make it a list map with +listType=map and +listMapKey=<field> on the field"}
	case structKind:
		return &problem{"=keys is not allowed on a struct: only maps and +listType=map lists have keys",
			"use +immutable on the struct or on its fields"}
	}
	t := s.scalar
	if t == "" {
		t = "untyped"
	}
	return &problem{fmt.Sprintf("=keys is not allowed on a %s value: only maps and +listType=map lists have keys", t),
		"use +immutable"}
}

// propertyProblem checks rule 1 for a field marker on the property name of
// the root type of a kind: not on metadata, apiVersion or kind. It returns
// nil when the property may carry a marker.
func propertyProblem(kindRoot bool, name string) *problem {
	if !kindRoot {
		return nil
	}
	switch name {
	case "metadata":
		return &problem{"not allowed on the object's metadata or anything inside it: the API server owns object metadata (KEP: forbidden inside .metadata)",
			"remove the marker"}
	case "apiVersion", "kind":
		return &problem{fmt.Sprintf("not allowed on the object's %s: it is set by the API machinery, and immutable implicitly", name),
			"remove the marker"}
	}
	return nil
}

// rootProblem is rule 1 for a type-level marker on the root type of a kind.
func rootProblem() problem {
	return problem{
		"not allowed on the root type of a kind: the whole object would be immutable, including its metadata and status (KEP: forbidden at the root)",
		"mark the fields of spec (or spec itself) instead",
	}
}

// inlineProblem is a marker on an embedded field whose properties openapi-gen
// inlines into the enclosing struct: there is no node of its own to mark.
func inlineProblem(o markers.Origin, embedded, enclosing string) problem {
	return problem{
		fmt.Sprintf("%s is not allowed on the embedded (inline) field %s: its properties belong to %s", o.Marker(), embedded, enclosing),
		fmt.Sprintf("mark the fields of %s, or the type %s itself with +immutable", embedded, embedded),
	}
}

// exclusiveProblem checks rule 3: +immutable, +immutable=keys and
// +immutable=once exclude each other on one node, also when one comes from
// the type and another from the field. It returns one problem per origin,
// in the order of origins, or nil when the node carries one form only. The
// texts are the CRD path's (validation.Exclusive).
func exclusiveProblem(origins []markers.Origin) []problem {
	var out []problem
	for _, p := range validation.Exclusive(origins) {
		out = append(out, problem{p.Message, p.Fix})
	}
	return out
}

// keyField is one list map key of a list map's item struct, for rule 4.
type keyField struct {
	json string
	// goName is `Type.Field`, pos its declaration; empty when the item
	// struct has no field with that JSON name.
	goName, pos string
	immutable   bool
}

// listMapKeyProblems checks rule 4: =keys on a list map requires every key
// property to be immutable. itemImmutable is true when the whole item is.
func listMapKeyProblems(itemImmutable bool, keys []keyField) []problem {
	if itemImmutable {
		return nil
	}
	var out []problem
	for _, k := range keys {
		if k.immutable || k.goName == "" {
			continue // a key the item does not have is refused by the API server's own checks
		}
		out = append(out, problem{
			fmt.Sprintf("=keys on a list map requires its key %q to be immutable (KEP: the map keys are enforced immutable)", k.json),
			fmt.Sprintf("add // +immutable to the key field %s (%s)", k.goName, k.pos),
		})
	}
	return out
}
