// Package jsontag reads the json tag of a Go struct field: the property
// name and the options that encoding/json, controller-tools and
// openapi-gen derive a field's JSON property from. It is the one reader of
// the tag for markers, openapi and validators; each applies the rule of the
// tool it follows for a field without a name (encoding/json and openapi-gen
// use the Go name, controller-tools inlines an embedded field and leaves
// out a field without a tag).
package jsontag

import (
	"reflect"
	"slices"
	"strings"
)

// Tag is a parsed json tag.
type Tag struct {
	// Name is the property name written in the tag; "" when none is.
	Name string
	// Options are the comma-separated options after the name, in order.
	Options []string
}

// Lookup parses the json tag of a struct tag; false when there is none.
func Lookup(tag reflect.StructTag) (Tag, bool) {
	v, ok := tag.Lookup("json")
	if !ok {
		return Tag{}, false
	}
	return Parse(v), true
}

// Parse parses the value of a json tag (`name,omitempty`).
func Parse(v string) Tag {
	name, rest, hasOpts := strings.Cut(v, ",")
	t := Tag{Name: name}
	if hasOpts {
		t.Options = strings.Split(rest, ",")
	}
	return t
}

// Has reports whether the tag has the option opt (`omitempty`).
func (t Tag) Has(opt string) bool { return slices.Contains(t.Options, opt) }

// Ignored reports whether the tag is `json:"-"`: encoding/json leaves the
// field out (`json:"-,"` names a property "-").
func (t Tag) Ignored() bool { return t.Name == "-" && t.Options == nil }

// Inline reports whether controller-tools inlines the field's properties
// into the enclosing struct: the tag has no name, or the inline option.
func (t Tag) Inline() bool { return t.Name == "" || t.Has("inline") }

// String renders the tag's value as written (`name,omitempty`).
func (t Tag) String() string {
	if t.Options == nil {
		return t.Name
	}
	return t.Name + "," + strings.Join(t.Options, ",")
}
