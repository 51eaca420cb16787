package whendiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/when"
)

// piece is a fragment of a string literal's source and the text it
// stands for, or bad when CEL's lexer refuses it.
type piece struct {
	src, val string
	bad      bool
}

var escapedPieces = []piece{
	{src: "a", val: "a"}, {src: "é", val: "é"}, {src: " ", val: " "}, {src: "😀", val: "😀"},
	{src: `\n`, val: "\n"}, {src: `\t`, val: "\t"}, {src: `\\`, val: `\`}, {src: `\'`, val: "'"}, {src: `\"`, val: `"`},
	{src: "\\`", val: "`"}, {src: `\?`, val: "?"}, {src: `\a`, val: "\a"}, {src: `\v`, val: "\v"},
	{src: `\x41`, val: "A"}, {src: `\X7e`, val: "~"}, {src: `\xff`, val: "ÿ"}, {src: `\101`, val: "A"}, {src: `\377`, val: "ÿ"},
	{src: `\u00e9`, val: "é"}, {src: `\U0001F600`, val: "😀"},
	{src: `\q`, bad: true}, {src: `\x4`, bad: true}, {src: `\400`, bad: true}, {src: `\ud800`, bad: true}, {src: `\U00110000`, bad: true}, {src: `\8`, bad: true},
}

// canon writes s as a CEL string literal both sides read alike: every
// rune \U-escaped.
func canon(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		fmt.Fprintf(&b, `\U%08x`, r)
	}
	b.WriteByte('\'')
	return b.String()
}

// TestLiterals: random string literals (quotes, prefixes, escapes, bad
// escapes): the API server and Parse refuse the same, and read the same
// text, checked by comparing it with the text \U-escaped.
func TestLiterals(t *testing.T) {
	h := newHarness(t)
	rng := rand.New(rand.NewPCG(*diffSeed, 36))
	disagree := 0
	for i := 0; i < 200; i++ {
		raw := rng.IntN(4) == 0
		quote := []string{"'", `"`, "'''", `"""`}[rng.IntN(4)]
		var src, val strings.Builder
		bad := false
		for n := rng.IntN(5); n > 0; n-- {
			p := escapedPieces[rng.IntN(len(escapedPieces))]
			if raw {
				p = piece{src: p.src, val: p.src}
				if strings.HasSuffix(p.src, `\`) || strings.Contains(p.src, quote[:1]) {
					continue // a raw string cannot hold its quote or end with a backslash before it
				}
			}
			src.WriteString(p.src)
			val.WriteString(p.val)
			bad = bad || p.bad
		}
		if rng.IntN(10) == 0 {
			src.WriteString(quote[:1]) // an unescaped quote: ends a one-quote string early
			val.WriteString(quote[:1])
			if len(quote) == 1 {
				bad = true
			}
		}
		lit := quote + src.String() + quote
		if raw {
			lit = "r" + lit
		}
		cond := lit + " == " + canon(val.String())
		v, ss, refused := h.srv.compile(cond)
		e, perr := when.Parse(cond)
		switch {
		case refused != "" && perr == nil:
			disagree++
			t.Errorf("the API server refuses %s (%s); Parse takes it", cond, firstLine(refused))
		case refused == "" && perr != nil:
			disagree++
			t.Errorf("the API server takes %s; Parse refuses it: %v", cond, perr)
		case refused == "":
			obj := map[string]any{"apiVersion": "v1", "kind": "Thing"}
			want, _ := h.srv.eval(v, ss, obj, obj)
			got := verdictOf(e.Eval(h.schema, obj, obj))
			if got != want {
				disagree++
				t.Errorf("%s: the API server says %s, Eval %s", cond, want, got)
			}
			if !bad && want != "true" {
				t.Errorf("%s: the API server reads the literal otherwise than the test wrote it (%s)", cond, want)
			}
		}
	}
	if disagree > 0 {
		t.Logf("%d disagreements", disagree)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
