package crdvalidation

import (
	"encoding/json"
	"fmt"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// TestCostDiagnosticsSuffice is the loop a user follows: generate, add
// exactly the bounds the cost diagnostics name, regenerate — and the CRD
// fits. The diagnostics must sit only at the markers whose rules need
// bounds, and name no bound that is not needed.
func TestCostDiagnosticsSuffice(t *testing.T) {
	cases := []struct {
		name   string
		spec   string // properties of spec; "@immutable": N / "@keys": N mark at line N
		blamed []int  // lines of the markers the diagnostics name
	}{{
		name: "a =keys list map among markers that fit unbounded",
		spec: `{
			"name":{"@immutable":1,"type":"string"},
			"labels":{"@keys":2,"type":"object","additionalProperties":{"type":"string"}},
			"ports":{"@keys":3,"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"@immutable":4,"type":"string"},"port":{"type":"integer"}}}},
			"tags":{"@immutable":5,"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
			"image":{"@immutable":6,"type":"object","properties":{"repository":{"type":"string"},"tag":{"type":"string"}}},
			"ordered":{"@immutable":7,"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}`,
		blamed: []int{3},
	}, {
		name: "immutable map values",
		spec: `{
			"name":{"@immutable":1,"type":"string"},
			"frozen":{"type":"object","additionalProperties":{"@immutable":2,"type":"string"}}}`,
		blamed: []int{2},
	}, {
		name: "an immutable field of atomic list items and of list map items",
		spec: `{
			"args":{"type":"array","items":{"type":"object","properties":{"value":{"@immutable":1,"type":"string"},"note":{"type":"string"}}}},
			"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"v":{"@immutable":2,"type":"string"}}}},
			"name":{"@immutable":3,"type":"string"}}`,
		blamed: []int{1, 2},
	}, {
		name: "a list map of list maps",
		spec: `{
			"routes":{"@immutable":1,"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"rules":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}}},
			"raw":{"@immutable":2,"type":"object","x-kubernetes-preserve-unknown-fields":true}}`,
		blamed: []int{1},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"type":"object","properties":{"spec":{"type":"object","properties":` + tc.spec + `}}}`
			diags := generateForCost(t, src)
			var blamed []int
			var fixes []string
			for _, d := range diags {
				if d.Severity != diag.Error {
					continue
				}
				if !strings.Contains(d.Message, "cost budget") || strings.Contains(d.Fix, "…") {
					t.Fatalf("not a cost diagnostic that names its bounds: %s", d)
				}
				blamed = append(blamed, d.Pos.Line)
				fixes = append(fixes, d.Fix)
			}
			if fmt.Sprint(blamed) != fmt.Sprint(tc.blamed) {
				t.Errorf("diagnostics at lines %v, want %v:\n%s", blamed, tc.blamed, diags)
			}
			// Add exactly what the messages name, and regenerate.
			var tree map[string]any
			if err := json.Unmarshal([]byte(src), &tree); err != nil {
				t.Fatal(err)
			}
			added := map[string]bool{}
			for _, f := range fixes {
				for _, a := range namedBounds(t, f) {
					added[a.path+" "+a.keyword] = true
					setAt(t, tree, a.path, a.keyword, a.value)
				}
			}
			data, _ := json.Marshal(tree)
			if after := generateForCost(t, string(data)); len(after) > 0 {
				t.Errorf("with the bounds the diagnostics named added (%v), the CRD still does not fit:\n%s", sortedSet(added), after)
			}
			// And none of them can be left out.
			for name := range added {
				if err := json.Unmarshal([]byte(src), &tree); err != nil {
					t.Fatal(err)
				}
				for _, f := range fixes {
					for _, a := range namedBounds(t, f) {
						if a.path+" "+a.keyword != name {
							setAt(t, tree, a.path, a.keyword, a.value)
						}
					}
				}
				data, _ := json.Marshal(tree)
				if after := generateForCost(t, string(data)); len(after) == 0 {
					t.Errorf("the diagnostics named %s, which is not needed", name)
				}
			}
		})
	}
}

type namedBound struct {
	keyword, path string
	value         int
}

var boundInFix = regexp.MustCompile(`\+kubebuilder:validation:(MaxItems|MaxLength|MaxProperties)=(\d+) on (\S+?)(?:,|;|$)`)

func namedBounds(t *testing.T, fix string) []namedBound {
	var out []namedBound
	for _, m := range boundInFix.FindAllStringSubmatch(fix, -1) {
		v, _ := strconv.Atoi(m[2])
		out = append(out, namedBound{strings.ToLower(m[1][:1]) + m[1][1:], m[3], v})
	}
	if len(out) == 0 {
		t.Fatalf("no bound named in %q", fix)
	}
	return out
}

// setAt sets keyword on the schema node at path (`spec.ports[*].name`).
func setAt(t *testing.T, root map[string]any, path, keyword string, value int) {
	node := root
	for _, part := range strings.Split(strings.ReplaceAll(path, "[*]", ".[*]"), ".") {
		switch {
		case part == "[*]" && node["type"] == "array":
			node = node["items"].(map[string]any)
		case part == "[*]":
			node = node["additionalProperties"].(map[string]any)
		default:
			node = node["properties"].(map[string]any)[part].(map[string]any)
		}
	}
	node[keyword] = value
}

func sortedSet(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// generateForCost lowers the marked schema src to CEL in a CRD and returns
// what the API server check reports.
func generateForCost(t *testing.T, src string) diag.List {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal([]byte(src), &raw); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if k != "@immutable" && k != "@keys" {
					walk(c)
				}
			}
			for _, k := range []string{"@immutable", "@keys"} {
				if line, ok := v[k].(float64); ok {
					delete(v, k)
					mark(t, v, k == "@keys", int(line))
				}
			}
		}
	}
	walk(raw)
	model, err := schema.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	if res := schema.EmitCEL(model); len(res.Inexpressible) > 0 {
		t.Fatalf("refused: %s", res.Inexpressible[0].Reason)
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "things.cost.example.com"},
		"spec": map[string]any{
			"group": "cost.example.com", "scope": "Namespaced",
			"names":    map[string]any{"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": raw}}},
		},
		"status": map[string]any{"storedVersions": []any{"v1"}},
	}
	data, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	var typed apiextv1.CustomResourceDefinition
	if err := json.Unmarshal(data, &typed); err != nil {
		t.Fatal(err)
	}
	srv := &countingServer{}
	ds, err := Check(srv, &typed, map[string]*schema.Node{"v1": model}, diag.Error)
	if err != nil {
		t.Fatal(err)
	}
	if srv.calls != 1 {
		t.Errorf("the API server's validation ran %d times, want once (bounds come from its cost estimate)", srv.calls)
	}
	return ds
}

// countingServer is the in-process server, counting its validations.
type countingServer struct{ calls int }

func (s *countingServer) ValidateCRD(crd *apiextensions.CustomResourceDefinition) (field.ErrorList, error) {
	s.calls++
	return apiserver.InProcess{}.ValidateCRD(crd)
}

// TestMissingBounds: the bounds named for the rules at or below a node, each
// once: the lists and maps around a rule (nearest first), then what it
// reads; bounded lists, maps and strings (and strings with an enum, or
// with a format whose length the server knows: duration, date, date-time)
// need none — a `format: uri` string needs maxLength.
func TestMissingBounds(t *testing.T) {
	const src = `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"args":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self == oldSelf"}]},
		"labels":{"type":"object","maxProperties":8,"additionalProperties":{"type":"string","maxLength":63},"x-kubernetes-validations":[{"rule":"self == oldSelf"}]},
		"ports":{"type":"array","items":{"type":"object","properties":{
			"name":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf"}]},
			"proto":{"type":"string","enum":["TCP","UDP"]},
			"host":{"type":"string","format":"hostname"}}}},
		"links":{"type":"array","items":{"type":"string","format":"uri"},"x-kubernetes-validations":[{"rule":"self == oldSelf"}]},
		"times":{"type":"array","items":{"type":"string","format":"date-time"},"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}}`
	var raw map[string]any
	if err := json.Unmarshal([]byte(src), &raw); err != nil {
		t.Fatal(err)
	}
	root := schema.FromExtensions(raw)
	spec := root.Properties["spec"]
	hasRules := func(n *schema.Node) bool { return n.Has("x-kubernetes-validations") }
	render := func(bs []Bound) string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Keyword+" on "+b.Node.Path())
		}
		return strings.Join(out, ", ")
	}
	cases := []struct {
		name string
		node *schema.Node
		want string
	}{
		{"a list of strings with a rule", spec.Properties["args"], "maxItems on spec.args, maxLength on spec.args[*]"},
		{"a bounded map", spec.Properties["labels"], ""},
		{"a rule on a field of list items", spec.Properties["ports"].Items.Properties["name"], "maxItems on spec.ports, maxLength on spec.ports[*].name"},
		{"a list of uri strings", spec.Properties["links"], "maxItems on spec.links, maxLength on spec.links[*]"},
		{"a list of date-time strings", spec.Properties["times"], "maxItems on spec.times"},
		{"the whole schema: every rule below", root, "maxItems on spec.args, maxLength on spec.args[*], maxItems on spec.links, maxLength on spec.links[*], maxItems on spec.ports, maxLength on spec.ports[*].name, maxItems on spec.times"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(MissingBounds(tc.node, hasRules)); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	b := Bound{Node: spec.Properties["args"], Keyword: "maxItems"}
	if got := b.Marker(); got != "+kubebuilder:validation:MaxItems=64" {
		t.Errorf("Marker() = %q", got)
	}
}

// TestCostLimitsAreTheServers: the limits the cost model judges by are the
// API server's.
func TestCostLimitsAreTheServers(t *testing.T) {
	if PerRuleCostLimit != apivalidation.StaticEstimatedCostLimit || SchemaCostLimit != apivalidation.StaticEstimatedCRDCostLimit {
		t.Errorf("limits %d, %d; the API server's are %d, %d", PerRuleCostLimit, SchemaCostLimit,
			apivalidation.StaticEstimatedCostLimit, apivalidation.StaticEstimatedCRDCostLimit)
	}
}

// mark marks n with a +immutable (or =keys) carrier at the given line.
func mark(t *testing.T, n map[string]any, keys bool, line int) map[string]any {
	t.Helper()
	o := schema.Origin{Keys: keys, Type: "example.com/v1.Spec", Field: "F", Pos: token.Position{Filename: "types.go", Line: line, Column: 2}}
	n["x-kubernetes-validations"] = []any{map[string]any{"rule": o.Carrier()}}
	return n
}
