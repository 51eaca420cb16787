package enforce_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/enforce"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// violations renders the violations of an update as "path: type" lines.
func violations(c *runtime.Checker, obj, old map[string]interface{}) string {
	var lines []string
	for _, e := range c.ValidateUpdate(obj, old) {
		lines = append(lines, e.Field+": "+string(e.Type))
	}
	return strings.Join(lines, "\n")
}

func spec1(kv ...interface{}) map[string]interface{} {
	m := map[string]interface{}{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return map[string]interface{}{"spec": m}
}

var widgetsV1 = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func TestFromCRD(t *testing.T) {
	rs, err := enforce.FromCRD(read(t, filepath.Join("testdata", "widgets-crd.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.String())
	}
	want := []string{
		"example.com/v1, Resource=widgets (subresources: status)",
		"example.com/v1beta1, Resource=widgets",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("resources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each version gets the checker of its own schema.
	if v := violations(rs[0].Checker, spec1("class", "b"), spec1("class", "a")); v != "spec.class: FieldValueInvalid" {
		t.Errorf("v1: %q", v)
	}
	if v := violations(rs[1].Checker, spec1("class", "b"), spec1("class", "a")); v != "" {
		t.Errorf("v1beta1 has no immutable class: %q", v)
	}
	if v := violations(rs[1].Checker, spec1("kind", "b"), spec1("kind", "a")); v != "spec.kind: FieldValueInvalid" {
		t.Errorf("v1beta1: %q", v)
	}
}

func TestFromCRDExample(t *testing.T) {
	rs, err := enforce.FromCRD(read(t, filepath.Join("..", "..", "examples", "config", "crd", "extensions", "cache.example.com_cacheclusters.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].String() != "cache.example.com/v1, Resource=cacheclusters (subresources: status)" {
		t.Fatalf("resources: %v", rs)
	}
}

func TestFromCRDv1beta1(t *testing.T) {
	rs, err := enforce.FromCRD([]byte(`
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  version: v1
  names: {kind: Gadget, plural: gadgets}
  subresources: {status: {}}
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec: {type: object, properties: {a: {type: string, x-kubernetes-immutable: true}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].String() != "example.com/v1, Resource=gadgets (subresources: status)" {
		t.Fatalf("resources: %v", rs)
	}
	if v := violations(rs[0].Checker, spec1("a", "y"), spec1("a", "x")); v != "spec.a: FieldValueInvalid" {
		t.Errorf("%q", v)
	}
}

func TestFromCRDErrors(t *testing.T) {
	for name, tc := range map[string]struct{ manifest, want string }{
		"no CRD":   {`{"apiVersion": "v1", "kind": "ConfigMap"}`, "no served version"},
		"not YAML": {"a: [", "document 1"},
		"bad extension": {`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {a: {type: string, x-kubernetes-immutable: "true"}}}
`, `CustomResourceDefinition widgets.example.com version v1: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a]: x-kubernetes-immutable must be the boolean true, not the string "true"`},
		"no plural": {`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec: {group: example.com, names: {kind: Widget}, versions: [{name: v1, served: true, storage: true}]}
`, "spec.names.plural is empty"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := enforce.FromCRD([]byte(tc.manifest))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func checker(t *testing.T) *runtime.Checker {
	t.Helper()
	rs, err := enforce.FromCRD(read(t, filepath.Join("testdata", "widgets-crd.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	return rs[0].Checker
}

func TestSet(t *testing.T) {
	c := checker(t)
	other := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	s, err := enforce.NewSet([]enforce.Resource{
		{Resource: widgetsV1, Subresources: []string{"status", "status"}, Checker: c},
		{Resource: other, Checker: c},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gvr  schema.GroupVersionResource
		sub  string
		want bool
	}{
		{widgetsV1, "", true},
		{widgetsV1, "status", true},
		{widgetsV1, "scale", false},
		{other, "", true},
		{other, "status", false},
		{schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}, "", false},
	} {
		if got := s.Checker(tc.gvr, tc.sub) != nil; got != tc.want {
			t.Errorf("Checker(%s, %q) != nil: %v, want %v", tc.gvr, tc.sub, got, tc.want)
		}
	}
	rs := s.Resources()
	if len(rs) != 2 || rs[0].Resource != other || rs[1].Resource != widgetsV1 || strings.Join(rs[1].Subresources, ",") != "status" {
		t.Errorf("Resources() = %v", rs)
	}
	rs[1].Subresources[0] = "changed"
	if s.Resources()[1].Subresources[0] != "status" {
		t.Error("Resources() shares its slices")
	}
	var nilSet *enforce.Set
	if nilSet.Checker(widgetsV1, "") != nil || nilSet.Len() != 0 || nilSet.Resources() != nil {
		t.Error("a nil Set is not empty")
	}
}

func TestNewSetErrors(t *testing.T) {
	c := checker(t)
	for name, tc := range map[string]struct {
		r    []enforce.Resource
		want string
	}{
		"no checker":     {[]enforce.Resource{{Resource: widgetsV1}}, "resources[0] example.com/v1, Resource=widgets: no Checker"},
		"no version":     {[]enforce.Resource{{Resource: schema.GroupVersionResource{Resource: "widgets"}, Checker: c}}, "version is empty"},
		"no resource":    {[]enforce.Resource{{Resource: schema.GroupVersionResource{Version: "v1"}, Checker: c}}, "resource is empty"},
		"slash":          {[]enforce.Resource{{Resource: schema.GroupVersionResource{Version: "v1", Resource: "widgets/status"}, Checker: c}}, "names a subresource"},
		"scale":          {[]enforce.Resource{{Resource: widgetsV1, Subresources: []string{"scale"}, Checker: c}}, `"scale" cannot be checked`},
		"main as sub":    {[]enforce.Resource{{Resource: widgetsV1, Subresources: []string{""}, Checker: c}}, "always checked"},
		"sub with slash": {[]enforce.Resource{{Resource: widgetsV1, Subresources: []string{"a/b"}, Checker: c}}, "contains a slash"},
		"listed twice":   {[]enforce.Resource{{Resource: widgetsV1, Checker: c}, {Resource: widgetsV1, Checker: c}}, "resources[1] example.com/v1, Resource=widgets: listed twice"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := enforce.NewSet(tc.r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// flunderDefinitions is what openapi-gen and immutable-gen's openapi output
// would generate for a small aggregated API.
func flunderDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	return map[string]common.OpenAPIDefinition{
		"example.com/wardle/v1alpha1.Flunder": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Type: []string{"object"},
			Properties: map[string]spec.Schema{
				"spec": {SchemaProps: spec.SchemaProps{Default: map[string]interface{}{}, AllOf: []spec.Schema{{SchemaProps: spec.SchemaProps{Ref: ref("example.com/wardle/v1alpha1.FlunderSpec")}}}}},
			},
		}}},
		"example.com/wardle/v1alpha1.FlunderSpec": {Schema: spec.Schema{
			SchemaProps: spec.SchemaProps{
				Type: []string{"object"},
				Properties: map[string]spec.Schema{
					"reference": {
						SchemaProps:      spec.SchemaProps{Type: []string{"string"}},
						VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{runtime.ExtImmutable: true}},
					},
				},
			},
		}},
	}
}

func TestCheckerFromDefinitions(t *testing.T) {
	for _, name := range []string{"example.com/wardle/v1alpha1.Flunder", "com.example.wardle.v1alpha1.Flunder"} {
		c, err := enforce.CheckerFromDefinitions(flunderDefinitions, name)
		if err != nil {
			t.Fatal(err)
		}
		if v := violations(c, spec1("reference", "b"), spec1("reference", "a")); v != "spec.reference: FieldValueInvalid" {
			t.Errorf("%s: %q", name, v)
		}
	}
	if _, err := enforce.CheckerFromDefinitions(flunderDefinitions, "Nope"); err == nil || !strings.Contains(err.Error(), `OpenAPI definition Nope: no OpenAPI definition "Nope"`) {
		t.Errorf("unknown definition: %v", err)
	}
	if _, err := enforce.CheckerFromDefinitions(nil, "x"); err == nil {
		t.Error("nil function accepted")
	}
}

func TestCheckerFromOpenAPI(t *testing.T) {
	for _, file := range []string{"wardle-openapi-v2.json", "wardle-openapi-v3.yaml"} {
		c, err := enforce.CheckerFromOpenAPI(read(t, filepath.Join("testdata", file)), "com.example.wardle.v1alpha1.Flunder")
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if v := violations(c, spec1("reference", "b"), spec1("reference", "a")); v != "spec.reference: FieldValueInvalid" {
			t.Errorf("%s: %q", file, v)
		}
		if v := violations(c, spec1(), spec1("reference", "a")); v != "spec.reference: FieldValueForbidden" {
			t.Errorf("%s: %q", file, v)
		}
	}
	for name, tc := range map[string]struct{ doc, want string }{
		"no schemas":  {`{"swagger": "2.0"}`, "neither definitions"},
		"not a doc":   {`[`, "OpenAPI document"},
		"bad schema":  {`{"definitions": {"A": {"type": 3}}}`, "schema A"},
		"unknown ref": {`{"definitions": {"A": {"properties": {"b": {"$ref": "#/definitions/B"}}}}}`, `cannot resolve $ref "#/definitions/B"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := enforce.CheckerFromOpenAPI([]byte(tc.doc), "A")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
