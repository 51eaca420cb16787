package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// TestOnceEnforced checks that the set-once extension the generated code
// writes is enforced by the immutable-gen runtime, on the definitions
// GetOpenAPIDefinitions and ApplyImmutability give (as an aggregated API
// server holds them) and on the v2 document kube-openapi's builder makes
// of them: absent → set is allowed, set → changed is Invalid, set → removed
// is Forbidden, for a scalar, a struct, a set and a field of a set-once
// named type.
func TestOnceEnforced(t *testing.T) {
	checkers := map[string]*runtime.Checker{}

	c, err := runtime.CompileDefinitions(getDefinitions(func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + common.EscapeJsonPointer(name))
	}), testAPI+".Gadget")
	if err != nil {
		t.Fatal(err)
	}
	checkers["definitions"] = c

	swagger, err := builder.BuildOpenAPIDefinitionsForResources(&common.Config{
		Info:           &spec.Info{InfoProps: spec.InfoProps{Title: "test", Version: "v1"}},
		GetDefinitions: getDefinitions,
	}, testAPITypes()...)
	if err != nil {
		t.Fatal(err)
	}
	var root *spec.Schema
	for name, s := range swagger.Definitions {
		if strings.HasSuffix(name, "v1.Gadget") {
			root = &s
		}
	}
	if root == nil {
		t.Fatal("the v2 document has no Gadget definition")
	}
	if c, err = runtime.CompileWithDefinitions(root, swagger.Definitions); err != nil {
		t.Fatal(err)
	}
	checkers["v2 document"] = c

	for _, tc := range []struct {
		name     string
		old, new string // spec properties beside name, placement and source
		want     []string
	}{
		{"scalar absent to set", `{}`, `{"volumeID": "vol-1"}`, nil},
		{"scalar unchanged", `{"volumeID": "vol-1"}`, `{"volumeID": "vol-1"}`, nil},
		{"scalar changed", `{"volumeID": "vol-1"}`, `{"volumeID": "vol-2"}`, []string{invalid("spec.volumeID")}},
		{"scalar removed", `{"volumeID": "vol-1"}`, `{}`, []string{forbidden("spec.volumeID")}},
		{"struct absent to set", `{}`, `{"endpoint": {"zone": "a"}}`, nil},
		{"struct changed inside", `{"endpoint": {"zone": "a"}}`, `{"endpoint": {"zone": "a", "rack": "r1"}}`, []string{invalid("spec.endpoint")}},
		{"struct removed", `{"endpoint": {"zone": "a"}}`, `{}`, []string{forbidden("spec.endpoint")}},
		{"set absent to set", `{}`, `{"zones": ["a", "b"]}`, nil},
		{"set reordered", `{"zones": ["a", "b"]}`, `{"zones": ["b", "a"]}`, nil},
		{"set item added", `{"zones": ["a", "b"]}`, `{"zones": ["a", "b", "c"]}`, []string{invalid("spec.zones")}},
		{"set removed", `{"zones": ["a"]}`, `{}`, []string{forbidden("spec.zones")}},
		{"named type absent to set", `{}`, `{"claim": "c1"}`, nil},
		{"named type changed", `{"claim": "c1"}`, `{"claim": "c2"}`, []string{invalid("spec.claim")}},
		{"named type removed", `{"claim": "c1"}`, `{}`, []string{forbidden("spec.claim")}},
		// +immutable:when, carried as x-immutable-gen-when.
		{"conditional changed while running", `{"tier": "a"}`, `{"tier": "b"}`, []string{invalid("spec.tier")}},
		{"conditional changed while paused", `{"tier": "a", "paused": true}`, `{"tier": "b", "paused": true}`, nil},
		{"conditional changed as it resumes", `{"tier": "a", "paused": true}`, `{"tier": "b", "paused": false}`, []string{invalid("spec.tier")}},
	} {
		for via, c := range checkers {
			t.Run(via+"/"+tc.name, func(t *testing.T) {
				errs := c.ValidateUpdate(gadget(t, tc.new), gadget(t, tc.old))
				var got []string
				for _, e := range errs {
					got = append(got, string(e.Type)+" "+e.Field)
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("errors:\n%v\nwant\n%v", errs, tc.want)
				}
			})
		}
	}
}

// gadget returns a Gadget whose spec has the required properties and the
// properties in specJSON.
func gadget(t *testing.T, specJSON string) map[string]any {
	t.Helper()
	s := map[string]any{}
	if err := json.Unmarshal([]byte(specJSON), &s); err != nil {
		t.Fatal(err)
	}
	s["name"] = "g"
	s["placement"] = map[string]any{"zone": "z"}
	s["source"] = map[string]any{"url": "https://example.com"}
	return map[string]any{"apiVersion": "openapi.example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}, "spec": s}
}

func invalid(path string) string   { return string(field.ErrorTypeInvalid) + " " + path }
func forbidden(path string) string { return string(field.ErrorTypeForbidden) + " " + path }
