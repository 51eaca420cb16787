package enforce_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"

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

// exampleCRD reads the bundled example's CacheCluster CRD as immutable-gen
// crd writes it: "bases" (the default CEL output) or "extensions".
func exampleCRD(t *testing.T, output string) []byte {
	t.Helper()
	return read(t, filepath.Join("..", "..", "examples", "config", "crd", output, "cache.example.com_cacheclusters.yaml"))
}

// TestFromCRDExampleOutputs: of the example's two CRD outputs, the
// extensions one enforces an engine change and the default CEL one is
// refused with the fix, never turned into a check that allows the change.
func TestFromCRDExampleOutputs(t *testing.T) {
	engine := func(e string) map[string]interface{} { return spec1("engine", e) }
	for _, tc := range []struct {
		name, output string
		want         string // the error's text, or "" for resources
	}{
		{name: "extensions output enforces", output: "extensions"},
		{name: "default CEL output refused", output: "bases", want: "CustomResourceDefinition cacheclusters.cache.example.com has no immutability extensions in any served version " +
			"(x-kubernetes-immutable, x-kubernetes-immutable-keys, x-immutable-gen-immutable-once, x-immutable-gen-ignore-order, x-immutable-gen-no-modify, x-immutable-gen-no-set, x-immutable-gen-no-unset): " +
			"a check built from it would allow every update; fix: the default crd output (crd:immutability=cel) is enforced by the API server itself, through the CRD's x-kubernetes-validations rules, and needs no webhook or admission plugin; " +
			"for the runtime, give the CRD generated with crd:immutability=extensions (immutable-gen crd:immutability=extensions paths=./... output:crd:dir=DIR); " +
			"a CRD without immutability markers has nothing to enforce: leave it out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := enforce.FromCRD(exampleCRD(t, tc.output))
			if tc.want != "" {
				if err == nil || err.Error() != tc.want {
					t.Fatalf("error:\n%v\nwant:\n%s", err, tc.want)
				}
				var ne *enforce.NoExtensionsError
				if !errors.As(err, &ne) || ne.CRD != "cacheclusters.cache.example.com" {
					t.Errorf("not a NoExtensionsError naming the CRD: %#v", err)
				}
				if rs != nil {
					t.Errorf("resources beside the error: %v", rs)
				}
				// docs/enforcement.md quotes the refusal as it is.
				if doc := read(t, filepath.Join("..", "..", "docs", "enforcement.md")); !strings.Contains(string(doc), "\n"+tc.want+"\n") {
					t.Error("docs/enforcement.md does not quote the refusal as it is")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 || rs[0].String() != "cache.example.com/v1, Resource=cacheclusters (subresources: status)" {
				t.Fatalf("resources: %v", rs)
			}
			if v := violations(rs[0].Checker, engine("memcached"), engine("redis")); v != "spec.engine: FieldValueInvalid" {
				t.Errorf("engine change: %q", v)
			}
		})
	}
}

// TestFromCRDNoExtensions: every CRD of a manifest none of whose served
// versions has an immutability extension is refused by name, whatever else
// the manifest holds; the CRDs with them do not make up for it.
func TestFromCRDNoExtensions(t *testing.T) {
	widgets := string(read(t, filepath.Join("testdata", "widgets-crd.yaml")))
	const plain = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {a: {type: string}}}
`
	// What immutable-gen crd writes by default: the form lowered to a CEL
	// transition rule, which the runtime does not read.
	const cel = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.example.com}
spec:
  group: example.com
  names: {kind: Gizmo, plural: gizmos}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: {a: {type: string}}
            x-kubernetes-validations:
            - {rule: "has(self.a) == has(oldSelf.a) && (!has(self.a) || self.a == oldSelf.a)", message: field is immutable, fieldPath: .a}
`
	// Its extensions are in a version that is not served.
	const unserved = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: doodads.example.com}
spec:
  group: example.com
  names: {kind: Doodad, plural: doodads}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}}
  - name: v2
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string, x-kubernetes-immutable: true}}}}}}
`
	const v1beta1 = `
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: thingies.example.com}
spec:
  group: example.com
  version: v1
  names: {kind: Thingy, plural: thingies}
  validation: {openAPIV3Schema: {type: object, properties: {spec: {type: object}}}}
`
	const noSchema = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: blobs.example.com}
spec:
  group: example.com
  names: {kind: Blob, plural: blobs}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`
	for _, tc := range []struct {
		name, manifest string
		refused        []string // the CRDs refused, in manifest order
	}{
		{"without immutability", plain, []string{"gadgets.example.com"}},
		{"CEL rules of immutable-gen crd", cel, []string{"gizmos.example.com"}},
		{"extensions only in an unserved version", unserved, []string{"doodads.example.com"}},
		{"v1beta1 without extensions", v1beta1, []string{"thingies.example.com"}},
		{"schema that keeps everything", noSchema, []string{"blobs.example.com"}},
		{"beside a CRD with extensions", widgets + "\n---\n" + plain, []string{"gadgets.example.com"}},
		{"each one named", plain + "\n---\n" + widgets + "\n---\n" + cel, []string{"gadgets.example.com", "gizmos.example.com"}},
		{"in a List", `{"apiVersion": "v1", "kind": "List", "items": [` + yamlToJSON(t, widgets) + `, ` + yamlToJSON(t, plain) + `]}`, []string{"gadgets.example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := enforce.FromCRD([]byte(tc.manifest))
			if err == nil {
				t.Fatalf("no error; resources %v", rs)
			}
			if rs != nil {
				t.Errorf("resources beside the error: %v", rs)
			}
			var got []string
			for _, e := range unwrapAll(err) {
				var ne *enforce.NoExtensionsError
				if !errors.As(e, &ne) {
					t.Errorf("another error: %v", e)
					continue
				}
				got = append(got, ne.CRD)
				if !strings.Contains(e.Error(), "crd:immutability=extensions") {
					t.Errorf("the error does not name crd:immutability=extensions: %v", e)
				}
			}
			if strings.Join(got, ", ") != strings.Join(tc.refused, ", ") {
				t.Errorf("refused %v, want %v", got, tc.refused)
			}
		})
	}
}

// TestFromCRDVersionWithoutExtensions: a CRD with the extensions in one
// served version lists every served version, the one without extensions
// with a Checker that checks nothing (nothing is immutable there).
func TestFromCRDVersionWithoutExtensions(t *testing.T) {
	rs, err := enforce.FromCRD([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: doodads.example.com}
spec:
  group: example.com
  names: {kind: Doodad, plural: doodads}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string, x-kubernetes-immutable: true}}}}}}
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version string
		empty   bool
	}{{"v1", false}, {"v1beta1", true}} {
		t.Run(tc.version, func(t *testing.T) {
			for _, r := range rs {
				if r.Resource.Version == tc.version {
					if r.Checker.Empty() != tc.empty {
						t.Errorf("Empty() = %v, want %v", r.Checker.Empty(), tc.empty)
					}
					return
				}
			}
			t.Fatalf("version not listed: %v", rs)
		})
	}
}

// unwrapAll returns the errors errors.Join joined into err, or err.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func yamlToJSON(t *testing.T, y string) string {
	t.Helper()
	b, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckerFromNoExtensions: a definition without immutability
// extensions is refused by name, from Go definitions and from an OpenAPI
// document alike.
func TestCheckerFromNoExtensions(t *testing.T) {
	plainDefinitions := func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		defs := flunderDefinitions(ref)
		d := defs["example.com/wardle/v1alpha1.FlunderSpec"]
		p := d.Schema.Properties["reference"]
		p.Extensions = nil
		d.Schema.Properties["reference"] = p
		defs["example.com/wardle/v1alpha1.FlunderSpec"] = d
		return defs
	}
	for _, tc := range []struct {
		name  string
		build func() (*runtime.Checker, error)
		def   string
	}{
		{"definitions", func() (*runtime.Checker, error) {
			return enforce.CheckerFromDefinitions(plainDefinitions, "example.com/wardle/v1alpha1.Flunder")
		}, "example.com/wardle/v1alpha1.Flunder"},
		{"definitions, an unmarked one beside marked ones", func() (*runtime.Checker, error) {
			withFischer := func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
				defs := flunderDefinitions(ref)
				defs["example.com/wardle/v1alpha1.Fischer"] = common.OpenAPIDefinition{Schema: spec.Schema{SchemaProps: spec.SchemaProps{
					Type:       []string{"object"},
					Properties: map[string]spec.Schema{"disallowedFlunders": {SchemaProps: spec.SchemaProps{Type: []string{"array"}}}},
				}}}
				return defs
			}
			return enforce.CheckerFromDefinitions(withFischer, "example.com/wardle/v1alpha1.Fischer")
		}, "example.com/wardle/v1alpha1.Fischer"},
		{"OpenAPI v2 document", func() (*runtime.Checker, error) {
			return enforce.CheckerFromOpenAPI([]byte(`{"definitions": {"A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}}}, "B": {"type": "string"}}}`), "A")
		}, "A"},
		{"OpenAPI v3 document, extensions elsewhere", func() (*runtime.Checker, error) {
			return enforce.CheckerFromOpenAPI([]byte(`{"components": {"schemas": {"A": {"type": "object"}, "B": {"type": "string", "x-kubernetes-immutable": true}}}}`), "A")
		}, "A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.build()
			var ne *enforce.NoExtensionsError
			if !errors.As(err, &ne) || ne.Definition != tc.def {
				t.Fatalf("checker %v, error %v; want a NoExtensionsError naming %s", c, err, tc.def)
			}
			if c != nil {
				t.Error("a Checker beside the error")
			}
			for _, want := range []string{"OpenAPI definition " + tc.def + " has no immutability extensions", "immutable-gen openapi", "crd:immutability=extensions"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestNewSetNoExtensions: a Set refuses a resource none of whose versions'
// Checkers checks anything, and accepts an empty Checker for one version
// of a resource whose other version checks something.
func TestNewSetNoExtensions(t *testing.T) {
	c := checker(t)
	empty, err := runtime.Compile(&spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}})
	if err != nil {
		t.Fatal(err)
	}
	widgetsV2 := schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}
	gadgetsV1 := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	for _, tc := range []struct {
		name    string
		r       []enforce.Resource
		refused []string
	}{
		{"one resource, empty", []enforce.Resource{{Resource: widgetsV1, Checker: empty}}, []string{"widgets.example.com"}},
		{"every version empty", []enforce.Resource{{Resource: widgetsV1, Checker: empty}, {Resource: widgetsV2, Checker: empty}}, []string{"widgets.example.com"}},
		{"one version empty", []enforce.Resource{{Resource: widgetsV1, Checker: empty}, {Resource: widgetsV2, Checker: c}}, nil},
		{"another resource empty", []enforce.Resource{{Resource: widgetsV1, Checker: c}, {Resource: gadgetsV1, Checker: empty}}, []string{"gadgets.example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := enforce.NewSet(tc.r)
			if tc.refused == nil {
				if err != nil || s.Len() != len(tc.r) {
					t.Fatalf("set of %d, error %v", s.Len(), err)
				}
				return
			}
			if s != nil {
				t.Error("a Set beside the error")
			}
			var got []string
			for _, e := range unwrapAll(err) {
				var ne *enforce.NoExtensionsError
				if !errors.As(e, &ne) {
					t.Fatalf("error %v, want a NoExtensionsError", e)
				}
				got = append(got, ne.Resource.String())
				if !strings.Contains(e.Error(), "crd:immutability=extensions") {
					t.Errorf("the error does not name crd:immutability=extensions: %v", e)
				}
			}
			if strings.Join(got, ", ") != strings.Join(tc.refused, ", ") {
				t.Errorf("refused %v, want %v", got, tc.refused)
			}
		})
	}
}

// TestFromCRDConditional: the crd generator's extensions output of
// +immutable:when (testdata/golden/crd/when-extensions, Kueue's queue name
// while quota is reserved, JobSet's pod sets unless suspended) is enforced
// as the CEL output is: the field is fixed where the condition holds, and
// only there.
func TestFromCRDConditional(t *testing.T) {
	rs, err := enforce.FromCRD(read(t, filepath.Join("..", "..", "testdata", "golden", "crd", "when-extensions", "when.example.com_workloads.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	c := rs[0].Checker
	obj := func(queue string, suspend bool, reserved string, podSets ...string) map[string]interface{} {
		var sets []interface{}
		for _, n := range podSets {
			sets = append(sets, map[string]interface{}{"name": n, "count": int64(1)})
		}
		return map[string]interface{}{
			"spec": map[string]interface{}{"queueName": queue, "suspend": suspend, "podSets": sets},
			"status": map[string]interface{}{"conditions": []interface{}{
				map[string]interface{}{"type": "QuotaReserved", "status": reserved},
			}},
		}
	}
	for _, tc := range []struct {
		name     string
		obj, old map[string]interface{}
		want     string
	}{
		{"queue changed with quota reserved", obj("b", true, "True", "a"), obj("a", true, "True", "a"), "spec.queueName: FieldValueInvalid"},
		{"queue changed without quota", obj("b", true, "False", "a"), obj("a", true, "False", "a"), ""},
		{"pod sets changed while running", obj("a", false, "False", "b"), obj("a", false, "False", "a"), "spec.podSets: FieldValueInvalid"},
		{"pod sets changed while suspended", obj("a", true, "False", "b"), obj("a", true, "False", "a"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := violations(c, tc.obj, tc.old); got != tc.want {
				t.Errorf("violations %q, want %q", got, tc.want)
			}
		})
	}
}
