package runtime_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
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

// A Checker for a part of the kind (Field) checks that part on its own, as
// apimachinery's ValidateXUpdate functions do; its conditions read the
// kind's whole objects, given to ValidateUpdateBelow.
func ExampleChecker_Field() {
	s := &spec.Schema{SchemaProps: spec.SchemaProps{
		Type: []string{"object"},
		Properties: map[string]spec.Schema{
			"spec": {SchemaProps: spec.SchemaProps{
				Type: []string{"object"},
				Properties: map[string]spec.Schema{
					"suspend": {SchemaProps: spec.SchemaProps{Type: []string{"boolean"}}},
					"image": {
						SchemaProps: spec.SchemaProps{Type: []string{"string"}},
						VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
							runtime.ExtImmutable: true,
							runtime.ExtWhen:      "!has(self.spec.suspend) || !self.spec.suspend",
						}},
					},
				},
			}},
		},
	}}
	kind, err := runtime.Compile(s)
	if err != nil {
		panic(err)
	}
	specChecker, err := kind.Field("spec")
	if err != nil {
		panic(err)
	}
	for _, suspend := range []bool{false, true} {
		old := map[string]interface{}{"spec": map[string]interface{}{"suspend": suspend, "image": "a"}}
		obj := map[string]interface{}{"spec": map[string]interface{}{"suspend": suspend, "image": "b"}}
		errs := specChecker.ValidateUpdateBelow(obj["spec"].(map[string]interface{}), old["spec"].(map[string]interface{}), field.NewPath("spec"), obj, old)
		fmt.Printf("suspend=%v: %v\n", suspend, errs)
	}
	// Output:
	// suspend=false: [spec.image: Invalid value: "b": field is immutable]
	// suspend=true: []
}
