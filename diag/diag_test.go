package diag

import (
	"go/token"
	"slices"
	"testing"
)

func TestString(t *testing.T) {
	pos := token.Position{Filename: "api/v1/types.go", Line: 21, Column: 2}
	cases := []struct {
		name string
		d    Diagnostic
		want string
	}{
		{"position, subject and fix",
			Diagnostic{Pos: pos, Severity: Error, Marker: "+immutable=keys", CRD: "gadgets.example.com", Version: "v1", Path: "spec.ports", Message: "=keys on a list map requires its key \"name\" to be immutable", Fix: "add // +immutable to the key field"},
			`api/v1/types.go:21:2: error: +immutable=keys (gadgets.example.com v1: spec.ports): =keys on a list map requires its key "name" to be immutable; fix: add // +immutable to the key field`},
		{"no position: the subject says where",
			Diagnostic{Severity: Warning, Subject: "CRD widgets.example.com", Message: "the API server would refuse this CRD"},
			"warning: CRD widgets.example.com: the API server would refuse this CRD"},
		{"a schema and a path without a marker",
			Diagnostic{Severity: Warning, Subject: "CRD", CRD: "widgets.example.com", Version: "v1", Path: "spec.x", Message: "m"},
			"warning: CRD widgets.example.com v1: spec.x: m"},
		{"no subject, no fix",
			Diagnostic{Pos: pos, Severity: Note, Message: "redundant"},
			"api/v1/types.go:21:2: note: redundant"},
		{"a position with a file only is still printed",
			Diagnostic{Pos: token.Position{Filename: "types.go", Line: 3}, Severity: Error, Message: "m"},
			"types.go:3: error: m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	for s, want := range map[Severity]string{Note: "note", Warning: "warning", Error: "error"} {
		if got := s.String(); got != want {
			t.Errorf("%d: got %q, want %q", s, got, want)
		}
	}
	if !(Note < Warning && Warning < Error) {
		t.Error("severities must order note < warning < error: the CLI compares them")
	}
}

func TestHasErrors(t *testing.T) {
	cases := []struct {
		name string
		l    List
		want bool
	}{
		{"empty", nil, false},
		{"notes and warnings", List{{Severity: Note}, {Severity: Warning}}, false},
		{"one error among others", List{{Severity: Note}, {Severity: Error}, {Severity: Warning}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.HasErrors(); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSort(t *testing.T) {
	at := func(file string, line, col int) token.Position {
		return token.Position{Filename: file, Line: line, Column: col}
	}
	in := List{
		{Pos: at("b.go", 1, 1), Severity: Error, Message: "b1"},
		{Pos: at("a.go", 10, 2), Severity: Error, Message: "a10"},
		{Pos: at("a.go", 2, 5), Severity: Warning, Message: "a2 col5"},
		{Pos: at("a.go", 2, 1), Severity: Note, Message: "a2 col1 z"},
		{Pos: at("a.go", 2, 1), Severity: Error, Message: "a2 col1 a"},
		// A type-level marker reported once per use: exact duplicates go.
		{Pos: at("a.go", 10, 2), Severity: Error, Message: "a10"},
		{Severity: Warning, Subject: "CRD x", Message: "no position"},
	}
	orig := slices.Clone(in)
	got := in.Sort()
	var msgs []string
	for _, d := range got {
		msgs = append(msgs, d.Message)
	}
	want := []string{"no position", "a2 col1 a", "a2 col1 z", "a2 col5", "a10", "b1"}
	if !slices.Equal(msgs, want) {
		t.Errorf("order:\ngot  %q\nwant %q", msgs, want)
	}
	if !slices.EqualFunc(in, orig, func(a, b Diagnostic) bool { return a.String() == b.String() }) {
		t.Error("Sort changed its receiver; it returns a sorted copy")
	}
}
