package openapi

import (
	"slices"
	"testing"

	formtable "github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/runtime/immutableopenapi"
	"github.com/immutable-gen/immutable-gen/schema"
)

// TestEveryFormWritten: for every form of the form table (runtime/form),
// the marks openapi generates for a marker of that form set exactly the
// form's extensions (which the runtime enforces: runtime's TestEveryForm),
// with and without +immutable:ignoreOrder beside it. A form openapi drops
// or writes otherwise fails here.
func TestEveryFormWritten(t *testing.T) {
	// The extension each constant of immutableopenapi names, as the
	// generated code refers to it.
	value := map[string]string{
		"Immutable": immutableopenapi.Immutable, "ImmutableKeys": immutableopenapi.ImmutableKeys,
		"ImmutableOnce": immutableopenapi.ImmutableOnce, "IgnoreOrder": immutableopenapi.IgnoreOrder,
		"NoModify": immutableopenapi.NoModify, "NoSet": immutableopenapi.NoSet, "NoUnset": immutableopenapi.NoUnset,
	}
	for _, k := range formtable.Kinds() {
		o := schema.Origin{}.WithForm(formtable.Form{Presence: k.Presence, Change: k.Change})
		var got []string
		for _, f := range formsOf(o) {
			ext, ok := value[extensionNames[f]]
			if !ok {
				t.Fatalf("%s: form %d names %q, no constant of immutableopenapi", k.Name, f, extensionNames[f])
			}
			got = append(got, ext)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(k.Extensions))
		if !slices.Equal(got, want) {
			t.Errorf("%s: openapi writes %v, the table says %v", k.Name, got, want)
		}
	}
}
