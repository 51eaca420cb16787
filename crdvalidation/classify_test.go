package crdvalidation

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// crd makes a small CRD with one version per schema (v1, v2, …); with one
// schema, or equal ones, the internal form keeps it once in
// spec.validation.
func crd(t *testing.T, plural string, schemas ...string) *apiextv1.CustomResourceDefinition {
	t.Helper()
	var versions []string
	for i, s := range schemas {
		versions = append(versions, fmt.Sprintf(`{"name":"v%d","served":true,"storage":%t,"schema":{"openAPIV3Schema":%s}}`, i+1, i == 0, s))
	}
	js := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"` + plural + `","singular":"widget","kind":"Widget","listKind":"WidgetList"},
		"versions":[` + strings.Join(versions, ",") + `]}}`
	c := &apiextv1.CustomResourceDefinition{}
	if err := json.Unmarshal([]byte(js), c); err != nil {
		t.Fatalf("%s: %v", plural, err)
	}
	return c
}

// spec wraps properties into a root object with a spec object.
func spec(props string) string {
	return `{"type":"object","properties":{"spec":{"type":"object","properties":{` + props + `}}}}`
}

// TestClassifyServerErrors runs apiextensions-apiserver's own
// ValidateCustomResourceDefinition on small CRDs crafted to provoke one
// class each, and checks every error's class; the errors with their class
// and location are in testdata/golden/apiserver/classes.txt.
func TestClassifyServerErrors(t *testing.T) {
	nested := `"args":{"type":"array","items":{"type":"array","items":{"type":"string"}},"x-kubernetes-validations":[{"rule":%s%s}]}`
	expensive := `"self.all(x, x.all(y, self.all(z, z.all(w, w == y))))"`
	regexRule := `{"rule":"self.matches('^a+$') && self.matches('^b+$') && self.matches('^c+$')"}`
	manyStrings := `{"type":"array","maxItems":100000,"items":{"type":"string","maxLength":1000,"x-kubernetes-validations":[` + regexRule + `]}}`
	cases := []struct {
		name string
		crd  *apiextv1.CustomResourceDefinition
		want []ServerClass // in the order Validate gives them: by the error's text
	}{
		{"oldSelf under atomic list items", crd(t, "uncorrelatables", spec(`"args":{"type":"array","maxItems":4,"items":{"type":"object","properties":{"v":{"type":"string","maxLength":8,"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}`)),
			[]ServerClass{ServerUncorrelatable}},
		{"rule that does not compile", crd(t, "compiles", spec(`"name":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldself"}]}`)),
			[]ServerClass{ServerRuleInvalid}},
		{"messageExpression that does not compile", crd(t, "messages", spec(`"name":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","messageExpression":"self.nope"}]}`)),
			[]ServerClass{ServerMessageExpressionInvalid}},
		{"optionalOldSelf without oldSelf", crd(t, "optionals", spec(`"n":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= 0","optionalOldSelf":true}]}`)),
			[]ServerClass{ServerOptionalOldSelf}},
		{"rule over the per-rule budget", crd(t, "rulecosts", spec(fmt.Sprintf(nested, expensive, ""))),
			[]ServerClass{ServerCostShare, ServerRuleCost, ServerSchemaCost}},
		{"messageExpression over the per-rule budget", crd(t, "messagecosts", spec(fmt.Sprintf(nested, `"true"`, `,"messageExpression":"self.all(x, x.all(y, self.all(z, z.all(w, w == y)))) ? 'a' : 'b'"`))),
			[]ServerClass{ServerCostShare, ServerMessageExpressionCost, ServerSchemaCost}},
		{"rules over the schema's total budget", crd(t, "totals", spec(`"a":`+manyStrings+`,"b":`+manyStrings+`,"c":`+manyStrings)),
			[]ServerClass{ServerCostShare, ServerRuleCost, ServerCostShare, ServerRuleCost, ServerCostShare, ServerRuleCost, ServerSchemaCost}},
		{"list map without keys", crd(t, "listmaps", spec(`"ports":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"name":{"type":"string"}}}}`)),
			[]ServerClass{ServerListMapKeys}},
		{"unknown list type", crd(t, "listtypes", spec(`"l":{"type":"array","x-kubernetes-list-type":"bag","items":{"type":"string"}}`)),
			[]ServerClass{ServerListType}},
		{"default of the wrong type", crd(t, "defaults", spec(`"n":{"type":"integer","default":"x"}`)),
			[]ServerClass{ServerDefault}},
		{"list map key neither required nor defaulted", crd(t, "keys", spec(`"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"}}}}`)),
			[]ServerClass{ServerDefault}},
		{"map type on a scalar", crd(t, "maptypes", spec(`"n":{"type":"integer","x-kubernetes-map-type":"granular"}`)),
			[]ServerClass{ServerRefused}},
		{"second version's schema", crd(t, "versions", spec(`"n":{"type":"integer"}`), spec(`"n":{"type":"integer","x-kubernetes-validations":[{"rule":"self == oldself"}]}`)),
			[]ServerClass{ServerRuleInvalid}},
	}
	var classes strings.Builder
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			internal, err := Internal(tc.crd)
			if err != nil {
				t.Fatal(err)
			}
			errs, err := Validate(apiserver.InProcess{}, internal)
			if err != nil {
				t.Fatal(err)
			}
			var got []ServerClass
			fmt.Fprintf(&classes, "# %s (%s)\n", tc.name, tc.crd.Name)
			for _, e := range errs {
				got = append(got, e.Class)
				fmt.Fprintf(&classes, "%s %s %q: %s", e.Class, e.Type, e.Field, strings.Join(DetailLines(e.Detail), " "))
				if e.Schema != "" {
					fmt.Fprintf(&classes, "\n  schema %s version %d below %q at %q rule %d %q", e.Schema, e.Version, e.Below, e.At, e.Rule, e.RuleField)
				}
				if e.Factor != "" {
					fmt.Fprintf(&classes, " factor %q", e.Factor)
				}
				if e.Within != "" {
					fmt.Fprintf(&classes, " within %q", e.Within)
				}
				classes.WriteString("\n")
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("classes %v, want %v", got, tc.want)
			}
		})
	}
	golden.Check(t, filepath.Join("..", "testdata", "golden", "apiserver", "classes.txt"), []byte(classes.String()))
}

// TestClassifyServerErrorByField: the class comes from the error's type and
// field; the detail decides only between classes on one field.
func TestClassifyServerErrorByField(t *testing.T) {
	schema := field.NewPath("spec", "versions").Index(2).Child("schema", "openAPIV3Schema")
	rule := schema.Child("properties[a]", "x-kubernetes-validations").Index(1)
	cases := []struct {
		name string
		err  *field.Error
		want ServerClass
		at   string
		idx  int
	}{
		{"compile error", field.Invalid(rule.Child("rule"), "x", "compilation failed"), ServerRuleInvalid, ".properties[a]", 1},
		{"a compile error that mentions cost is not a cost error", field.Invalid(rule.Child("rule"), "self.cost", "undefined field 'cost'"), ServerRuleInvalid, ".properties[a]", 1},
		{"empty rule", field.Required(rule.Child("rule"), ""), ServerRuleInvalid, ".properties[a]", 1},
		{"uncorrelatable", field.Invalid(rule.Child("rule"), "x", "oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[2].schema.openAPIV3Schema.properties[a]"), ServerUncorrelatable, ".properties[a]", 1},
		{"rule cost", field.Forbidden(rule.Child("rule"), "estimated rule cost exceeds budget by factor of 2.5x (try …)"), ServerRuleCost, ".properties[a]", 1},
		{"cost share", field.Forbidden(rule.Child("rule"), "contributed to estimated rule cost total exceeding cost limit"), ServerCostShare, ".properties[a]", 1},
		{"messageExpression cost", field.Forbidden(rule.Child("messageExpression"), "estimated messageExpression cost exceeds budget"), ServerMessageExpressionCost, ".properties[a]", 1},
		{"messageExpression", field.Invalid(rule.Child("messageExpression"), "x", "messageExpression compilation failed"), ServerMessageExpressionInvalid, ".properties[a]", 1},
		{"optionalOldSelf", field.Invalid(rule.Child("optionalOldSelf"), true, "may not be set"), ServerOptionalOldSelf, ".properties[a]", 1},
		{"schema total", field.Forbidden(schema, "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 3.2x"), ServerSchemaCost, "", -1},
		{"list map keys item", field.Invalid(schema.Child("properties[a]", "x-kubernetes-list-map-keys").Index(0), "k", "must be a property"), ServerListMapKeys, ".properties[a].x-kubernetes-list-map-keys[0]", -1},
		{"reason of a rule", field.NotSupported(rule.Child("reason"), "Nope", []string{"FieldValueInvalid"}), ServerRefused, ".properties[a]", 1},
		{"outside the schema", field.Invalid(field.NewPath("spec", "names", "plural"), "Widgets", "must be lowercase"), ServerRefused, "", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.err)
			if got.Class != tc.want || got.At != tc.at || got.Rule != tc.idx {
				t.Errorf("class %q at %q rule %d, want %q at %q rule %d", got.Class, got.At, got.Rule, tc.want, tc.at, tc.idx)
			}
			if got.Error != tc.err {
				t.Error("the classified error must be the one given")
			}
		})
	}
	e := Classify(field.Invalid(rule.Child("rule"), "x", "oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[2].schema.openAPIV3Schema.properties[a].items"))
	if e.Within != ".properties[a].items" || e.Version != 2 || e.Schema != "spec.versions[2].schema.openAPIV3Schema" {
		t.Errorf("uncorrelatable: within %q version %d schema %q", e.Within, e.Version, e.Schema)
	}
	if e := Classify(field.Forbidden(schema, "… exceeds budget by factor of more than 100x (try simplifying)")); e.Factor != "more than 100x" {
		t.Errorf("factor %q", e.Factor)
	}
}
