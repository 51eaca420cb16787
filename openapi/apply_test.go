package openapi

import (
	"go/token"
	"go/types"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/immutableopenapi"
	"github.com/immutable-gen/immutable-gen/testdata/apis/openapi/generated"
	v1 "github.com/immutable-gen/immutable-gen/testdata/apis/openapi/v1"
)

// The generated ApplyImmutability of the test API, run on its own.

func definitions() map[string]common.OpenAPIDefinition {
	return generated.GetOpenAPIDefinitions(func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + name) })
}

// TestApplyImmutabilityCopies checks that the schemas given are not changed
// in place (a hand-written definition may share them), and that applying
// twice is harmless.
func TestApplyImmutabilityCopies(t *testing.T) {
	defs := definitions()
	key := testAPI + ".GadgetSpec"
	shared := spec.Extensions{"x-shared": "yes"}
	spec0 := defs[key]
	name := spec0.Schema.Properties["name"]
	name.Extensions = shared
	spec0.Schema.Properties["name"] = name
	props := spec0.Schema.Properties
	items := spec0.Schema.Properties["sidecars"].Items.Schema
	defs[key] = spec0

	v1.ApplyImmutability(defs)
	v1.ApplyImmutability(defs)

	if _, ok := shared["x-kubernetes-immutable"]; ok {
		t.Error("the extensions map of the given schema was changed in place")
	}
	if _, ok := props["name"].Extensions["x-kubernetes-immutable"]; ok {
		t.Error("the properties map of the given schema was changed in place")
	}
	if _, ok := items.Extensions["x-kubernetes-immutable"]; ok {
		t.Error("the items schema of the given schema was changed in place")
	}
	got := defs[key].Schema
	if got.Properties["name"].Extensions["x-kubernetes-immutable"] != true || got.Properties["name"].Extensions["x-shared"] != "yes" {
		t.Errorf("name extensions = %v", got.Properties["name"].Extensions)
	}
	if got.Properties["sidecars"].Items.Schema.Extensions["x-kubernetes-immutable"] != true {
		t.Errorf("sidecars items extensions = %v", got.Properties["sidecars"].Items.Schema.Extensions)
	}
	if got.Properties["ports"].Extensions["x-kubernetes-immutable-keys"] != true || got.Properties["ports"].Extensions["x-kubernetes-list-type"] != "map" {
		t.Errorf("ports extensions = %v", got.Properties["ports"].Extensions)
	}
}

// TestApplyImmutabilityV2Schema checks a definition carrying a separate v2
// schema (common.EmbedOpenAPIDefinitionIntoV2Extension) gets the extension
// in both.
func TestApplyImmutabilityV2Schema(t *testing.T) {
	defs := definitions()
	key := v1.Source{}.OpenAPIModelName()
	defs[key] = common.EmbedOpenAPIDefinitionIntoV2Extension(defs[key], common.OpenAPIDefinition{
		Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
	})
	v1.ApplyImmutability(defs)
	s := defs[key].Schema
	if s.Extensions["x-kubernetes-immutable"] != true {
		t.Errorf("v3 schema extensions = %v", s.Extensions)
	}
	v2, _ := s.Extensions[common.ExtensionV2Schema].(spec.Schema)
	if v2.Extensions["x-kubernetes-immutable"] != true {
		t.Errorf("v2 schema extensions = %v", v2.Extensions)
	}
}

// TestApplyImmutabilityMismatch checks definitions that do not match the
// generated code make it panic, naming what is missing.
func TestApplyImmutabilityMismatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(defs map[string]common.OpenAPIDefinition)
		want   string
	}{
		{"no definition", func(defs map[string]common.OpenAPIDefinition) {
			delete(defs, v1.Port{}.OpenAPIModelName())
		}, `definition io.example.openapi.v1.Port has no schema at "/properties/name"`},
		{"no property", func(defs map[string]common.OpenAPIDefinition) {
			d := defs[testAPI+".GadgetSpec"]
			delete(d.Schema.Properties, "labels")
		}, `GadgetSpec has no schema at "/properties/labels"`},
		{"no items", func(defs map[string]common.OpenAPIDefinition) {
			d := defs[testAPI+".GadgetSpec"]
			p := d.Schema.Properties["sidecars"]
			p.Items = nil
			d.Schema.Properties["sidecars"] = p
		}, `GadgetSpec has no schema at "/properties/sidecars/items"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defs := definitions()
			tc.change(defs)
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q, want %q", msg, tc.want)
				}
			}()
			v1.ApplyImmutability(defs)
		})
	}
}

// TestDefinitionKey checks the three ways openapi-gen keys a definition by
// its model name, and the Go path otherwise.
func TestDefinitionKey(t *testing.T) {
	pkg := types.NewPackage("example.com/api/v1", "v1")
	plain := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "Plain", nil), types.NewStruct(nil, nil), nil)
	withMethod := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "Named", nil), types.NewStruct(nil, nil), nil)
	sig := types.NewSignatureType(types.NewVar(token.NoPos, pkg, "in", withMethod), nil, nil, nil,
		types.NewTuple(types.NewVar(token.NoPos, pkg, "", types.Typ[types.String])), false)
	withMethod.AddMethod(types.NewFunc(token.NoPos, pkg, "OpenAPIModelName", sig))

	for _, tc := range []struct {
		name         string
		named        *types.Named
		typeComments []string
		pkgModel     string
		want         string
	}{
		{"Go path", plain, []string{"Plain is plain.", "+k8s:openapi-gen=true"}, "", `"example.com/api/v1.Plain"`},
		{"type tag", plain, []string{"+k8s:openapi-model-package=com.example.api.v1"}, "", "Plain{}.OpenAPIModelName()"},
		{"package tag", plain, nil, "com.example.api.v1", "Plain{}.OpenAPIModelName()"},
		{"method", withMethod, nil, "", "Named{}.OpenAPIModelName()"},
	} {
		if got := definitionKey(pkg.Path(), tc.named, tc.typeComments, tc.pkgModel); got != tc.want {
			t.Errorf("%s: key %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestExtensionNames checks the generated code names, through package
// immutableopenapi, the extensions the rest of immutable-gen writes and the
// runtime reads.
func TestExtensionNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{immutableopenapi.Immutable, extension.Immutable},
		{immutableopenapi.ImmutableKeys, extension.ImmutableKeys},
		{immutableopenapi.ImmutableOnce, extension.ImmutableOnce},
	} {
		if tc.got != tc.want {
			t.Errorf("immutableopenapi names %s, schema %s", tc.got, tc.want)
		}
	}
}
