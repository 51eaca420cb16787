package markers

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/immutable-gen/immutable-gen/diag"
)

// TestRefusals: an error controller-tools records about a marker becomes
// one finding: ours (IG041, with the forms as fix), another's (IG043, the
// marker as subject), ours refused where it stands (IG041, its message
// says the fix); anything else is not about a marker.
func TestRefusals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "types.go")
	src := "package v1\n\ntype S struct {\n\t// +immutable=true\n\t// +kubebuilder:validation:MaxLength=abc\n\t// +k8s:update=Bogus\n\tA string\n\t// plain comment\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(line, col int) token.Position { return token.Position{Filename: file, Line: line, Column: col} }
	cases := []struct {
		name    string
		pos     token.Position
		msg     string
		ok      bool
		id      diag.ID
		subject string
		fix     string
	}{
		{"ours at its comment", at(4, 2), "invalid marker +immutable=true: the only forms are …", true, IDInvalid, "", fixOwnMarker},
		{"validation-gen's tag at its comment is ours", at(6, 2), "unknown constraint Bogus", true, IDInvalid, "", fixOwnMarker},
		{"another's at its comment", at(5, 2), `expected integer, got "abc"`, true, IDUnparsed, "+kubebuilder:validation:MaxLength=abc", fixOtherMarker},
		{"ours refused at the field", at(7, 2), "+immutable:message on field S.A has no immutability marker beside it; add …", true, IDInvalid, "", ""},
		{"a plain comment", at(8, 2), "something", false, "", "", ""},
		{"no position", token.Position{}, "unknown type Foo", false, "", "", ""},
		{"a file that cannot be read", token.Position{Filename: file + ".missing", Line: 1, Column: 1}, "x", false, "", "", ""},
		{"a column past the line", at(4, 200), "x", false, "", "", ""},
	}
	r, err := NewRefusals()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := r.Diagnostic(tc.pos, tc.msg)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%s)", ok, tc.ok, d)
			}
			if !ok {
				return
			}
			if d.ID != tc.id || d.Subject != tc.subject || d.Fix != tc.fix || d.Severity != diag.Error || d.Message != tc.msg || d.Pos != tc.pos {
				t.Errorf("got %+v\nwant ID %s, subject %q, fix %q", d, tc.id, tc.subject, tc.fix)
			}
		})
	}
}
