// Package immutableopenapi adds the immutability extensions to the OpenAPI
// definitions openapi-gen generates. It is what the code immutable-gen's
// openapi generator writes (zz_generated.immutable_openapi.go) calls: the
// generated ApplyImmutability of an API package passes the data, which
// schema of which definition gets which extension, and Apply does the work.
//
// It depends on kube-openapi's common and spec packages and the standard
// library only, so that an API package calling it pulls in nothing of the
// generator.
package immutableopenapi

import (
	"fmt"
	"strings"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// The extensions Apply sets, with the JSON boolean true (named in package
// runtime/extension; generated code refers to them here).
const (
	// Immutable is the immutable-fields KEP's extension for +immutable.
	Immutable = extension.Immutable
	// ImmutableKeys is the immutable-fields KEP's extension for
	// +immutable=keys.
	ImmutableKeys = extension.ImmutableKeys
	// ImmutableOnce is immutable-gen's extension for +immutable=once,
	// beyond the KEP; the immutable-gen runtime reads it.
	ImmutableOnce = extension.ImmutableOnce
	// IgnoreOrder is immutable-gen's extension for +immutable:ignoreOrder,
	// beyond the KEP: beside Immutable or ImmutableOnce, the list maps in
	// the value compare by key; the immutable-gen runtime reads it.
	IgnoreOrder = extension.IgnoreOrder
	// NoModify is immutable-gen's extension for validation-gen's
	// +k8s:update=NoModify alone, beyond the KEP: fixed while present.
	NoModify = extension.NoModify
	// NoSet and NoUnset are immutable-gen's extensions for validation-gen's
	// +k8s:update=NoSet and =NoUnset where no other form says the same.
	NoSet   = extension.NoSet
	NoUnset = extension.NoUnset
	// When is immutable-gen's extension for +immutable:when, beyond the
	// KEP: not a boolean but the condition (Mark.Condition), beside the
	// extensions of the marker's form; the immutable-gen runtime evaluates
	// it.
	When = extension.When
)

// Definition names the schemas of one definition that get an extension.
type Definition struct {
	// Key is the definition's key in the map openapi-gen's
	// GetOpenAPIDefinitions returns.
	Key string
	// Marks are the schemas below the definition's schema to mark.
	Marks []Mark
}

// Mark is one extension on one schema of a definition.
type Mark struct {
	// Pointer is the JSON pointer (RFC 6901) of the schema below the
	// definition's schema: "" for the definition's schema itself, then
	// "/properties/<name>", "/items" and "/additionalProperties" steps, as
	// in "/properties/ports/items".
	Pointer string
	// Extension is the name of the extension set to true, such as
	// Immutable; When is set to Condition instead.
	Extension string
	// Condition is the value of When: the +immutable:when condition. It
	// is empty for every other extension.
	Condition string
}

// Apply sets, for every mark of every definition in marks, the mark's
// extension to true (When to the mark's Condition) on the schema at the mark's pointer in defs[Key].Schema.
// A definition that carries a separate OpenAPI v2 schema
// (common.EmbedOpenAPIDefinitionIntoV2Extension) gets the extension in both.
//
// Schemas are not changed in place: Apply stores modified copies in defs
// and never writes into a schema, map or pointer it was given (a
// hand-written definition may share them). Applying the same marks twice is
// harmless.
//
// Apply stops at the first mark whose definition is not in defs or whose
// schema is not there, and returns an error naming the key, the pointer and
// the extension; the marks before it have been applied.
func Apply(defs map[string]common.OpenAPIDefinition, marks []Definition) error {
	for _, d := range marks {
		for _, m := range d.Marks {
			if err := set(defs, d.Key, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// set applies one mark to the definition key.
func set(defs map[string]common.OpenAPIDefinition, key string, m Mark) error {
	if m.Extension == "" {
		return fmt.Errorf("the mark at %q of the OpenAPI definition %s names no extension", m.Pointer, key)
	}
	var value any = true
	switch {
	case m.Extension == When && m.Condition == "":
		return fmt.Errorf("the mark %s at %q of the OpenAPI definition %s has no condition", m.Extension, m.Pointer, key)
	case m.Extension == When:
		value = m.Condition
	case m.Condition != "":
		return fmt.Errorf("the mark %s at %q of the OpenAPI definition %s has a condition: only %s has one", m.Extension, m.Pointer, key, When)
	}
	ptr, err := tokens(m.Pointer)
	if err != nil {
		return fmt.Errorf("the mark %s of the OpenAPI definition %s: %w", m.Extension, key, err)
	}
	def, ok := defs[key]
	s := def.Schema
	if ok {
		s, ok = mark(s, ptr, m.Extension, value)
	}
	// A definition whose OpenAPI v2 schema differs from its v3 schema
	// carries the v2 schema in an extension; mark both.
	if v2, isSchema := s.Extensions[common.ExtensionV2Schema].(spec.Schema); ok && isSchema {
		if v2, ok = mark(v2, ptr, m.Extension, value); ok {
			s.Extensions = withExtension(s.Extensions, common.ExtensionV2Schema, v2)
		}
	}
	if !ok {
		return fmt.Errorf("the OpenAPI definition %s has no schema at %q to mark %s", key, m.Pointer, m.Extension)
	}
	def.Schema = s
	defs[key] = def
	return nil
}

// unescape undoes a JSON pointer token's escapes.
var unescape = strings.NewReplacer("~1", "/", "~0", "~")

// tokens splits a JSON pointer into its unescaped reference tokens.
func tokens(pointer string) ([]string, error) {
	if pointer == "" {
		return nil, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer: it must be empty or start with /", pointer)
	}
	ptr := strings.Split(pointer[1:], "/")
	for i := range ptr {
		ptr[i] = unescape.Replace(ptr[i])
	}
	return ptr, nil
}

// mark returns s with the extension set to value on the schema at the JSON
// pointer tokens ptr below s, copying what it changes; ok is false when
// there is no schema at ptr.
func mark(s spec.Schema, ptr []string, extension string, value any) (_ spec.Schema, ok bool) {
	switch {
	case len(ptr) == 0:
		s.Extensions = withExtension(s.Extensions, extension, value)
		return s, true
	case ptr[0] == "properties" && len(ptr) > 1:
		p, found := s.Properties[ptr[1]]
		if !found {
			return s, false
		}
		p, ok := mark(p, ptr[2:], extension, value)
		props := make(map[string]spec.Schema, len(s.Properties))
		for k, v := range s.Properties {
			props[k] = v
		}
		props[ptr[1]] = p
		s.Properties = props
		return s, ok
	case ptr[0] == "items" && s.Items != nil && s.Items.Schema != nil:
		item, ok := mark(*s.Items.Schema, ptr[1:], extension, value)
		items := *s.Items
		items.Schema = &item
		s.Items = &items
		return s, ok
	case ptr[0] == "additionalProperties" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		value, ok := mark(*s.AdditionalProperties.Schema, ptr[1:], extension, value)
		values := *s.AdditionalProperties
		values.Schema = &value
		s.AdditionalProperties = &values
		return s, ok
	}
	return s, false
}

// withExtension returns a copy of ext with name set to value.
func withExtension(ext spec.Extensions, name string, value any) spec.Extensions {
	out := make(spec.Extensions, len(ext)+1)
	for k, v := range ext {
		out[k] = v
	}
	out[name] = value
	return out
}
