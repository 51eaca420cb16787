package jsontag

import (
	"reflect"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		tag                    reflect.StructTag
		found                  bool
		name                   string
		ignored, inline, empty bool
	}{
		{tag: ``},
		{tag: `json:"name"`, found: true, name: "name"},
		{tag: `json:"name,omitempty"`, found: true, name: "name", empty: true},
		{tag: `json:",inline"`, found: true, inline: true},
		{tag: `json:""`, found: true, inline: true},
		{tag: `json:"spec,inline"`, found: true, name: "spec", inline: true},
		{tag: `json:"-"`, found: true, name: "-", ignored: true},
		{tag: `json:"-,"`, found: true, name: "-"},
	} {
		got, ok := Lookup(tc.tag)
		if ok != tc.found || got.Name != tc.name || got.Ignored() != tc.ignored || (ok && got.Inline() != tc.inline) || got.Has("omitempty") != tc.empty {
			t.Errorf("Lookup(%s) = %+v, %v (ignored %v, inline %v)", tc.tag, got, ok, got.Ignored(), got.Inline())
		}
	}
}
