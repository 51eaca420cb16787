package runtime_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/form"
)

// formTransition is one update of the node a form stands on, with what
// the form table says of it.
type formTransition struct {
	name     string
	old, new string // the node's JSON, "" for absent
	refused  func(form.Form) bool
}

// TestEveryForm: the runtime enforces every form of the form table
// (runtime/form) with the verdicts its Presence and Change rules give,
// read from the form's own extensions, on a property and, where the table
// allows it, on map values (where a form means its canonical form there).
// A form the runtime does not enforce, or enforces otherwise, fails here.
func TestEveryForm(t *testing.T) {
	noSet := func(f form.Form) bool { return f.Presence&form.NoSet != 0 }
	noUnset := func(f form.Form) bool { return f.Presence&form.NoUnset != 0 }
	noChange := func(f form.Form) bool { return f.Change == form.NoChange }
	noKeys := func(f form.Form) bool { return f.Change != form.AnyChange }
	never := func(form.Form) bool { return false }
	transitions := []formTransition{
		{"set later", "", `{"a":"1"}`, noSet},
		{"removed", `{"a":"1"}`, "", noUnset},
		{"a value changed", `{"a":"1"}`, `{"a":"2"}`, noChange},
		{"a key added", `{"a":"1"}`, `{"a":"1","b":"2"}`, noKeys},
		{"a key removed", `{"a":"1","b":"2"}`, `{"a":"1"}`, noKeys},
		{"unchanged", `{"a":"1"}`, `{"a":"1"}`, never},
		{"absent in both", "", "", never},
	}
	for _, k := range form.Kinds() {
		f := form.Form{Presence: k.Presence, Change: k.Change}
		exts := ""
		for _, e := range k.Extensions {
			exts += fmt.Sprintf("%s: true\n", e)
		}
		// On a property: a map, so that every form (keys too) has a place.
		t.Run(k.Name+"/property", func(t *testing.T) {
			c := compileYAML(t, `
type: object
properties:
  spec:
    type: object
    properties:
      m:
        type: object
        additionalProperties: {type: string}
`+indent(exts, 8))
			for _, tr := range transitions {
				errs := c.ValidateUpdate(specWith(t, "m", tr.new), specWith(t, "m", tr.old))
				if want := tr.refused(f); (len(errs) > 0) != want {
					t.Errorf("%s: refused %v (%v), the table says %v", tr.name, len(errs) > 0, errs, want)
				}
			}
		})
		if !k.Places.Elements {
			continue
		}
		// On map values: each value comes and goes with its key; the form
		// means its canonical form for a node that is always present.
		t.Run(k.Name+"/values", func(t *testing.T) {
			c := compileYAML(t, `
type: object
properties:
  spec:
    type: object
    properties:
      m:
        type: object
        additionalProperties:
          type: object
          additionalProperties: {type: string}
`+indent(exts, 10))
			canon := f.Canonical(true)
			for _, tr := range transitions {
				if tr.old == "" || tr.new == "" {
					continue
				}
				errs := c.ValidateUpdate(specWith(t, "m", `{"v":`+tr.new+`}`), specWith(t, "m", `{"v":`+tr.old+`}`))
				if want := tr.refused(canon); (len(errs) > 0) != want {
					t.Errorf("%s: refused %v (%v), the table says %v", tr.name, len(errs) > 0, errs, want)
				}
			}
			// A value added or removed with its key is never a violation.
			if errs := c.ValidateUpdate(specWith(t, "m", `{"v":{"a":"1"},"w":{"a":"1"}}`), specWith(t, "m", `{"v":{"a":"1"}}`)); len(errs) > 0 {
				t.Errorf("a value added with its key: %v", errs)
			}
		})
	}
}

// specWith is an object whose spec holds name with the JSON value v
// (absent when v is "").
func specWith(t *testing.T, name, v string) map[string]interface{} {
	if v == "" {
		return object(t, `{"spec":{}}`)
	}
	return object(t, `{"spec":{"`+name+`":`+v+`}}`)
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(pad + l + "\n")
	}
	return b.String()
}
