package webhook

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/internal/engine"
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

// TestInvalidMarshaled: a denial whose values ValidateUpdateMarshaled
// wrote from the object's bytes (engine.MarshaledValue) has exactly the
// status apierrors.NewInvalid builds from the decoded values: keys out of
// order and duplicated, HTML characters, U+2028, escapes, numbers spelled
// otherwise, and repeated messages; and where the values are decoded.
func TestInvalidMarshaled(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "gadgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := enforce.FromCRD(b)
	if err != nil {
		t.Fatal(err)
	}
	c := rs[0].Checker
	gadget := func(spec string) []byte { return []byte(`{"spec":{` + spec + `}}`) }
	marshaled := 0
	for _, pair := range [][2]string{
		{`"class":{"b":"<x>&","a":[1,2.5,-0,12.5e1,1E-7,"\u2028"],"a":3,"é":"\ud800"}`, `"class":{"a":3}`},
		{`"class":[{"z":null,"y":true},{"\u0061":1.0,"a":10E-1,"b":[]}]`, `"class":[{"y":true,"z":null},{"a":2}]`},
		{`"class":{"n":1234567890123456789,"m":-9223372036854775808,"s":"\"\\\/\b\f\n\r\t\u0000"}`, `"class":{}`},
		// Not written from the bytes: the text of an integral float beyond
		// 2^53 may not tell equal numbers; a value of another kind.
		{`"class":{"n":12345678901234567890}`, `"class":{}`},
		{`"class":[1e21]`, `"class":[]`},
		{`"class":{"a":1}`, `"class":"gold"`},
		{`"class":{"same":1}`, `"class":{"same":1.0}`},
	} {
		obj, err := c.DecodeObject(gadget(pair[0]))
		if err != nil {
			t.Fatal(err)
		}
		old, err := c.DecodeOldObject(gadget(pair[1]), obj)
		if err != nil {
			t.Fatal(err)
		}
		errs := (*engine.Checker)(c).ValidateUpdateMarshaled(obj, old)
		decoded := make(field.ErrorList, 0, 2*len(errs))
		for _, e := range errs {
			d := *e
			if v, ok := e.BadValue.(engine.MarshaledValue); ok {
				marshaled++
				d.BadValue = v.Value()
			}
			decoded = append(decoded, &d)
		}
		// Twice: a repeated message is written once, its cause twice.
		errs = append(errs, errs...)
		decoded = append(decoded, decoded...)
		for _, gk := range []schema.GroupKind{{Group: "example.com", Kind: "Gadget"}, {Kind: "Pod"}} {
			want := apierrors.NewInvalid(gk, "g", decoded).Status()
			if got := invalid(gk, "g", errs); !reflect.DeepEqual(got, want) {
				t.Errorf("%s\ngot  %+v\nwant %+v", pair[0], got, want)
			}
		}
	}
	if marshaled != 3 {
		t.Errorf("%d values written from their bytes, want 3", marshaled)
	}
}
