package immutableopenapi

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

const key = "example.com/api/v1.Gadget"

func str() spec.Schema { return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}} }

// gadget is a definition with every kind of step a pointer can take, and
// properties whose names need escaping.
func gadget() spec.Schema {
	item, value := str(), str()
	return spec.Schema{SchemaProps: spec.SchemaProps{
		Type: []string{"object"},
		Properties: map[string]spec.Schema{
			"name":  str(),
			"a/b":   str(),
			"c~d":   str(),
			"spec":  {SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{"zone": str()}}},
			"tags":  {SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &item}}},
			"tuple": {SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schemas: []spec.Schema{str()}}}},
			"env":   {SchemaProps: spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: &value}}},
			"free":  {SchemaProps: spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true}}},
			"ref":   {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/definitions/example.com/api/v1.Other")}},
		},
	}}
}

func defsOf(s spec.Schema) map[string]common.OpenAPIDefinition {
	return map[string]common.OpenAPIDefinition{key: {Schema: s}}
}

// at returns the schema at the JSON pointer tokens below s, or nil.
func at(s spec.Schema, ptr ...string) *spec.Schema {
	for len(ptr) > 0 {
		switch {
		case ptr[0] == "properties" && len(ptr) > 1:
			p, ok := s.Properties[ptr[1]]
			if !ok {
				return nil
			}
			s, ptr = p, ptr[2:]
		case ptr[0] == "items" && s.Items != nil && s.Items.Schema != nil:
			s, ptr = *s.Items.Schema, ptr[1:]
		case ptr[0] == "additionalProperties" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			s, ptr = *s.AdditionalProperties.Schema, ptr[1:]
		default:
			return nil
		}
	}
	return &s
}

// marked lists the pointers (as token paths joined by " ") of the schemas
// below s carrying extension.
func marked(s spec.Schema, extension string, path []string, out map[string]bool) {
	if s.Extensions[extension] == true {
		out[strings.Join(path, " ")] = true
	}
	for name, p := range s.Properties {
		marked(p, extension, append(append(path[:len(path):len(path)], "properties"), name), out)
	}
	if s.Items != nil && s.Items.Schema != nil {
		marked(*s.Items.Schema, extension, append(path[:len(path):len(path)], "items"), out)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		marked(*s.AdditionalProperties.Schema, extension, append(path[:len(path):len(path)], "additionalProperties"), out)
	}
}

// TestApply checks that each pointer form marks exactly the schema it
// names, with the JSON boolean true, and nothing else.
func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pointer   string
		extension string
		want      string // the marked schema's token path, joined by " "
	}{
		{"definition itself", "", Immutable, ""},
		{"property", "/properties/name", Immutable, "properties name"},
		{"nested property", "/properties/spec/properties/zone", ImmutableOnce, "properties spec properties zone"},
		{"list items", "/properties/tags/items", Immutable, "properties tags items"},
		{"map values", "/properties/env/additionalProperties", Immutable, "properties env additionalProperties"},
		{"map keys", "/properties/env", ImmutableKeys, "properties env"},
		{"beside a $ref", "/properties/ref", Immutable, "properties ref"},
		{"escaped slash", "/properties/a~1b", Immutable, "properties a/b"},
		{"escaped tilde", "/properties/c~0d", Immutable, "properties c~d"},
		{"another extension", "/properties/name", "x-example", "properties name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defs := defsOf(gadget())
			err := Apply(defs, []Definition{{Key: key, Marks: []Mark{{Pointer: tc.pointer, Extension: tc.extension}}}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			marked(defs[key].Schema, tc.extension, nil, got)
			if want := map[string]bool{tc.want: true}; !reflect.DeepEqual(got, want) {
				t.Errorf("marked %v, want %v", got, want)
			}
		})
	}
}

// TestApplyWhen: When is set to the mark's condition, beside the form's
// extension.
func TestApplyWhen(t *testing.T) {
	defs := defsOf(gadget())
	const cond = "has(oldSelf.spec) && oldSelf.spec.locked"
	err := Apply(defs, []Definition{{Key: key, Marks: []Mark{
		{Pointer: "/properties/name", Extension: Immutable},
		{Pointer: "/properties/name", Extension: When, Condition: cond},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	ext := defs[key].Schema.Properties["name"].Extensions
	if ext[Immutable] != true || ext[When] != cond {
		t.Errorf("extensions %v, want %s: true and %s: %q", ext, Immutable, When, cond)
	}
}

// TestApplyMissing checks that a mark whose definition or schema is not in
// the definitions, or that is not a valid mark, is an error naming the key,
// the pointer and the extension, and that Apply stops there: the marks
// before it are applied, those after it are not.
func TestApplyMissing(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  string
		mark Mark
		want string
	}{
		{"no definition", "example.com/api/v1.Missing", Mark{"", Immutable, ""},
			`the OpenAPI definition example.com/api/v1.Missing has no schema at "" to mark x-kubernetes-immutable`},
		{"no definition, property", "example.com/api/v1.Missing", Mark{"/properties/name", Immutable, ""},
			`the OpenAPI definition example.com/api/v1.Missing has no schema at "/properties/name" to mark x-kubernetes-immutable`},
		{"no property", key, Mark{"/properties/nmae", Immutable, ""},
			`the OpenAPI definition example.com/api/v1.Gadget has no schema at "/properties/nmae" to mark x-kubernetes-immutable`},
		{"no nested property", key, Mark{"/properties/spec/properties/region", ImmutableOnce, ""},
			`the OpenAPI definition example.com/api/v1.Gadget has no schema at "/properties/spec/properties/region" to mark x-immutable-gen-immutable-once`},
		{"a condition without When", key, Mark{"/properties/name", Immutable, "true"},
			`the mark x-kubernetes-immutable at "/properties/name" of the OpenAPI definition example.com/api/v1.Gadget has a condition: only x-immutable-gen-when has one`},
		{"When without a condition", key, Mark{"/properties/name", When, ""},
			`the mark x-immutable-gen-when at "/properties/name" of the OpenAPI definition example.com/api/v1.Gadget has no condition`},
		{"properties without a name", key, Mark{"/properties", Immutable, ""},
			`has no schema at "/properties" to mark`},
		{"items of a map", key, Mark{"/properties/env/items", Immutable, ""},
			`has no schema at "/properties/env/items" to mark`},
		{"tuple items", key, Mark{"/properties/tuple/items", Immutable, ""},
			`has no schema at "/properties/tuple/items" to mark`},
		{"values of a free-form map", key, Mark{"/properties/free/additionalProperties", Immutable, ""},
			`has no schema at "/properties/free/additionalProperties" to mark`},
		{"unknown step", key, Mark{"/allOf/0", Immutable, ""},
			`has no schema at "/allOf/0" to mark`},
		{"not a pointer", key, Mark{"properties/name", Immutable, ""},
			`the mark x-kubernetes-immutable of the OpenAPI definition example.com/api/v1.Gadget: "properties/name" is not a JSON pointer: it must be empty or start with /`},
		{"no extension", key, Mark{"/properties/name", "", ""},
			`the mark at "/properties/name" of the OpenAPI definition example.com/api/v1.Gadget names no extension`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defs := defsOf(gadget())
			err := Apply(defs, []Definition{
				{Key: key, Marks: []Mark{{Pointer: "/properties/tags", Extension: "x-before"}}},
				{Key: tc.key, Marks: []Mark{tc.mark, {Pointer: "/properties/tags", Extension: "x-after"}}},
				{Key: key, Marks: []Mark{{Pointer: "/properties/tags", Extension: "x-after"}}},
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			tags := defs[key].Schema.Properties["tags"]
			if tags.Extensions["x-before"] != true || tags.Extensions["x-after"] != nil {
				t.Errorf("tags extensions = %v, want x-before only", tags.Extensions)
			}
			if len(defs) != 1 {
				t.Errorf("Apply added a definition: %d definitions", len(defs))
			}
		})
	}
}

// TestApplyCopies checks that nothing Apply was given is changed in place
// (a hand-written definition may share its schemas), and that applying the
// same marks twice gives what applying them once does.
func TestApplyCopies(t *testing.T) {
	given := gadget()
	shared := spec.Extensions{"x-shared": "yes"}
	name := given.Properties["name"]
	name.Extensions = shared
	given.Properties["name"] = name
	before := gadget()
	before.Properties["name"] = spec.Schema{SchemaProps: name.SchemaProps, VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-shared": "yes"}}}

	marks := []Definition{{Key: key, Marks: []Mark{
		{Pointer: "", Extension: Immutable},
		{Pointer: "/properties/name", Extension: Immutable},
		{Pointer: "/properties/spec/properties/zone", Extension: ImmutableOnce},
		{Pointer: "/properties/tags/items", Extension: Immutable},
		{Pointer: "/properties/env", Extension: ImmutableKeys},
		{Pointer: "/properties/env/additionalProperties", Extension: Immutable},
	}}}
	once := defsOf(given)
	if err := Apply(once, marks); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(given, before) {
		t.Errorf("the given schema was changed in place:\n%#v", given)
	}
	twice := defsOf(gadget())
	twice[key].Schema.Properties["name"] = before.Properties["name"]
	for range 2 {
		if err := Apply(twice, marks); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(once, twice) {
		t.Error("applying twice differs from applying once")
	}
	got := once[key].Schema
	if got.Extensions[Immutable] != true || got.Properties["name"].Extensions["x-shared"] != "yes" ||
		at(got, "properties", "env").Extensions[ImmutableKeys] != true {
		t.Errorf("extensions missing: %v, %v", got.Extensions, got.Properties["name"].Extensions)
	}
}

// TestApplyV2Schema checks a definition carrying a separate v2 schema
// (common.EmbedOpenAPIDefinitionIntoV2Extension) gets the extension in
// both, and that one whose v2 schema lacks the node is an error.
func TestApplyV2Schema(t *testing.T) {
	v2 := gadget()
	delete(v2.Properties, "tags")
	defs := map[string]common.OpenAPIDefinition{
		key: common.EmbedOpenAPIDefinitionIntoV2Extension(common.OpenAPIDefinition{Schema: gadget()}, common.OpenAPIDefinition{Schema: v2}),
	}
	if err := Apply(defs, []Definition{{Key: key, Marks: []Mark{{Pointer: "/properties/name", Extension: Immutable}}}}); err != nil {
		t.Fatal(err)
	}
	s := defs[key].Schema
	got, _ := s.Extensions[common.ExtensionV2Schema].(spec.Schema)
	if at(s, "properties", "name").Extensions[Immutable] != true || at(got, "properties", "name").Extensions[Immutable] != true {
		t.Errorf("v3 %v, v2 %v", at(s, "properties", "name").Extensions, at(got, "properties", "name").Extensions)
	}
	if v2.Properties["name"].Extensions != nil {
		t.Error("the given v2 schema was changed in place")
	}

	err := Apply(defs, []Definition{{Key: key, Marks: []Mark{{Pointer: "/properties/tags", Extension: Immutable}}}})
	if want := `has no schema at "/properties/tags"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestImports checks the package depends on kube-openapi's common and spec
// packages, runtime/extension (which imports nothing) and the standard
// library only: an API package whose generated code calls Apply must not
// pull in the generator.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"k8s.io/kube-openapi/pkg/common":                           true,
		"k8s.io/kube-openapi/pkg/validation/spec":                  true,
		"github.com/immutable-gen/immutable-gen/runtime/extension": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if std := !strings.Contains(strings.Split(path, "/")[0], "."); !std && !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
