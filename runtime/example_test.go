package runtime_test

import (
	"fmt"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
)

func ExampleCompile() {
	s := &spec.Schema{SchemaProps: spec.SchemaProps{
		Type: []string{"object"},
		Properties: map[string]spec.Schema{
			"spec": {SchemaProps: spec.SchemaProps{
				Type: []string{"object"},
				Properties: map[string]spec.Schema{
					"class": {
						SchemaProps:      spec.SchemaProps{Type: []string{"string"}},
						VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{runtime.ExtImmutable: true}},
					},
				},
			}},
		},
	}}
	checker, err := runtime.Compile(s)
	if err != nil {
		panic(err)
	}
	old := map[string]interface{}{"spec": map[string]interface{}{"class": "gold"}}
	obj := map[string]interface{}{"spec": map[string]interface{}{"class": "silver"}}
	for _, e := range checker.ValidateUpdate(obj, old) {
		fmt.Println(e)
	}
	// Output:
	// spec.class: Invalid value: "silver": field is immutable
}

func ExampleCompileCRD() {
	manifest := []byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
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
            properties:
              labels:
                type: object
                x-kubernetes-immutable-keys: true
                additionalProperties: {type: string}
`)
	checker, err := runtime.CompileCRD(manifest, runtime.CRDOptions{})
	if err != nil {
		panic(err)
	}
	old := map[string]interface{}{"spec": map[string]interface{}{"labels": map[string]interface{}{"team": "a"}}}
	obj := map[string]interface{}{"spec": map[string]interface{}{"labels": map[string]interface{}{"team": "b", "tier": "db"}}}
	for _, e := range checker.ValidateUpdate(obj, old) {
		fmt.Println(e)
	}
	// Output:
	// spec.labels: Forbidden: key "tier" may not be added: keys are immutable
}
