package runtime_test

import (
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// openAPIDefinitions is what openapi-gen generates for
//
//	type Widget struct { Spec WidgetSpec }
//	type WidgetSpec struct {
//		// +immutable
//		Class string
//		// +listType=map
//		// +listMapKey=name
//		Ports []Port
//		// +immutable=keys
//		Selector map[string]string
//		Tree *Node
//	}
//	// +immutable
//	type Port struct { Name string; Port int32 }
//	type Node struct { ID string /* +immutable */; Children []Node }
func openAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	const pkg = "example.com/widgets/v1."
	return map[string]common.OpenAPIDefinition{
		pkg + "Widget": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Type: []string{"object"},
			Properties: map[string]spec.Schema{
				"spec": {SchemaProps: spec.SchemaProps{Default: map[string]interface{}{}, Ref: ref(pkg + "WidgetSpec")}},
			},
		}}, Dependencies: []string{pkg + "WidgetSpec"}},
		pkg + "WidgetSpec": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Type: []string{"object"},
			Properties: map[string]spec.Schema{
				"class": {
					SchemaProps:      spec.SchemaProps{Type: []string{"string"}},
					VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-immutable": true}},
				},
				"ports": {
					VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
						"x-kubernetes-list-type":     "map",
						"x-kubernetes-list-map-keys": []interface{}{"name"},
					}},
					SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &spec.Schema{
						SchemaProps: spec.SchemaProps{Default: map[string]interface{}{}, Ref: ref(pkg + "Port")},
					}}},
				},
				"selector": {
					VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-immutable-keys": true}},
					SchemaProps: spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: &spec.Schema{
						SchemaProps: spec.SchemaProps{Type: []string{"string"}},
					}}},
				},
				"tree": {SchemaProps: spec.SchemaProps{Ref: ref(pkg + "Node")}},
			},
		}}},
		pkg + "Port": {Schema: spec.Schema{
			VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-immutable": true}},
			SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
				"name": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
				"port": {SchemaProps: spec.SchemaProps{Type: []string{"integer"}}},
			}},
		}},
		pkg + "Node": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
			"id": {
				SchemaProps:      spec.SchemaProps{Type: []string{"string"}},
				VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-immutable": true}},
			},
			"children": {SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &spec.Schema{
				SchemaProps: spec.SchemaProps{Ref: ref(pkg + "Node")},
			}}}},
		}}}},
	}
}

func TestCompileDefinitions(t *testing.T) {
	callbacks := map[string]common.ReferenceCallback{
		"go name": func(p string) spec.Ref { return spec.MustCreateRef(p) },
		"v2 friendly name": func(p string) spec.Ref {
			return spec.MustCreateRef("#/definitions/" + common.EscapeJsonPointer(util.ToRESTFriendlyName(p)))
		},
		"v3 escaped go name": func(p string) spec.Ref {
			return spec.MustCreateRef("#/components/schemas/" + common.EscapeJsonPointer(p))
		},
	}
	oldObj := `
spec:
  class: a
  ports: [{name: http, port: 80}, {name: https, port: 443}]
  selector: {app: w}
  tree: {id: r, children: [{id: a}, {id: b, children: [{id: c}]}]}`
	newObj := `
spec:
  class: b
  ports: [{name: https, port: 8443}, {name: http, port: 80}, {name: new, port: 1}]
  selector: {app: x}
  tree: {id: r, children: [{id: a}, {id: b, children: [{id: d}]}, {id: e}]}`
	want := []string{
		`spec.class: Invalid value: "b": field is immutable`,
		`spec.ports[0]: Invalid value: {"name":"https","port":8443}: field is immutable`,
		`spec.tree.children[1].children[0].id: Invalid value: "d": field is immutable`,
	}
	for name, cb := range callbacks {
		t.Run(name, func(t *testing.T) {
			c, err := runtime.CompileDefinitions(openAPIDefinitions(cb), "example.com/widgets/v1.Widget")
			if err != nil {
				t.Fatal(err)
			}
			checkMessages(t, c.ValidateUpdate(object(t, newObj), object(t, oldObj)), want)
		})
	}
	if _, err := runtime.CompileDefinitions(openAPIDefinitions(callbacks["go name"]), "nope"); err == nil {
		t.Error("unknown definition name: no error")
	}
}

const widgetCRD = `
apiVersion: v1
kind: Namespace
metadata: {name: unrelated}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              old: {type: string, x-kubernetes-immutable: true}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              class: {type: string, x-kubernetes-immutable: true}
              labels:
                type: object
                x-kubernetes-immutable-keys: true
                additionalProperties: {type: string}
---
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
          bad: {type: string, x-kubernetes-immutable: "true"}
`

func TestCompileCRD(t *testing.T) {
	oldObj := object(t, `spec: {class: a, old: a, labels: {a: b}}`)
	newObj := object(t, `spec: {class: b, old: b, labels: {a: c}}`)
	cases := []struct {
		name    string
		opts    runtime.CRDOptions
		want    []string
		wantErr string
	}{
		{name: "storage version by name", opts: runtime.CRDOptions{Name: "widgets.example.com"},
			want: []string{`spec.class: Invalid value: "b": field is immutable`}},
		{name: "version by name", opts: runtime.CRDOptions{Group: "example.com", Kind: "Widget", Version: "v1alpha1"},
			want: []string{`spec.old: Invalid value: "b": field is immutable`}},
		{name: "no such version", opts: runtime.CRDOptions{Kind: "Widget", Version: "v2"},
			wantErr: `CustomResourceDefinition widgets.example.com has no version "v2" (versions: v1, v1alpha1)`},
		{name: "ambiguous", opts: runtime.CRDOptions{},
			wantErr: `2 CustomResourceDefinitions in the manifest (widgets.example.com, gadgets.example.com)`},
		{name: "no match", opts: runtime.CRDOptions{Kind: "Gizmo"},
			wantErr: `no CustomResourceDefinition of kind Gizmo in the manifest`},
		{name: "schema error with its path", opts: runtime.CRDOptions{Kind: "Gadget"},
			wantErr: `spec.versions[0].schema.openAPIV3Schema.properties[bad]: x-kubernetes-immutable must be the boolean true, not the string "true"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := runtime.CompileCRD([]byte(widgetCRD), tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkMessages(t, c.ValidateUpdate(newObj, oldObj), tc.want)
		})
	}
}

func TestCompileCRDJSONAndList(t *testing.T) {
	manifest := `{"apiVersion": "v1", "kind": "List", "items": [
	  {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
	   "metadata": {"name": "widgets.example.com"},
	   "spec": {"group": "example.com", "names": {"kind": "Widget"}, "versions": [
	     {"name": "v1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {
	       "type": "object", "properties": {"a": {"type": "string", "x-kubernetes-immutable": true}}}}}]}}]}`
	c, err := runtime.CompileCRD([]byte(manifest), runtime.CRDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, c.ValidateUpdate(object(t, `a: b`), object(t, `a: a`)),
		[]string{`a: Invalid value: "b": field is immutable`})
}

func TestCompileCRDBadInput(t *testing.T) {
	for name, manifest := range map[string]string{
		"bad yaml":    "a: [b\n",
		"empty":       "",
		"not objects": "- a\n- b\n",
	} {
		if _, err := runtime.CompileCRD([]byte(manifest), runtime.CRDOptions{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
