package proof

import (
	"fmt"
	"testing"
)

// crdYAML is a small CRD with the given rules on spec.a (a string) and
// spec (the parent).
func crdYAML(fieldRules, parentRules string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  names: {kind: Thing, listKind: ThingList, plural: things, singular: thing}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            x-kubernetes-validations: [%s]
            properties:
              a:
                type: string
                maxLength: 8
                x-kubernetes-validations: [%s]
              b: {type: string, maxLength: 8}
`, parentRules, fieldRules))
}

func TestClasses(t *testing.T) {
	a := []Field{{CRD: "things.example.com", Version: "v1", Path: []string{"spec", "a"}}}
	eq := `{rule: "self == oldSelf"}`
	presence := `{rule: "has(self.a) == has(oldSelf.a)", fieldPath: ".a"}`
	for _, c := range []struct {
		name          string
		before, after []byte
		want          map[Class]bool
	}{
		{"same rules", crdYAML(eq, ""), crdYAML(eq, ""), nil},
		{"presence closes a hole", crdYAML(eq, ""), crdYAML(eq, presence), map[Class]bool{ClosesHole: true}},
		{"a rule dropped", crdYAML(eq, ""), crdYAML("", ""), map[Class]bool{NewAcceptance: true}},
		{"a refusal of another field", crdYAML(eq, ""), crdYAML(eq, `{rule: "!has(self.b) || !has(oldSelf.b) || self.b == oldSelf.b"}`), map[Class]bool{NewRefusal: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Run(map[string][]byte{"x.yaml": c.before}, map[string][]byte{"x.yaml": c.after}, a, Options{Updates: 300})
			if err != nil {
				t.Fatal(err)
			}
			got := map[Class]bool{}
			for _, d := range rep.CRDs[0].Differences {
				got[d.Class] = true
				if d.Count == 0 || d.Old == nil || d.New == nil {
					t.Errorf("difference without an example: %+v", d)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("classes %v, want %v\n%+v", got, c.want, rep)
			}
			if r := rep.CRDs[0]; r.Updates-r.Targeted != 300 || r.Targeted == 0 {
				t.Errorf("%d updates, %d targeted", r.Updates, r.Targeted)
			}
			for _, d := range rep.Missing() {
				t.Errorf("found by random updates only (a targeted case missing): %+v", d)
			}
		})
	}
}

// TestConditionalClasses: for a field immutable under a condition (the
// original's rule `<lock> || …`), a refusal of a change is a closed hole
// only on updates where the condition holds; where it does not, the
// migrated CRD refusing is a new refusal (a condition dropped).
func TestConditionalClasses(t *testing.T) {
	const when = `has(oldSelf.spec.b) && oldSelf.spec.b == "lock"`
	a := []Field{{CRD: "things.example.com", Version: "v1", Path: []string{"spec", "a"}, When: when}}
	noModify := `{rule: "!(has(oldSelf.b) && oldSelf.b == 'lock') || !has(self.a) || !has(oldSelf.a) || self.a == oldSelf.a"}`
	presence := `{rule: "!(has(oldSelf.b) && oldSelf.b == 'lock') || has(self.a) == has(oldSelf.a)", fieldPath: ".a"}`
	for _, c := range []struct {
		name          string
		before, after []byte
		want          map[Class]bool
	}{
		{"same rules", crdYAML("", noModify), crdYAML("", noModify), nil},
		{"presence under the condition closes a hole", crdYAML("", noModify), crdYAML("", noModify+", "+presence), map[Class]bool{ClosesHole: true}},
		{"the condition dropped", crdYAML("", noModify), crdYAML(`{rule: "self == oldSelf"}`, ""), map[Class]bool{NewRefusal: true}},
		{"the rule dropped", crdYAML("", noModify), crdYAML("", ""), map[Class]bool{NewAcceptance: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Run(map[string][]byte{"x.yaml": c.before}, map[string][]byte{"x.yaml": c.after}, a, Options{Updates: 300})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.CRDs[0]
			got := map[Class]bool{}
			for _, d := range r.Differences {
				got[d.Class] = true
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("classes %v, want %v\n%+v", got, c.want, rep)
			}
			// Both sides of the condition are compared.
			if r.Conditional != r.Updates || r.Held < 50 || r.Held > r.Updates-50 {
				t.Errorf("the condition held on %d of %d updates", r.Held, r.Conditional)
			}
		})
	}
}

// TestLiterals: the strings the rules compare with become the values the
// differential draws.
func TestLiterals(t *testing.T) {
	s := map[string]any{"x-kubernetes-validations": []any{
		map[string]any{"rule": `oldSelf.conditions.exists(c, c.type == 'Ready' && c.status == "True")`},
		map[string]any{"rule": `not CEL (`},
	}, "properties": map[string]any{"a": map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": `self != 'legacy'`}}}}}
	if got := fmt.Sprint(literals(s, nil)); got != "[Ready True legacy]" {
		t.Errorf("literals %s", got)
	}
}

// TestUpdates: the updates Run draws, for other validators: as many as
// asked, old objects the CRD accepts on creation, the field changed in
// some.
func TestUpdates(t *testing.T) {
	a := []Field{{CRD: "things.example.com", Version: "v1", Path: []string{"spec", "a"}}}
	n, changedA := 0, 0
	err := Updates(crdYAML(`{rule: "self == oldSelf"}`, ""), "v1", a, 200, 1, func(o, nw map[string]any) error {
		n++
		if fmt.Sprint(o["spec"]) != fmt.Sprint(nw["spec"]) {
			changedA++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 200 || changedA < 100 {
		t.Errorf("%d updates, %d changed", n, changedA)
	}
	if err := Updates(crdYAML("", ""), "v2", a, 1, 1, func(o, nw map[string]any) error { return nil }); err == nil {
		t.Errorf("no version v2: no error")
	}
}

func TestChanged(t *testing.T) {
	s := map[string]any{"type": "object", "properties": map[string]any{
		"m": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"k"},
			"items": map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"type": "string"}, "v": map[string]any{"type": "string"}}}},
	}}
	item := func(k, v string) map[string]any { return map[string]any{"k": k, "v": v} }
	old := map[string]any{"m": []any{item("a", "1"), item("b", "2")}}
	for _, c := range []struct {
		new  map[string]any
		path []string
		want bool
	}{
		{map[string]any{"m": []any{item("b", "2"), item("a", "1")}}, []string{"m"}, false},
		{map[string]any{"m": []any{item("a", "1")}}, []string{"m"}, true},
		{map[string]any{}, []string{"m"}, true},
		{map[string]any{"m": []any{item("b", "3"), item("a", "1")}}, []string{"m", "[]", "v"}, true},
		{map[string]any{"m": []any{item("b", "2")}}, []string{"m", "[]", "v"}, false},
	} {
		if got := changed(s, old, c.new, c.path); got != c.want {
			t.Errorf("%v at %v: changed %v, want %v", c.new, c.path, got, c.want)
		}
	}
}
