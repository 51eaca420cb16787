package when

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // a name, true, false or null
	tIn             // the keyword in
	tInt            // 12, 0x1F
	tUint           // 12u, 0x1Fu
	tDouble         // 1.5, 1e3, .5
	tString         // a string literal: value holds it unescaped
	tBytes          // a bytes literal (refused by the parser)
	tQuoted         // a backquoted name (refused by the parser)
	tOp             // punctuation and operators
)

type token struct {
	kind  tokKind
	text  string
	value string // tString: the string's value
	col   int    // 1-based, in characters
}

func describe(t token) string {
	if t.kind == tEOF {
		return "the end of the condition"
	}
	return fmt.Sprintf("%q", t.text)
}

// ops are CEL's operators and punctuation, longest first.
var ops = []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "?", ":", ".", ",", "(", ")", "[", "]", "{", "}", "+", "-", "*", "/", "%", "="}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// lex splits src into CEL tokens as CEL's lexer does.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	// col counts characters up to at, onwards from the last call (the
	// lexer asks in order), so that lexing stays linear.
	seenAt, seenCol := 0, 1
	col := func(at int) int {
		if at < seenAt {
			return utf8.RuneCountInString(src[:at]) + 1
		}
		seenCol += utf8.RuneCountInString(src[seenAt:at])
		seenAt = at
		return seenCol
	}
	for {
		for i < len(src) {
			c := src[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
				i++
				continue
			}
			if strings.HasPrefix(src[i:], "//") {
				// CEL has comments; the generator writes the condition
				// inside a larger rule on one line, where a comment would
				// hide the rest of the rule.
				return nil, &SyntaxError{Column: col(i), Msg: outside("a comment (//), which would hide the rest of the rule the condition is written into,")}
			}
			break
		}
		if i == len(src) {
			return append(toks, token{kind: tEOF, col: col(i)}), nil
		}
		start := i
		c := src[i]
		switch {
		case isLetter(c) || c == '_':
			// A string or bytes literal's prefix: r, R, b, B, br, bR, Br, BR.
			j := i
			bytesLit, raw := false, false
			if c == 'b' || c == 'B' {
				bytesLit = true
				j++
			}
			if j < len(src) && (src[j] == 'r' || src[j] == 'R') {
				raw = true
				j++
			}
			if (bytesLit || raw) && j < len(src) && (src[j] == '"' || src[j] == '\'') {
				end, val, err := stringLit(src, j, raw, col)
				if err != nil {
					return nil, err
				}
				k := tString
				if bytesLit {
					k = tBytes
				}
				toks = append(toks, token{kind: k, text: src[start:end], value: val, col: col(start)})
				i = end
				continue
			}
			for i < len(src) && (isLetter(src[i]) || isDigit(src[i]) || src[i] == '_') {
				i++
			}
			k := tIdent
			if src[start:i] == "in" {
				k = tIn
			}
			toks = append(toks, token{kind: k, text: src[start:i], col: col(start)})
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			end, k := numberEnd(src, i)
			toks = append(toks, token{kind: k, text: src[start:end], col: col(start)})
			i = end
		case c == '"' || c == '\'':
			end, val, err := stringLit(src, i, false, col)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tString, text: src[start:end], value: val, col: col(start)})
			i = end
		case c == '`':
			j := strings.IndexByte(src[i+1:], '`')
			if j < 0 {
				return nil, &SyntaxError{Column: col(i), Msg: "unterminated backquoted name"}
			}
			i += j + 2
			toks = append(toks, token{kind: tQuoted, text: src[start:i], col: col(start)})
		default:
			op := ""
			for _, o := range ops {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" || op == "=" {
				r, _ := utf8.DecodeRuneInString(src[i:])
				return nil, &SyntaxError{Column: col(i), Msg: fmt.Sprintf("unexpected character %q", r)}
			}
			i += len(op)
			toks = append(toks, token{kind: tOp, text: op, col: col(start)})
		}
	}
}

// numberEnd returns the end of the number at i and its kind: NUM_FLOAT,
// NUM_INT or NUM_UINT of CEL's grammar, the longest that matches.
func numberEnd(src string, i int) (int, tokKind) {
	if strings.HasPrefix(src[i:], "0x") && i+2 < len(src) && isHex(src[i+2]) {
		j := i + 2
		for j < len(src) && isHex(src[j]) {
			j++
		}
		if j < len(src) && (src[j] == 'u' || src[j] == 'U') {
			return j + 1, tUint
		}
		return j, tInt
	}
	j := i
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	float := false
	if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
		float = true
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			float = true
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			j = k
		}
	}
	if float {
		return j, tDouble
	}
	if j < len(src) && (src[j] == 'u' || src[j] == 'U') {
		return j + 1, tUint
	}
	return j, tInt
}

// stringLit reads the string literal whose quote is at i (after any
// prefix) and returns its end and value, unescaped unless raw, with CEL's
// newline normalisation.
func stringLit(src string, i int, raw bool, col func(int) int) (int, string, error) {
	q := src[i]
	triple := strings.HasPrefix(src[i:], strings.Repeat(string(q), 3))
	open := 1
	if triple {
		open = 3
	}
	j := i + open
	var b strings.Builder
	for {
		if j >= len(src) {
			return 0, "", &SyntaxError{Column: col(i), Msg: "unterminated string literal"}
		}
		c := src[j]
		if triple && strings.HasPrefix(src[j:], src[i:i+3]) {
			j += 3
			break
		}
		if !triple && c == q {
			j++
			break
		}
		if !triple && (c == '\n' || c == '\r') {
			return 0, "", &SyntaxError{Column: col(i), Msg: "a quoted string ends at the end of its line; use ''' or \"\"\" for several lines"}
		}
		if c == '\r' {
			b.WriteByte('\n')
			j++
			if j < len(src) && src[j] == '\n' {
				j++
			}
			continue
		}
		if c != '\\' || raw { // a raw string holds backslashes as they are
			b.WriteByte(c)
			j++
			continue
		}
		r, n, err := escape(src[j:])
		if err != nil {
			return 0, "", &SyntaxError{Column: col(j), Msg: err.Error()}
		}
		b.WriteRune(r)
		j += n
	}
	return j, b.String(), nil
}

// escape reads the escape sequence at the start of s (its backslash
// included) as CEL's lexer and unescaper read it in a string literal.
func escape(s string) (rune, int, error) {
	if len(s) < 2 {
		return 0, 0, fmt.Errorf("a string literal ends with '\\'")
	}
	switch c := s[1]; c {
	case 'a':
		return '\a', 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'v':
		return '\v', 2, nil
	case '\\', '\'', '"', '`', '?':
		return rune(c), 2, nil
	case 'x', 'X', 'u', 'U':
		n := map[byte]int{'x': 2, 'X': 2, 'u': 4, 'U': 8}[c]
		if len(s) < 2+n {
			return 0, 0, fmt.Errorf("invalid escape sequence %q", s)
		}
		var v rune
		for k := 0; k < n; k++ {
			if !isHex(s[2+k]) {
				return 0, 0, fmt.Errorf("invalid escape sequence %q", s[:2+n])
			}
			v = v<<4 | hexVal(s[2+k])
		}
		if !utf8.ValidRune(v) {
			return 0, 0, fmt.Errorf("invalid unicode code point in %q", s[:2+n])
		}
		return v, 2 + n, nil
	case '0', '1', '2', '3':
		if len(s) < 4 || s[2] < '0' || s[2] > '7' || s[3] < '0' || s[3] > '7' {
			return 0, 0, fmt.Errorf("invalid octal escape sequence")
		}
		return rune(c-'0')<<6 | rune(s[2]-'0')<<3 | rune(s[3]-'0'), 4, nil
	}
	r, _ := utf8.DecodeRuneInString(s[1:])
	return 0, 0, fmt.Errorf("invalid escape sequence \\%c", r)
}

func hexVal(c byte) rune {
	switch {
	case isDigit(c):
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	}
	return rune(c-'A') + 10
}
