package schema

import (
	"go/token"
	"strings"
	"testing"
)

func TestOriginRendering(t *testing.T) {
	cases := []struct {
		name          string
		o             Origin
		marker, where string
	}{
		{"field +immutable", Origin{Type: "example.com/api/v1.WidgetSpec", Field: "Name"}, "+immutable", "field WidgetSpec.Name"},
		{"field +immutable=keys", Origin{Keys: true, Type: "example.com/api/v1.WidgetSpec", Field: "Ports"}, "+immutable=keys", "field WidgetSpec.Ports"},
		{"type +immutable=once", Origin{Once: true, Type: "example.com/api/v1.Ref"}, "+immutable=once", "type Ref"},
		{"unqualified type", Origin{Type: "Ref"}, "+immutable", "type Ref"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.Marker(); got != tc.marker {
				t.Errorf("Marker() = %q, want %q", got, tc.marker)
			}
			if got := tc.o.Where(); got != tc.where {
				t.Errorf("Where() = %q, want %q", got, tc.where)
			}
		})
	}
}

func TestParseCarrier(t *testing.T) {
	full := Origin{Keys: true, Message: "ports are fixed", Type: "example.com/v1.Spec", Field: "Ports", JSONName: "ports",
		Pos: token.Position{Filename: "types.go", Line: 7, Column: 2}, DeclPos: token.Position{Filename: "types.go", Line: 8, Column: 2},
		ItemFields: []ItemField{{JSON: "name", Go: "Name", Type: "v1.Port", Pos: token.Position{Filename: "types.go", Line: 20, Column: 2}}}}
	cases := []struct {
		name        string
		rule        string
		want        Origin
		carrier     bool
		errContains string
	}{
		{"round trip", full.Carrier(), full, true, ""},
		{"extension flag is not carried", Origin{Extension: true, Once: true}.Carrier(), Origin{Once: true}, true, ""},
		{"a CEL rule", "self == oldSelf", Origin{}, false, ""},
		{"the prefix without its space", "@immutable-gen:origin{}", Origin{}, false, ""},
		{"corrupt JSON", carrierPrefix + `{"keys":tru`, Origin{}, true, "corrupt immutability carrier"},
		{"wrong type", carrierPrefix + `{"keys":"yes"}`, Origin{}, true, "corrupt immutability carrier"},
		{"empty", carrierPrefix, Origin{}, true, "corrupt immutability carrier"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, isCarrier, err := ParseCarrier(tc.rule)
			if isCarrier != tc.carrier {
				t.Errorf("carrier = %v, want %v", isCarrier, tc.carrier)
			}
			if IsCarrier(tc.rule) != (tc.carrier || strings.HasPrefix(tc.rule, carrierPrefix)) {
				t.Errorf("IsCarrier(%q) disagrees", tc.rule)
			}
			if tc.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errContains) {
					t.Fatalf("error %v, want one containing %q", err, tc.errContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Marker() != tc.want.Marker() || got.Pos != tc.want.Pos || got.DeclPos != tc.want.DeclPos || got.Message != tc.want.Message ||
				got.Field != tc.want.Field || got.JSONName != tc.want.JSONName || got.Type != tc.want.Type || got.Extension ||
				len(got.ItemFields) != len(tc.want.ItemFields) || len(got.ItemFields) > 0 && got.ItemFields[0] != tc.want.ItemFields[0] {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestWhenRefusal: the runtime's subset refuses a condition at the
// construct it names, in the Go source, counting the characters the
// parser counts as the bytes a position counts (the escape of a Go
// string included).
func TestWhenRefusal(t *testing.T) {
	for _, tc := range []struct {
		name, when, quoted string
		col                int // in the Go source line; the condition starts at 22
		refused            bool
	}{
		{"taken", "has(self.spec.x)", `"has(self.spec.x)"`, 0, false},
		{"ASCII", "self.spec.x.matches('a')", `"self.spec.x.matches('a')"`, 22 + 12, true},
		{"after a non-ASCII character", "self.spec.x == 'é' && self.spec.x.matches('a')", `"self.spec.x == 'é' && self.spec.x.matches('a')"`, 22 + 35, true},
		{"after an escape", `self.spec.x == "\u00e9" && self.spec.x.matches('a')`, `"self.spec.x == \"\\u00e9\" && self.spec.x.matches('a')"`, 22 + 42, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Origin{Pos: token.Position{Filename: "types.go", Line: 6, Column: 2}, When: tc.when, WhenLine: 7, WhenColumn: 22, WhenQuoted: tc.quoted}
			pos, msg, refused := o.WhenRefusal()
			if refused != tc.refused {
				t.Fatalf("refused %v (%q), want %v", refused, msg, tc.refused)
			}
			if refused && (pos.Line != 7 || pos.Column != tc.col || !strings.Contains(msg, "matches")) {
				t.Errorf("at %d:%d: %s; want 7:%d, naming matches()", pos.Line, pos.Column, msg, tc.col)
			}
		})
	}
}
