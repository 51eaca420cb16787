package openapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/testdata/apis/openapi/generated"
	v1 "github.com/immutable-gen/immutable-gen/testdata/apis/openapi/v1"
)

// The served documents are built from the definitions the real openapi-gen
// generated for the test API (testdata/apis/openapi/generated), with the
// generated ApplyImmutability (testdata/apis/openapi/v1), by kube-openapi's
// own builders, and served by its own handlers, as an aggregated API server
// does.

// getDefinitions is the server's OpenAPI definitions source, wired as
// docs/openapi.md shows.
func getDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := generated.GetOpenAPIDefinitions(ref)
	v1.ApplyImmutability(defs)
	return defs
}

// testAPITypes are the definition names of the test API's types.
func testAPITypes() []string {
	var names []string
	for name := range generated.GetOpenAPIDefinitions(func(string) spec.Ref { return spec.Ref{} }) {
		if strings.HasPrefix(name, testAPI+".") || strings.HasPrefix(name, "io.example.openapi.v1.") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// The nodes that must carry the extensions, below each document's
// definitions, and no others.
var (
	wantImmutable = []string{
		"io.example.openapi.v1.Port/properties/name",
		"io.example.openapi.v1.Source",
		"v1.GadgetSpec/properties/backup",
		"v1.GadgetSpec/properties/image",
		"v1.GadgetSpec/properties/mirrors/additionalProperties",
		"v1.GadgetSpec/properties/name",
		"v1.GadgetSpec/properties/owner",
		"v1.GadgetSpec/properties/placement",
		"v1.GadgetSpec/properties/registries/additionalProperties/items",
		"v1.GadgetSpec/properties/sidecars/items",
		"v1.GadgetSpec/properties/tags",
		"v1.GadgetSpec/properties/tier",
		"v1.Ownership/properties/owner",
	}
	wantImmutableKeys = []string{
		"v1.GadgetSpec/properties/labels",
		"v1.GadgetSpec/properties/ports",
	}
	wantImmutableOnce = []string{
		"v1.GadgetSpec/properties/claim",
		"v1.GadgetSpec/properties/endpoint",
		"v1.GadgetSpec/properties/volumeID",
		"v1.GadgetSpec/properties/zones",
	}
)

func TestServed(t *testing.T) {
	names := testAPITypes()
	if len(names) != 8 {
		t.Fatalf("the generated definitions have %d types of the test API, want 8: %v", len(names), names)
	}
	mux := http.NewServeMux()

	swagger, err := builder.BuildOpenAPIDefinitionsForResources(&common.Config{
		Info:           &spec.Info{InfoProps: spec.InfoProps{Title: "test", Version: "v1"}},
		GetDefinitions: getDefinitions,
	}, names...)
	if err != nil {
		t.Fatal(err)
	}
	// What k8s.io/kube-openapi/pkg/handler serves on /openapi/v2 (that
	// package needs a module this one does not require): the spec's
	// MarshalJSON, and gnostic's protobuf document made from that JSON.
	v2JSON, err := swagger.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}

	schemas, err := builder3.BuildOpenAPIDefinitionsForResources(&common.OpenAPIV3Config{
		Info:           &spec.Info{InfoProps: spec.InfoProps{Title: "test", Version: "v1"}},
		GetDefinitions: getDefinitions,
	}, names...)
	if err != nil {
		t.Fatal(err)
	}
	v3 := handler3.NewOpenAPIService()
	v3.UpdateGroupVersion("apis/openapi.example.com/v1", &spec3.OpenAPI{
		Version:    "3.0.0",
		Info:       &spec.Info{InfoProps: spec.InfoProps{Title: "test", Version: "v1"}},
		Components: &spec3.Components{Schemas: schemas},
	})
	if err := v3.RegisterOpenAPIV3VersionedService("/openapi/v3", prefixMux{mux}); err != nil {
		t.Fatal(err)
	}

	server := httptest.NewServer(mux)
	defer server.Close()

	t.Run("v2", func(t *testing.T) {
		doc := v2JSON
		checkExtensions(t, doc, "definitions")
		// v2 keeps the extension beside the $ref of a struct-typed field.
		placement := lookup(t, decode(t, doc), "definitions", "v1.GadgetSpec", "properties", "placement")
		if placement["$ref"] != "#/definitions/v1.Placement" || placement["x-kubernetes-immutable"] != true {
			t.Errorf("v2 placement = %v, want the extension beside the $ref", placement)
		}
	})
	t.Run("v2 protobuf", func(t *testing.T) {
		// What kubectl reads: the extensions survive the conversion to
		// gnostic's protobuf document, as YAML `true`.
		parsed, err := openapi_v2.ParseDocument(v2JSON)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := proto.Marshal(parsed)
		if err != nil {
			t.Fatal(err)
		}
		var doc openapi_v2.Document
		if err := proto.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, def := range doc.GetDefinitions().GetAdditionalProperties() {
			protoExtensions(def.GetName(), def.GetValue(), got)
		}
		want := map[string]string{}
		for _, p := range wantImmutable {
			want[p+" x-kubernetes-immutable"] = "true"
		}
		for _, p := range wantImmutableKeys {
			want[p+" x-kubernetes-immutable-keys"] = "true"
		}
		for _, p := range wantImmutableOnce {
			want[p+" x-immutable-gen-immutable-once"] = "true"
		}
		if !mapsEqual(got, want) {
			t.Errorf("protobuf extensions:\n got  %v\n want %v", got, want)
		}
	})
	t.Run("v3", func(t *testing.T) {
		doc := get(t, server.URL+"/openapi/v3/apis/openapi.example.com/v1", "application/json")
		checkExtensions(t, doc, "components/schemas")
		// v3 moves a $ref with siblings into allOf and keeps the extension
		// on the property schema.
		placement := lookup(t, decode(t, doc), "components", "schemas", "v1.GadgetSpec", "properties", "placement")
		allOf, _ := placement["allOf"].([]any)
		if len(allOf) != 1 || placement["x-kubernetes-immutable"] != true {
			t.Errorf("v3 placement = %v, want the extension beside allOf", placement)
		}
	})
}

// checkExtensions checks that exactly the wanted nodes below the
// definitions at prefix carry the extensions, as JSON booleans.
func checkExtensions(t *testing.T, doc []byte, prefix string) {
	t.Helper()
	for _, ext := range []string{"x-kubernetes-immutable", "x-kubernetes-immutable-keys", "x-immutable-gen-immutable-once"} {
		if bytes.Contains(doc, []byte(`"`+ext+`":"`)) {
			t.Errorf("%s is a string, not a boolean", ext)
		}
	}
	found := map[string][]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				if k == "x-immutable-gen-when" {
					if child != "!has(self.spec.paused) || !self.spec.paused" {
						t.Errorf("%s: %s is %#v, want the condition of GadgetSpec.Tier", path, k, child)
					}
					found[k] = append(found[k], strings.TrimPrefix(path, "/"+prefix+"/"))
					continue
				}
				if k == "x-kubernetes-immutable" || k == "x-kubernetes-immutable-keys" || k == "x-immutable-gen-immutable-once" {
					if child != true {
						t.Errorf("%s: %s is %#v, want the JSON boolean true", path, k, child)
					}
					found[k] = append(found[k], strings.TrimPrefix(path, "/"+prefix+"/"))
					continue
				}
				walk(path+"/"+k, child)
			}
		case []any:
			for _, child := range v {
				walk(path+"/[]", child)
			}
		}
	}
	walk("", decode(t, doc))
	for ext, want := range map[string][]string{"x-immutable-gen-when": {"v1.GadgetSpec/properties/tier"}, "x-kubernetes-immutable": wantImmutable, "x-kubernetes-immutable-keys": wantImmutableKeys, "x-immutable-gen-immutable-once": wantImmutableOnce} {
		got := found[ext]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s is on\n%s\nwant\n%s", ext, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// protoExtensions collects the immutability extensions of a gnostic schema
// and its properties, items and additional properties, by path.
func protoExtensions(path string, s *openapi_v2.Schema, into map[string]string) {
	if s == nil {
		return
	}
	for _, e := range s.GetVendorExtension() {
		if strings.HasPrefix(e.GetName(), "x-kubernetes-immutable") || e.GetName() == "x-immutable-gen-immutable-once" {
			into[path+" "+e.GetName()] = strings.TrimSpace(e.GetValue().GetYaml())
		}
	}
	for _, p := range s.GetProperties().GetAdditionalProperties() {
		protoExtensions(path+"/properties/"+p.GetName(), p.GetValue(), into)
	}
	for _, item := range s.GetItems().GetSchema() {
		protoExtensions(path+"/items", item, into)
	}
	protoExtensions(path+"/additionalProperties", s.GetAdditionalProperties().GetSchema(), into)
}

// prefixMux is the path handler the API server gives handler3; a ServeMux
// pattern ending in / matches the prefix.
type prefixMux struct{ *http.ServeMux }

func (m prefixMux) HandlePrefix(path string, h http.Handler) { m.Handle(path, h) }

func get(t *testing.T, url, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	return body
}

func decode(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func lookup(t *testing.T, v map[string]any, path ...string) map[string]any {
	t.Helper()
	for _, p := range path {
		next, ok := v[p].(map[string]any)
		if !ok {
			t.Fatalf("no %s in the document", strings.Join(path, "/"))
		}
		v = next
	}
	return v
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
