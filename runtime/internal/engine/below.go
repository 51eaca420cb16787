package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Field returns the Checker of the value at path, a chain of property
// names from the root of c's schema (Field("spec", "template")), for a
// caller that validates that value on its own, as apimachinery's
// ValidateXUpdate functions validate a part of an object. What is marked
// at and below the value is checked as c checks it; the value's own
// presence (its addition or removal) is the caller's, as the check starts
// where both values are present.
//
// A condition (x-immutable-gen-when) reads the kind's whole objects, not
// the value: a Checker that Field made evaluates its conditions on the
// objects given to ValidateUpdateBelow, typed by c's schema, which must be
// the kind's (Compile the kind's schema, then take its fields; a Checker
// compiled from a part of the schema types its conditions by that part as
// if it were the root). Where a condition must be evaluated and
// ValidateUpdate or ValidateUpdateAt was called, which do not have the
// kind's objects, the update is refused with a field.ErrorTypeInternal
// that says so.
//
// Field fails on a name the schema does not have as a property (a key of
// additionalProperties or a list item has no one schema path of its own to
// name) and on an empty path.
func (c *Checker) Field(path ...string) (*Checker, error) {
	if c == nil {
		return nil, fmt.Errorf("runtime: Field of a nil Checker")
	}
	if len(path) == 0 {
		return nil, fmt.Errorf("runtime: Field: no path")
	}
	n := c.root
	for i, name := range path {
		var next *node
		if n.structure != nil {
			next = n.structure.propIndex[name]
		}
		if next == nil {
			return nil, fmt.Errorf("runtime: Field: %s has no property %q", fieldName(c.field, path[:i]), name)
		}
		n = next
	}
	return &Checker{root: n, h: c.h, whenRoot: c.whenRoot, field: fieldName(c.field, path)}, nil
}

// fieldName joins a Checker's field and a path below it: "spec.template".
func fieldName(base string, path []string) string {
	name := strings.Join(path, ".")
	switch {
	case base == "" && name == "":
		return "the root"
	case base == "":
		return name
	case name == "":
		return base
	}
	return base + "." + name
}

// ValidateUpdateBelow is ValidateUpdateAt for a Checker that Field made:
// obj and old are the values at its field, found at fldPath, and root and
// oldRoot the kind's whole new and old objects, which its conditions
// (x-immutable-gen-when) read as self and oldSelf. A condition's failure
// refuses the update with one field.ErrorTypeInvalid at fldPath. For a
// Checker of the kind itself, root and oldRoot are ignored: its conditions
// read obj and old.
func (c *Checker) ValidateUpdateBelow(obj, old map[string]interface{}, fldPath *field.Path, root, oldRoot map[string]interface{}) field.ErrorList {
	if c == nil || c.field == "" {
		return c.ValidateUpdateAt(obj, old, fldPath)
	}
	return c.validateIn(obj, old, root, oldRoot, fldPath, false)
}
