package schema_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/immutable-gen/immutable-gen/schema"
)

var costTable = flag.Bool("costtable", false, "print TestCELShapeCosts as the Markdown table of docs/semantics.md")

// Typical bounds: what the cost diagnostics suggest and the table assumes.
const (
	typicalItems      = 64
	typicalLength     = 253
	typicalProperties = 64
)

// TestCELShapeCosts lowers every shape the CEL lowering emits, once without
// any bound and once with the typical bounds on every list, map and string,
// and asks the API server's CRD validation whether the CRD fits the cost
// budget. A shape may need bounds only where a correct hand-written rule
// would (docs/semantics.md, "Rules and their cost").
func TestCELShapeCosts(t *testing.T) {
	str := `{"type":"string"}`
	obj := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`
	lm := func(mark, itemMark, keyMark string) string {
		return `{` + mark + `"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{` + itemMark + `"type":"object","required":["name"],"properties":{"name":{` + keyMark + `"type":"string"},"v":{"type":"string"}}}}`
	}
	lm2 := `{"@immutable":true,"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","port"],"items":{"type":"object","required":["name","port"],"properties":{"name":{"type":"string"},"port":{"type":"integer"},"v":{"type":"string"}}}}`
	nested := `{"@immutable":true,"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"inner":` + lm("", "", "") + `}}}`
	cases := []struct {
		shape, field string
		needs        string // the bounds needed, "" for none
	}{
		{"+immutable scalar (required)", `{"@immutable":true,"type":"string"}`, ""},
		{"+immutable struct", `{"@immutable":true,"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, ""},
		{"+immutable map", `{"@immutable":true,"type":"object","additionalProperties":` + str + `}`, ""},
		{"+immutable=keys map", `{"@keys":true,"type":"object","additionalProperties":` + str + `}`, ""},
		{"+immutable map values", `{"type":"object","additionalProperties":{"@immutable":true,"type":"string"}}`, "MaxProperties on spec.f, MaxLength on spec.f[*]"},
		{"+immutable atomic list", `{"@immutable":true,"type":"array","items":` + str + `}`, ""},
		{"+immutable set", `{"@immutable":true,"type":"array","x-kubernetes-list-type":"set","items":` + str + `}`, ""},
		{"+immutable list map (in order)", lm(`"@immutable":true,`, "", ""), ""},
		{"+immutable list map, two keys", lm2, ""},
		{"+immutable list map of list maps", nested, "MaxItems on spec.f, MaxItems on spec.f[*].inner"},
		{"+immutable +immutable:ignoreOrder list map", lm(`"@ignoreOrder":true,`, "", ""), ""},
		{"+immutable +immutable:ignoreOrder list map of list maps", strings.Replace(nested, `"@immutable"`, `"@ignoreOrder"`, 1), ""},
		{"+immutable list map items", lm("", `"@immutable":true,`, ""), ""},
		{"+immutable field of list map items", `{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"v":{"@immutable":true,"type":"string"}}}}`, "MaxItems on spec.f, MaxLength on spec.f[*].v"},
		{"+immutable=keys list map (key fields +immutable)", lm(`"@keys":true,`, "", `"@immutable":true,`), "MaxItems on spec.f, MaxLength on spec.f[*].name"},
		{"+immutable atomic list items", `{"type":"array","items":{"@immutable":true,"type":"string"}}`, "MaxItems on spec.f, MaxLength on spec.f[*]"},
		{"+immutable field of atomic list items", `{"type":"array","items":{"type":"object","properties":{"a":{"@immutable":true,"type":"string"},"b":{"type":"string"}}}}`, "MaxItems on spec.f, MaxLength on spec.f[*].a"},
		{"+immutable free-form object", `{"@immutable":true,"type":"object","x-kubernetes-preserve-unknown-fields":true}`, ""},
		{"+immutable embedded resource", `{"@immutable":true,"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}`, ""},
		{"+immutable object of free-form content", `{"@immutable":true,"type":"object","properties":{"raw":{"type":"object","x-kubernetes-preserve-unknown-fields":true},"n":` + obj + `}}`, ""},
	}
	if *costTable {
		fmt.Println("| shape | rules | max cost per call, typical bounds | bounds needed |")
		fmt.Println("|---|---|---|---|")
	}
	for _, tc := range cases {
		t.Run(tc.shape, func(t *testing.T) {
			src := `{"type":"object","properties":{"spec":{"type":"object","required":["f"],"properties":{"f":` + tc.field + `}}}}`
			needs := strings.Join(neededBounds(t, src), ", ")
			if needs != tc.needs {
				t.Errorf("needs %q, want %q", needs, tc.needs)
			}
			raw := parseMarked(t, src)
			addTypicalBounds(raw, nil)
			typical, costs := lowerAndCheck(t, raw)
			if !typical {
				t.Errorf("does not fit with typical bounds (MaxItems %d, MaxLength %d, MaxProperties %d)", typicalItems, typicalLength, typicalProperties)
			}
			if *costTable {
				var rules, cs []string
				for _, c := range costs {
					rules = append(rules, "`"+strings.ReplaceAll(c.rule, "|", `\|`)+"`")
					cs = append(cs, fmt.Sprint(c.cost))
				}
				if needs == "" {
					needs = "none"
				}
				fmt.Printf("| %s | %s | %s | %s |\n", tc.shape, strings.Join(rules, "<br>"), strings.Join(cs, " + "), needs)
			}
		})
	}
}

type ruleCost struct {
	rule string
	cost uint64
}

// lowerAndCheck lowers raw to CEL and reports whether the API server's CRD
// validation accepts it, failing on any other refusal, and the estimated
// per-call cost of each rule.
func lowerAndCheck(t *testing.T, raw map[string]any) (bool, []ruleCost) {
	t.Helper()
	root, err := schema.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	res := schema.EmitCEL(root)
	if len(res.Inexpressible) > 0 {
		t.Fatalf("refused: %s", res.Inexpressible[0].Reason)
	}
	var v1 apiextv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(js(raw)), &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	fits := true
	for _, e := range validateCRDSchema(&internal) {
		if !strings.Contains(e.Detail, "cost") {
			t.Fatalf("the API server refuses the lowered schema: %v\n%s", e, js(raw))
		}
		fits = false
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	var costs []ruleCost
	var walk func(s *structuralschema.Structural, isRoot bool)
	walk = func(s *structuralschema.Structural, isRoot bool) {
		if len(s.XValidations) > 0 {
			results, err := cel.Compile(s, model.SchemaDeclType(s, isRoot), celconfig.PerCallLimit,
				environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader())
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range results {
				if r.Error != nil {
					t.Fatalf("%s: %v", s.XValidations[i].Rule, r.Error)
				}
				costs = append(costs, ruleCost{s.XValidations[i].Rule, r.MaxCost})
			}
		}
		for _, k := range sortedKeysOf(s.Properties) {
			p := s.Properties[k]
			walk(&p, false)
		}
		if s.Items != nil {
			walk(s.Items, false)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			walk(s.AdditionalProperties.Structural, false)
		}
	}
	walk(ss, true)
	return fits, costs
}

func sortedKeysOf(m map[string]structuralschema.Structural) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// neededBounds finds a smallest set of typical bounds that makes the
// lowered schema fit: all of them, then without each one that is not
// needed.
func neededBounds(t *testing.T, src string) []string {
	all := addTypicalBounds(parseMarked(t, src), nil)
	skip := map[string]bool{}
	if fits, _ := lowerAndCheck(t, parseMarked(t, src)); fits {
		return nil
	}
	var needed []string
	for _, b := range all {
		skip[b] = true
		raw := parseMarked(t, src)
		addTypicalBounds(raw, skip)
		if fits, _ := lowerAndCheck(t, raw); !fits {
			skip[b] = false
			needed = append(needed, b)
		}
	}
	return needed
}

// addTypicalBounds bounds every unbounded list, map and string in raw
// except those in skip, and names the bounds it added.
func addTypicalBounds(raw map[string]any, skip map[string]bool) []string {
	var added []string
	var walk func(v map[string]any, path string)
	walk = func(v map[string]any, path string) {
		set := func(marker string, value int) {
			name := marker + " on " + path
			keyword := strings.ToLower(marker[:1]) + marker[1:]
			if _, ok := v[keyword]; !ok && !skip[name] {
				v[keyword] = value
				added = append(added, name)
			}
		}
		switch v["type"] {
		case "array":
			set("MaxItems", typicalItems)
		case "string":
			set("MaxLength", typicalLength)
		case "object":
			if _, ok := v["additionalProperties"]; ok {
				set("MaxProperties", typicalProperties)
			}
		}
		if props, ok := v["properties"].(map[string]any); ok {
			for _, k := range sortedAny(props) {
				walk(props[k].(map[string]any), strings.TrimPrefix(path+"."+k, "."))
			}
		}
		if items, ok := v["items"].(map[string]any); ok {
			walk(items, path+"[*]")
		}
		if values, ok := v["additionalProperties"].(map[string]any); ok {
			walk(values, path+"[*]")
		}
	}
	walk(raw, "")
	return added
}
