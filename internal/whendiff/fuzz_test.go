package whendiff

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/immutable-gen/immutable-gen/runtime/when"
)

// FuzzParseAgainstAPIServer: on any text, Parse and the API server agree
// where both can speak: a condition both take gets the same verdict on
// random updates; a condition Parse takes is never a syntax error to the
// API server (only a type error, or over its cost); a condition Parse
// refuses as not CEL (not as outside the subset) the API server refuses
// too. Seeds: the targeted conditions and the literal pieces; go test
// -fuzz explores from them (slowly: each input is a CRD validation).
func FuzzParseAgainstAPIServer(f *testing.F) {
	for _, c := range targeted {
		f.Add(c.cond)
	}
	for _, seed := range []string{
		"[,] == []", "[,1] == []", "size(,) == 0", "[1,,2] == []", "self.true", "self.in == 1", "!-1", "-1u < 0u", "--1 == 1",
		"1 < 2 < 3", "self.spec.?x == 1", "has(self)", "self.spec.l.all(i, v, true)", "true // c", "`a` == 1", "0x == 0",
		"1. == 1.0", ".5e1 == 5.0", "1e == 1", "'a' 'b'", "r'\\' == '\\\\'", "b'a' == b'a'",
	} {
		f.Add(seed)
	}
	for _, p := range escapedPieces {
		f.Add("'" + p.src + "' == ''")
	}
	h := newHarness(f)
	g := &gen{rng: rand.New(rand.NewPCG(1, 37))}
	pairs := make([][2]map[string]any, 8)
	for k := range pairs {
		old := g.object()
		pairs[k] = [2]map[string]any{g.mutate(old), old}
	}
	f.Fuzz(func(t *testing.T, cond string) {
		if strings.ContainsAny(cond, "\r\n") {
			return // one line, as the marker is
		}
		if !utf8.ValidString(cond) {
			// Parse refuses it; the API server reads the bytes as U+FFFD,
			// but no CRD manifest (JSON, YAML) carries them as written.
			return
		}
		e, perr := when.Parse(cond)
		v, ss, refused := h.srv.compile(cond)
		switch {
		case perr != nil:
			var se *when.SyntaxError
			if !errors.As(perr, &se) {
				t.Fatalf("Parse(%q): %v, not a *SyntaxError", cond, perr)
			}
			if refused == "" && !strings.Contains(se.Msg, "is not in the subset") {
				t.Fatalf("the API server takes %q; Parse calls it not CEL: %v", cond, perr)
			}
		case refused != "":
			if strings.Contains(refused, "Syntax error") || strings.Contains(refused, "literal") || strings.Contains(refused, "unescape") || strings.Contains(refused, "reserved identifier") {
				t.Fatalf("Parse takes %q; the API server finds it not CEL: %s", cond, firstLine(refused))
			}
		default:
			for _, p := range pairs {
				want, detail := h.srv.eval(v, ss, p[0], p[1])
				if got := verdictOf(e.Eval(h.schema, p[0], p[1])); got != want {
					t.Fatalf("%s\nself:    %s\noldSelf: %s\nAPI server: %s %s\nwhen:       %s", cond, js(p[0]), js(p[1]), want, detail, got)
				}
			}
		}
	})
}
