package form

import (
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// TestTable: the table's invariants, each a rule every reader relies on.
func TestTable(t *testing.T) {
	names, meanings, spellings := map[string]bool{}, map[[2]uint8]bool{}, map[string]string{}
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			if names[k.Name] {
				t.Errorf("name %q twice", k.Name)
			}
			names[k.Name] = true
			m := [2]uint8{uint8(k.Presence), uint8(k.Change)}
			if meanings[m] {
				t.Errorf("two kinds mean presence %b, change %d", k.Presence, k.Change)
			}
			meanings[m] = true
			if k.Presence == 0 && k.Change == AnyChange {
				t.Errorf("forbids nothing")
			}
			if k.Marker == "" && len(k.Tags) == 0 {
				t.Errorf("no spelling")
			}
			for _, s := range append(slices.Clone(k.Tags), k.Marker) {
				if s == "" {
					continue
				}
				if other, ok := spellings[s]; ok {
					t.Errorf("spelling %s is also %s's", s, other)
				}
				spellings[s] = k.Name
			}
			if len(k.Extensions) == 0 {
				t.Errorf("no extension")
			}
			for _, e := range k.Extensions {
				if !slices.Contains(extension.Names(), e) {
					t.Errorf("extension %s is not one of runtime/extension's", e)
				}
			}
			if k.Means == "" {
				t.Errorf("no meaning")
			}
			if (k.ValueMessage != "") != (k.Change != AnyChange) {
				t.Errorf("value message %q with change %s", k.ValueMessage, k.Change)
			}
			if (k.PresenceMessage != "") != (k.Presence != 0) || k.PresenceMessage != "" && strings.Count(k.PresenceMessage, "%s") != 1 {
				t.Errorf("presence message %q with presence %s: one %%s, the property's name, where there is a presence rule", k.PresenceMessage, k.Presence)
			}
			if k.Places.KeyedOnly != (k.Change == NoKeyChange) {
				t.Errorf("KeyedOnly %v with change %d: only the keys form needs keys", k.Places.KeyedOnly, k.Change)
			}
			// A form with a presence rule of its own and no change rule
			// (or only while present) means nothing on items and values,
			// whose presence is their key's: only forms whose canonical
			// form there is themselves may stand there.
			if k.Places.Elements {
				c := Form{Presence: k.Presence, Change: k.Change}.Canonical(true)
				if c.Presence != k.Presence || c.Change != k.Change {
					t.Errorf("allowed on elements, where it means %+v", c)
				}
			}
			if k.BeyondKEP == (k.Name == "immutable" || k.Name == "keys") {
				t.Errorf("BeyondKEP %v: the KEP defines immutable and keys only", k.BeyondKEP)
			}
		})
	}
}

// TestFromExtensions: the extensions of every kind read back as that kind,
// alone and with ignore-order beside.
func TestFromExtensions(t *testing.T) {
	for _, k := range Kinds() {
		for _, ignore := range []bool{false, true} {
			exts := slices.Clone(k.Extensions)
			if ignore {
				exts = append(exts, extension.IgnoreOrder)
			}
			f, ok := FromExtensions(func(e string) bool { return slices.Contains(exts, e) })
			got, _ := f.Kind()
			if !ok || got.Name != k.Name {
				t.Errorf("%s %v: read as %q (ok %v)", k.Name, exts, got.Name, ok)
			}
			if f.IgnoreOrder != (ignore && k.Change == NoChange) {
				t.Errorf("%s %v: IgnoreOrder %v", k.Name, exts, f.IgnoreOrder)
			}
		}
	}
	if _, ok := FromExtensions(func(e string) bool { return e == extension.IgnoreOrder }); ok {
		t.Errorf("ignore-order alone read as a form")
	}
}

// TestCanonical: the normal forms docs/semantics.md names ("One meaning
// per form"): a presence rule that cannot fail is dropped or merged.
func TestCanonical(t *testing.T) {
	kind := func(name string) Form {
		k, ok := Named(name)
		if !ok {
			t.Fatalf("no kind %s", name)
		}
		return Form{Presence: k.Presence, Change: k.Change}
	}
	cases := []struct {
		name   string
		in     Form
		always bool
		want   string // kind name, "" for no form
	}{
		{"once on a required property is immutable", kind("once"), true, "immutable"},
		{"once on an optional property stays", kind("once"), false, "once"},
		{"noModify on a required property is immutable", kind("noModify"), true, "immutable"},
		{"noModify on list items is immutable (eachVal)", kind("noModify"), true, "immutable"},
		{"noSetNoModify on a required property is immutable", kind("noSetNoModify"), true, "immutable"},
		{"noSet alone on a required property forbids nothing", kind("noSet"), true, ""},
		{"noSetNoUnset on a required property forbids nothing", kind("noSetNoUnset"), true, ""},
		{"keys on a required property stays keys", kind("keys"), true, "keys"},
		{"immutable stays", kind("immutable"), false, "immutable"},
	}
	for _, tc := range cases {
		got, ok := tc.in.Canonical(tc.always).Kind()
		if got.Name != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: %q (ok %v), want %q", tc.name, got.Name, ok, tc.want)
		}
	}
	if f := (Form{Presence: Kept, Change: NoKeyChange, IgnoreOrder: true}).Canonical(false); f.IgnoreOrder {
		t.Errorf("ignoreOrder kept beside keys, which compare key sets")
	}
}

// TestString: a form renders as its Go spelling with its modifiers.
func TestString(t *testing.T) {
	f := Form{Presence: Kept, Change: NoChange, IgnoreOrder: true, When: `self.spec.x == "a"`, Message: "name is fixed"}
	want := `+immutable +immutable:ignoreOrder +immutable:when="self.spec.x == \"a\"" +immutable:message="name is fixed"`
	if got := f.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := (Form{Presence: NoSet}).String(); got != "+k8s:update=NoSet" {
		t.Errorf("noSet: %s", got)
	}
}

// TestLowerings: each lowering names a version and a reason.
func TestLowerings(t *testing.T) {
	for _, l := range Lowerings() {
		if l.Name == "" || l.MinKubernetes == "" || l.Feature == "" || l.Since == "" || l.Where == "" {
			t.Errorf("incomplete lowering %+v", l)
		}
		if LoweringNamed(l.Name) != l {
			t.Errorf("LoweringNamed(%q) is another", l.Name)
		}
	}
}
