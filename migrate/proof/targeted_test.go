package proof

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// listCRD is a CRD whose spec holds an optional struct with a list map,
// a set, an atomic list and a map, with the given rules on the list map.
func listCRD(listRules string) []byte {
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
            properties:
              paused: {type: boolean}
              group:
                type: object
                required: [deps]
                properties:
                  deps:
                    type: array
                    maxItems: 8
                    x-kubernetes-list-type: map
                    x-kubernetes-list-map-keys: [name]
                    x-kubernetes-validations: [%s]
                    items:
                      type: object
                      required: [name]
                      properties:
                        name: {type: string, maxLength: 8}
                        status: {type: string, enum: [Ready, Complete]}
                  tags:
                    type: array
                    maxItems: 4
                    x-kubernetes-list-type: set
                    items: {type: string, maxLength: 8}
                  args:
                    type: array
                    maxItems: 4
                    items: {type: string, maxLength: 8}
                  labels:
                    type: object
                    maxProperties: 4
                    additionalProperties: {type: string, maxLength: 8}
                  size: {type: integer, minimum: 0, maximum: 10}
`, listRules))
}

// TestTargetedUpdates: the targeted updates of a field are derived from
// the schema and do not depend on the seed: each list reordered, appended
// to and truncated, keys added and removed, optional fields set later and
// removed, the optional ancestor removed and added back, values at their
// bounds.
func TestTargetedUpdates(t *testing.T) {
	cs, err := loadCRDs(map[string][]byte{"x.yaml": listCRD("")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := cs["things.example.com"]
	tg := newTargeter(c, "v1", nil, []string{"Ready"})
	us, err := tg.updates(0, Field{Path: []string{"spec", "group"}})
	if err != nil {
		t.Fatal(err)
	}
	var whats []string
	for _, u := range us {
		whats = append(whats, u.what)
	}
	all := strings.Join(whats, "\n")
	for _, want := range []string{
		"remove spec.group", "set spec.group later", "replace spec.group",
		"reorder at deps in spec.group", "append at deps in spec.group", "truncate at deps in spec.group",
		"remove the first item at deps in spec.group", `set to "Complete" at deps[0].status in spec.group`, "remove at deps[0].status in spec.group",
		"reorder at tags in spec.group", "append at tags in spec.group",
		"reorder at args in spec.group", "truncate at args in spec.group",
		"add a key at labels in spec.group", "remove the key k at labels in spec.group",
		"set to 0 at size in spec.group", "set to 10 at size in spec.group",
		"remove the ancestor spec", "add the ancestor spec back, the field at other values",
		"replace spec.paused, beside spec.group",
		"reversed: append at deps in spec.group",
	} {
		if !slices.Contains(whats, want) {
			t.Errorf("no targeted update %q; got:\n%s", want, all)
		}
	}
	tg2 := newTargeter(c, "v1", nil, []string{"Ready"})
	again, err := tg2.updates(0, Field{Path: []string{"spec", "group"}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again) != fmt.Sprint(us) {
		t.Errorf("the targeted updates differ from one run to the next")
	}
}

// TestTargetedDecide: a migrated CRD that compares a list map in order
// where the original's `self == oldSelf` did not (CEL compares list maps
// by key) is a new refusal found by the targeted updates, with every
// seed; a random update that finds a difference no targeted one did is a
// targeted case missing.
func TestTargetedDecide(t *testing.T) {
	f := []Field{{CRD: "things.example.com", Version: "v1", Path: []string{"spec", "group", "deps"}}}
	unordered := `{rule: "self == oldSelf"}`
	ordered := `{rule: "self == oldSelf && self.map(x, x.name) == oldSelf.map(x, x.name)"}`
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rep, err := Run(map[string][]byte{"x.yaml": listCRD(unordered)}, map[string][]byte{"x.yaml": listCRD(ordered)}, f, Options{Updates: 100, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, d := range rep.CRDs[0].Differences {
				if d.Class == NewRefusal && d.Targeted > 0 && strings.Contains(d.Update, "reorder") && slices.Equal(d.Fields, []int{0}) {
					found = true
				}
				if d.Missing() {
					t.Errorf("found by random updates only: %+v", d)
				}
			}
			if !found {
				t.Errorf("no targeted reorder refused: %+v", rep)
			}
		})
	}
}
