package when

import (
	"fmt"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// Schema is what Eval reads of a structural schema: enough to give each
// JSON value the CEL type the API server gives it (an integer is an int, a
// number a double even when written 1; a date-time string a timestamp; a
// list of type set or map compares ignoring order). It is the part of a
// CRD's structural schema that k8s.io/apiserver's CEL value conversion
// reads, nothing else. Build it with FromOpenAPI, or by hand.
type Schema struct {
	// Type is the OpenAPI type: object, array, string, integer, number,
	// boolean, or "" (only with IntOrString or PreserveUnknownFields).
	Type string
	// Format of a string: date-time, date (timestamps), duration, byte;
	// any other is a plain string.
	Format string
	// Nullable says JSON null is a value (CEL null) rather than an error.
	Nullable bool
	// IntOrString is x-kubernetes-int-or-string.
	IntOrString bool
	// PreserveUnknownFields is x-kubernetes-preserve-unknown-fields on a
	// value without a type: CEL can only compare it.
	PreserveUnknownFields bool
	// EmbeddedResource is x-kubernetes-embedded-resource: the object is a
	// resource, whose kind, apiVersion and metadata.name and generateName
	// CEL reads as strings (the only metadata it reads), as at the root.
	EmbeddedResource bool
	// Properties of an object; nil when the object has none (then it is a
	// map of AdditionalProperties, or an empty or unknown object).
	Properties map[string]*Schema
	// AdditionalProperties is the schema of a map's values.
	AdditionalProperties *Schema
	// Items is the schema of an array's items.
	Items *Schema
	// ListType is x-kubernetes-list-type: atomic (or ""), set or map.
	ListType string
	// ListMapKeys is x-kubernetes-list-map-keys.
	ListMapKeys []string
}

// FromOpenAPI reads the Schema of a structural OpenAPI schema, as a CRD
// version's openAPIV3Schema holds it (no $ref, one type).
func FromOpenAPI(s *spec.Schema) (*Schema, error) {
	return fromOpenAPI(s, "", 0)
}

// maxSchemaDepth bounds FromOpenAPI's recursion; a CRD's schema is
// validated by the API server far below it.
const maxSchemaDepth = 1000

func fromOpenAPI(s *spec.Schema, path string, depth int) (*Schema, error) {
	at := path
	if at == "" {
		at = "the root"
	}
	if s == nil {
		return nil, fmt.Errorf("%s: no schema", at)
	}
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("%s: the schema nests deeper than %d levels", at, maxSchemaDepth)
	}
	if s.Ref.String() != "" {
		return nil, fmt.Errorf("%s: $ref %s: the condition's schema must be structural (inline every definition)", at, s.Ref.String())
	}
	if len(s.Type) > 1 {
		return nil, fmt.Errorf("%s: several types %v: a structural schema has one", at, s.Type)
	}
	out := &Schema{Format: s.Format, Nullable: s.Nullable}
	if len(s.Type) == 1 {
		out.Type = s.Type[0]
	}
	out.IntOrString, _ = s.Extensions.GetBool(extension.IntOrString)
	out.PreserveUnknownFields, _ = s.Extensions.GetBool(extension.PreserveUnknownFields)
	out.EmbeddedResource, _ = s.Extensions.GetBool(extension.EmbeddedResource)
	out.ListType, _ = s.Extensions.GetString(extension.ListType)
	out.ListMapKeys, _ = s.Extensions.GetStringSlice(extension.ListMapKeys)
	var err error
	if s.Properties != nil {
		out.Properties = make(map[string]*Schema, len(s.Properties))
		for name, p := range s.Properties {
			p := p
			if out.Properties[name], err = fromOpenAPI(&p, path+"."+name, depth+1); err != nil {
				return nil, err
			}
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if out.AdditionalProperties, err = fromOpenAPI(s.AdditionalProperties.Schema, path+"[*]", depth+1); err != nil {
			return nil, err
		}
	}
	if s.Items != nil {
		if s.Items.Schema == nil {
			return nil, fmt.Errorf("%s: items as a tuple: a structural schema has one items schema", at)
		}
		if out.Items, err = fromOpenAPI(s.Items.Schema, path+"[*]", depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// typedResource says s already declares what CEL reads of a resource
// (kind and apiVersion strings, metadata with name and generateName): the
// API server then reads it as declared. Otherwise it reads s's properties
// with kind and apiVersion strings and metadata holding name and
// generateName only (apiextensions-apiserver's WithTypeAndObjectMeta);
// resourceProp gives those.
func (s *Schema) typedResource() bool {
	if s.Properties == nil || !isType(s.Properties["kind"], "string") || !isType(s.Properties["apiVersion"], "string") {
		return false
	}
	m := s.Properties["metadata"]
	return isType(m, "object") && m.Properties != nil && isType(m.Properties["name"], "string") && isType(m.Properties["generateName"], "string")
}

var (
	resourceString = &Schema{Type: "string"}
	resourceMeta   = &Schema{Type: "object", Properties: map[string]*Schema{"name": resourceString, "generateName": resourceString}}
)

// resourceProp is the schema of a resource's property key where it is not
// typedResource.
func (s *Schema) resourceProp(key string) (*Schema, bool) {
	switch key {
	case "kind", "apiVersion":
		return resourceString, true
	case "metadata":
		return resourceMeta, true
	}
	p, ok := s.Properties[key]
	return p, ok
}

func isType(s *Schema, t string) bool { return s != nil && s.Type == t }
