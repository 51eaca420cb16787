package validators_test

import (
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime/form"
)

// TestEveryFormInTheDifferential: the test API whose typed validators
// TestDifferential compares with the runtime holds every form of the form
// table (runtime/form), so each form the typed validators implement is
// proven there; a form added to the table fails here until the test API
// (and so the typed validators) has it. The forms are read from the CRDs
// the crd generator writes for the test API, through the table's own
// reading of the extensions.
func TestEveryFormInTheDifferential(t *testing.T) {
	checkerFor(t, "Widget") // generates the CRDs once
	found := map[string]bool{}
	var walk func(s map[string]any)
	walk = func(s map[string]any) {
		if f, ok := form.FromExtensions(func(ext string) bool { return s[ext] == true }); ok {
			k, _ := f.Kind()
			found[k.Name] = true
		}
		for _, key := range []string{"items", "additionalProperties"} {
			if c, ok := s[key].(map[string]any); ok {
				walk(c)
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for _, p := range props {
				if c, ok := p.(map[string]any); ok {
					walk(c)
				}
			}
		}
	}
	for name, data := range crds {
		var crd struct {
			Spec struct {
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, v := range crd.Spec.Versions {
			walk(v.Schema.OpenAPIV3Schema)
		}
	}
	for _, k := range form.Kinds() {
		if !found[k.Name] {
			t.Errorf("form %s (%s) is in no field of testdata/apis/validators: add one, so that TestDifferential proves the typed validators enforce it", k.Name, k.Spelling())
		}
	}
}
