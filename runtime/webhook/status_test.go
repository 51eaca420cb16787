package webhook

import (
	"fmt"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestInvalidIsNewInvalid: invalid builds exactly apierrors.NewInvalid's
// status, for no, one, several and repeated errors, with and without a
// group.
func TestInvalidIsNewInvalid(t *testing.T) {
	if !rendersJSON {
		t.Log("this apimachinery's ErrorBody writes values as Go syntax: jsonValue is not used")
	}
	one := field.Invalid(field.NewPath("spec", "class"), "silver", "field is immutable")
	two := field.Forbidden(field.NewPath("spec", "labels"), `key "team" may not be removed: keys are immutable`)
	lists := map[string]field.ErrorList{
		"none":     nil,
		"one":      {one},
		"two":      {one, two},
		"repeated": {one, two, one, two, one},
	}
	var many field.ErrorList
	for i := 0; i < 300; i++ {
		many = append(many, field.Invalid(field.NewPath("spec", "ports").Index(i).Child("port"), int64(i), "field is immutable"))
	}
	lists["many"] = many
	// Values rendered by jsonValue.
	lists["values"] = field.ErrorList{
		field.Invalid(field.NewPath("spec", "containers"), []interface{}{map[string]interface{}{"name": "a<b>", "image": "x\u2028", "n": int64(1), "f": 1e21}}, "field is immutable"),
		field.Invalid(field.NewPath("spec", "template"), map[string]interface{}{"z": nil, "a": []interface{}{true, -0.000001, "\xff"}}, "field is immutable"),
		field.Invalid(field.NewPath("spec", "empty"), map[string]interface{}(nil), "field is immutable"),
	}
	for name, errs := range lists {
		for _, gk := range []schema.GroupKind{{Group: "example.com", Kind: "Widget"}, {Kind: "Pod"}} {
			t.Run(fmt.Sprintf("%s %s", name, gk), func(t *testing.T) {
				want := apierrors.NewInvalid(gk, "w", errs).Status()
				if got := invalid(gk, "w", errs); !reflect.DeepEqual(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
			})
		}
	}
}
