package diag

import (
	"errors"
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
			Diagnostic{ID: "IG005", Pos: pos, Severity: Error, Marker: "+immutable=keys", CRD: "gadgets.example.com", Version: "v1", Path: "spec.ports", Message: "=keys on a list map requires its key \"name\" to be immutable", Fix: "add // +immutable to the key field"},
			`api/v1/types.go:21:2: error[IG005]: +immutable=keys (gadgets.example.com v1: spec.ports): =keys on a list map requires its key "name" to be immutable; fix: add // +immutable to the key field`},
		{"no position: the subject says where",
			Diagnostic{Severity: Warning, Subject: "CRD widgets.example.com", Message: "the API server would refuse this CRD"},
			"warning: CRD widgets.example.com: the API server would refuse this CRD"},
		{"a schema and a path without a marker",
			Diagnostic{Severity: Warning, Subject: "CRD", CRD: "widgets.example.com", Version: "v1", Path: "spec.x", Message: "m"},
			"warning: CRD widgets.example.com v1: spec.x: m"},
		{"no subject, no fix",
			Diagnostic{ID: "IG007", Pos: pos, Severity: Note, Message: "redundant"},
			"api/v1/types.go:21:2: info[IG007]: redundant"},
		{"no ID: the severity alone",
			Diagnostic{Pos: pos, Severity: Note, Message: "redundant"},
			"api/v1/types.go:21:2: info: redundant"},
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
	for s, want := range map[Severity]string{Note: "info", Warning: "warning", Error: "error"} {
		if got := s.String(); got != want {
			t.Errorf("%d: got %q, want %q", s, got, want)
		}
		if back, err := ParseSeverity(want); err != nil || back != s {
			t.Errorf("ParseSeverity(%q) = %v, %v; want %v", want, back, err, s)
		}
	}
	for _, bad := range []string{"note", "Warning", "", "fatal"} {
		if _, err := ParseSeverity(bad); err == nil {
			t.Errorf("ParseSeverity(%q) took it; want an error naming info, warning and error", bad)
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

// TestReport: with a printer, Report hands it every diagnostic and fails
// with an error wrapping ErrFindings exactly when one is an error.
func TestReport(t *testing.T) {
	cases := []struct {
		name     string
		l        List
		wantFail bool
	}{
		{"nothing", nil, false},
		{"info and warning", List{{ID: "IG007", Severity: Note}, {ID: "IG040", Severity: Warning}}, false},
		{"an error", List{{ID: "IG041", Severity: Error}, {ID: "IG040", Severity: Warning}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got List
			err := tc.l.Report(func(l List) { got = append(got, l...) }, "crd")
			if len(got) != len(tc.l) {
				t.Errorf("the printer got %d diagnostics, want %d", len(got), len(tc.l))
			}
			if (err != nil) != tc.wantFail {
				t.Fatalf("err = %v, want failure %v", err, tc.wantFail)
			}
			if err != nil && (!errors.Is(err, ErrFindings) || err.Error() != "crd: the immutability markers have errors") {
				t.Errorf("err = %q, want crd: wrapping ErrFindings", err)
			}
		})
	}
}

// TestSummary: the counts by severity and ID, and how many reach a
// --fail-on threshold.
func TestSummary(t *testing.T) {
	cases := []struct {
		name     string
		l        List
		want     string
		atLeastW int
	}{
		{"none", nil, "no findings", 0},
		{"one of each", List{{ID: "IG041", Severity: Error}, {ID: "IG040", Severity: Warning}, {ID: "IG007", Severity: Note}},
			"3 finding(s): 1 error(s), 1 warning(s), 1 info (IG007 ×1, IG040 ×1, IG041 ×1)", 2},
		{"an ID twice", List{{ID: "IG013", Severity: Warning}, {ID: "IG013", Severity: Warning}},
			"2 finding(s): 0 error(s), 2 warning(s), 0 info (IG013 ×2)", 2},
		{"info only", List{{ID: "IG007", Severity: Note}}, "1 finding(s): 0 error(s), 0 warning(s), 1 info (IG007 ×1)", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.Summary(); got != tc.want {
				t.Errorf("Summary:\ngot  %s\nwant %s", got, tc.want)
			}
			if got := tc.l.AtLeast(Warning); got != tc.atLeastW {
				t.Errorf("AtLeast(Warning) = %d, want %d", got, tc.atLeastW)
			}
			if got := tc.l.AtLeast(Note); got != len(tc.l) {
				t.Errorf("AtLeast(Note) = %d, want all %d", got, len(tc.l))
			}
		})
	}
}
