package when

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLength is the longest condition Parse takes, in bytes.
const MaxLength = 16 << 10

// MaxDepth is how deeply Parse lets expressions nest (parentheses,
// operands, arguments, list elements): the evaluator recurses over the
// syntax tree, so its depth is bounded here once.
const MaxDepth = 100

// Expr is a parsed condition of the subset: safe for concurrent use.
type Expr struct {
	text string
	root *node
}

// String returns the condition as written.
func (e *Expr) String() string { return e.text }

// SyntaxError is a condition Parse refuses: outside the subset or not CEL.
type SyntaxError struct {
	// Column is the 1-based column, in characters, where the problem is.
	Column int
	// Msg says what is wrong and what is taken instead.
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("column %d: %s", e.Column, e.Msg)
}

// outside is the text of every refusal of a construct CEL has and the
// subset does not: one wording, read by the tests and the docs.
func outside(construct string) string {
	return fmt.Sprintf("%s is not in the subset +immutable:when supports in the runtime (field access on self and oldSelf, has(), comparisons, !, &&, ||, ?:, in, size(), exists, all, exists_one, startsWith, endsWith, contains, indexing, literals); use the CRD's CEL rule (crd:immutability=cel) for it", construct)
}

type kind int

const (
	kLit       kind = iota // lit
	kIdent                 // name: self, oldSelf or a bound variable
	kSelect                // args[0].name
	kHas                   // has(args[0].name)
	kIndex                 // args[0][args[1]]
	kList                  // [args...]
	kNot                   // !args[0]
	kAnd                   // args[0] && args[1] && ...
	kOr                    // args[0] || args[1] || ...
	kCond                  // args[0] ? args[1] : args[2]
	kEq                    // ==
	kNe                    // !=
	kLt                    // <
	kLe                    // <=
	kGt                    // >
	kGe                    // >=
	kIn                    // args[0] in args[1]
	kSize                  // size(args[0]) or args[0].size()
	kStarts                // args[0].startsWith(args[1])
	kEnds                  // args[0].endsWith(args[1])
	kContains              // args[0].contains(args[1])
	kExists                // args[0].exists(name, args[1])
	kAll                   // args[0].all(name, args[1])
	kExistsOne             // args[0].exists_one(name, args[1])
)

type node struct {
	kind kind
	col  int
	name string
	lit  value
	args []*node
}

// reserved are CEL's reserved words that are not otherwise tokens.
var reserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true,
}

// Parse parses a condition of the subset. Anything CEL has that the subset
// does not is refused with the construct's name; anything CEL refuses is
// refused too. Errors are *SyntaxError.
func Parse(expr string) (*Expr, error) {
	if len(expr) > MaxLength {
		return nil, &SyntaxError{Column: 1, Msg: fmt.Sprintf("the condition is %d bytes long; the runtime takes at most %d", len(expr), MaxLength)}
	}
	if !utf8.ValidString(expr) {
		return nil, &SyntaxError{Column: 1, Msg: "the condition is not valid UTF-8"}
	}
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.expr(0, nil)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.unexpected(t)
	}
	return &Expr{text: expr, root: n}, nil
}

type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) unexpected(t token) error {
	if t.kind == tEOF {
		return &SyntaxError{Column: t.col, Msg: "unexpected end of the condition"}
	}
	return &SyntaxError{Column: t.col, Msg: fmt.Sprintf("unexpected %q", t.text)}
}

func (p *parser) expect(op string) (token, error) {
	t := p.next()
	if t.kind != tOp || t.text != op {
		if t.kind == tEOF {
			return t, &SyntaxError{Column: t.col, Msg: fmt.Sprintf("expected %q, found the end of the condition", op)}
		}
		return t, &SyntaxError{Column: t.col, Msg: fmt.Sprintf("expected %q, found %q", op, t.text)}
	}
	return t, nil
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == op
}

func deep(depth, col int) error {
	if depth > MaxDepth {
		return &SyntaxError{Column: col, Msg: fmt.Sprintf("the condition nests deeper than %d levels", MaxDepth)}
	}
	return nil
}

// vars are the comprehension variables in scope, innermost last.
type vars []string

func (v vars) has(name string) bool {
	for _, n := range v {
		if n == name {
			return true
		}
	}
	return false
}

// expr: or ('?' or ':' expr)?
func (p *parser) expr(depth int, scope vars) (*node, error) {
	if err := deep(depth, p.peek().col); err != nil {
		return nil, err
	}
	c, err := p.binary(depth+1, scope, 0)
	if err != nil {
		return nil, err
	}
	if !p.isOp("?") {
		return c, nil
	}
	q := p.next()
	a, err := p.binary(depth+1, scope, 0)
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(":"); err != nil {
		return nil, err
	}
	b, err := p.expr(depth+1, scope)
	if err != nil {
		return nil, err
	}
	return &node{kind: kCond, col: q.col, args: []*node{c, a, b}}, nil
}

// levels of the binary operators, loosest first: ||, &&, the relations
// (all one level, left-associative), then + -, then * / %.
var levels = [][]string{{"||"}, {"&&"}, {"<", "<=", ">=", ">", "==", "!=", "in"}, {"+", "-"}, {"*", "/", "%"}}

var relKinds = map[string]kind{"<": kLt, "<=": kLe, ">=": kGe, ">": kGt, "==": kEq, "!=": kNe, "in": kIn}

func (p *parser) binary(depth int, scope vars, level int) (*node, error) {
	if level == len(levels) {
		return p.unary(depth, scope)
	}
	if err := deep(depth, p.peek().col); err != nil {
		return nil, err
	}
	l, err := p.binary(depth+1, scope, level+1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !(t.kind == tOp || t.kind == tIn) || !contains(levels[level], t.text) {
			return l, nil
		}
		p.next()
		if level >= 3 {
			return nil, &SyntaxError{Column: t.col, Msg: outside(fmt.Sprintf("arithmetic (%q)", t.text))}
		}
		r, err := p.binary(depth+1, scope, level+1)
		if err != nil {
			return nil, err
		}
		switch level {
		case 0, 1:
			k := kOr
			if level == 1 {
				k = kAnd
			}
			if l.kind == k {
				l.args = append(l.args, r)
			} else {
				l = &node{kind: k, col: t.col, args: []*node{l, r}}
			}
		default:
			// Relations nest to the left: each one is a level more.
			l = &node{kind: relKinds[t.text], col: t.col, args: []*node{l, r}}
			depth++
			if err := deep(depth, t.col); err != nil {
				return nil, err
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unary: member | '!'+ member | '-'+ member (a negative number literal only)
func (p *parser) unary(depth int, scope vars) (*node, error) {
	t := p.peek()
	switch {
	case t.kind == tOp && t.text == "!":
		n := 0
		for p.isOp("!") {
			p.next()
			n++
		}
		m, err := p.member(depth+1, scope)
		if err != nil {
			return nil, err
		}
		for ; n > 0; n-- {
			m = &node{kind: kNot, col: t.col, args: []*node{m}}
		}
		return m, nil
	case t.kind == tOp && t.text == "-":
		p.next()
		num := p.peek()
		if num.kind != tInt && num.kind != tDouble {
			return nil, &SyntaxError{Column: t.col, Msg: outside("negation (-) of anything but an int or double literal")}
		}
		p.next()
		lit, err := number(num, true, t.col)
		if err != nil {
			return nil, err
		}
		return p.suffixes(depth+1, scope, &node{kind: kLit, col: t.col, lit: lit})
	}
	return p.member(depth, scope)
}

func (p *parser) member(depth int, scope vars) (*node, error) {
	if err := deep(depth, p.peek().col); err != nil {
		return nil, err
	}
	n, err := p.primary(depth+1, scope)
	if err != nil {
		return nil, err
	}
	return p.suffixes(depth+1, scope, n)
}

func (p *parser) suffixes(depth int, scope vars, n *node) (*node, error) {
	for {
		t := p.peek()
		if t.kind != tOp {
			return n, nil
		}
		switch t.text {
		case ".":
			p.next()
			if p.isOp("?") {
				return nil, &SyntaxError{Column: t.col, Msg: outside("optional field selection (.?)")}
			}
			id := p.next()
			if id.kind == tQuoted {
				return nil, &SyntaxError{Column: id.col, Msg: outside("a backquoted field name")}
			}
			if id.kind != tIdent || id.text == "true" || id.text == "false" || id.text == "null" {
				// true, false, null and in are CEL's tokens, not names.
				return nil, &SyntaxError{Column: id.col, Msg: fmt.Sprintf("expected a field or method name after '.', found %s", describe(id))}
			}
			if !p.isOp("(") {
				n = &node{kind: kSelect, col: id.col, name: id.text, args: []*node{n}}
				break
			}
			p.next()
			var err error
			if n, err = p.method(depth, scope, n, id); err != nil {
				return nil, err
			}
		case "[":
			p.next()
			if p.isOp("?") {
				return nil, &SyntaxError{Column: t.col, Msg: outside("optional indexing ([?)")}
			}
			i, err := p.expr(depth+1, scope)
			if err != nil {
				return nil, err
			}
			if _, err := p.expect("]"); err != nil {
				return nil, err
			}
			n = &node{kind: kIndex, col: t.col, args: []*node{n, i}}
		default:
			return n, nil
		}
		depth++
		if err := deep(depth, t.col); err != nil {
			return nil, err
		}
	}
}

var methods = map[string]kind{"size": kSize, "startsWith": kStarts, "endsWith": kEnds, "contains": kContains}
var macros = map[string]kind{"exists": kExists, "all": kAll, "exists_one": kExistsOne}

// method parses the arguments of target.id(…), the '(' read.
func (p *parser) method(depth int, scope vars, target *node, id token) (*node, error) {
	if k, ok := macros[id.text]; ok {
		v := p.next()
		if v.kind != tIdent {
			return nil, &SyntaxError{Column: v.col, Msg: fmt.Sprintf("%s(): the first argument must be a simple name, found %s", id.text, describe(v))}
		}
		if v.text == "true" || v.text == "false" || v.text == "null" || reserved[v.text] {
			return nil, &SyntaxError{Column: v.col, Msg: fmt.Sprintf("%s(): %s is a reserved word, not a variable name", id.text, v.text)}
		}
		if v.text == "self" || v.text == "oldSelf" {
			return nil, &SyntaxError{Column: v.col, Msg: fmt.Sprintf("%s(): the variable %s would hide the object; name it otherwise", id.text, v.text)}
		}
		if _, err := p.expect(","); err != nil {
			return nil, err
		}
		if p.peek().kind == tIdent && p.toks[p.pos+1].kind == tOp && p.toks[p.pos+1].text == "," {
			return nil, &SyntaxError{Column: p.peek().col, Msg: outside(fmt.Sprintf("%s() with two variables", id.text))}
		}
		body, err := p.expr(depth+1, append(scope[:len(scope):len(scope)], v.text))
		if err != nil {
			return nil, err
		}
		if p.isOp(",") {
			return nil, &SyntaxError{Column: p.peek().col, Msg: outside(fmt.Sprintf("%s() with two variables", id.text))}
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		return &node{kind: k, col: id.col, name: v.text, args: []*node{target, body}}, nil
	}
	k, ok := methods[id.text]
	if !ok {
		return nil, &SyntaxError{Column: id.col, Msg: outside(fmt.Sprintf("the function %s()", id.text))}
	}
	args, err := p.exprList(depth+1, scope, ")")
	if err != nil {
		return nil, err
	}
	want := 1
	if k == kSize {
		want = 0
	}
	if len(args) != want {
		return nil, &SyntaxError{Column: id.col, Msg: fmt.Sprintf("%s() takes %d argument(s) as a method, found %d", id.text, want, len(args))}
	}
	return &node{kind: k, col: id.col, args: append([]*node{target}, args...)}, nil
}

// exprList parses expressions separated by commas up to the closing
// token end, which it reads; a trailing comma is taken where allowTrail.
func (p *parser) exprList(depth int, scope vars, end string) ([]*node, error) {
	var args []*node
	if p.isOp(end) {
		p.next()
		return nil, nil
	}
	for {
		a, err := p.expr(depth, scope)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		t := p.next()
		if t.kind == tOp && t.text == end {
			return args, nil
		}
		if t.kind != tOp || t.text != "," {
			if t.kind == tEOF {
				return nil, &SyntaxError{Column: t.col, Msg: fmt.Sprintf("expected ',' or %q, found the end of the condition", end)}
			}
			return nil, &SyntaxError{Column: t.col, Msg: fmt.Sprintf("expected ',' or %q, found %q", end, t.text)}
		}
		if end == "]" && p.isOp("]") { // a list literal may end with a comma
			p.next()
			return args, nil
		}
	}
}

func (p *parser) primary(depth int, scope vars) (*node, error) {
	t := p.next()
	switch t.kind {
	case tEOF:
		return nil, p.unexpected(t)
	case tInt, tUint, tDouble:
		v, err := number(t, false, t.col)
		if err != nil {
			return nil, err
		}
		return &node{kind: kLit, col: t.col, lit: v}, nil
	case tString:
		return &node{kind: kLit, col: t.col, lit: t.value}, nil
	case tBytes:
		return nil, &SyntaxError{Column: t.col, Msg: outside("a bytes literal")}
	case tQuoted:
		return nil, &SyntaxError{Column: t.col, Msg: outside("a backquoted name")}
	case tIn:
		return nil, p.unexpected(t)
	case tIdent:
		switch t.text {
		case "true":
			return &node{kind: kLit, col: t.col, lit: true}, nil
		case "false":
			return &node{kind: kLit, col: t.col, lit: false}, nil
		case "null":
			return &node{kind: kLit, col: t.col, lit: nullValue{}}, nil
		}
		if reserved[t.text] {
			return nil, &SyntaxError{Column: t.col, Msg: fmt.Sprintf("reserved identifier: %s", t.text)}
		}
		if p.isOp("(") {
			p.next()
			return p.global(depth, scope, t)
		}
		if p.isOp("{") {
			return nil, &SyntaxError{Column: t.col, Msg: outside("a message literal")}
		}
		if t.text != "self" && t.text != "oldSelf" && !scope.has(t.text) {
			return nil, &SyntaxError{Column: t.col, Msg: fmt.Sprintf("undeclared reference to %q: the condition reads self and oldSelf (the new and old objects) and the variables of exists, all and exists_one", t.text)}
		}
		return &node{kind: kIdent, col: t.col, name: t.text}, nil
	case tOp:
		switch t.text {
		case "(":
			n, err := p.expr(depth+1, scope)
			if err != nil {
				return nil, err
			}
			if _, err := p.expect(")"); err != nil {
				return nil, err
			}
			return n, nil
		case "[":
			if p.isOp(",") && p.toks[p.pos+1].kind == tOp && p.toks[p.pos+1].text == "]" {
				p.pos += 2 // [,] is the empty list, as CEL's grammar has it
				return &node{kind: kList, col: t.col}, nil
			}
			elems, err := p.exprList(depth+1, scope, "]")
			if err != nil {
				return nil, err
			}
			return &node{kind: kList, col: t.col, args: elems}, nil
		case "{":
			return nil, &SyntaxError{Column: t.col, Msg: outside("a map literal")}
		case ".":
			return nil, &SyntaxError{Column: t.col, Msg: outside("a name with a leading dot")}
		}
	}
	return nil, p.unexpected(t)
}

// global parses the arguments of the call id(…), the '(' read.
func (p *parser) global(depth int, scope vars, id token) (*node, error) {
	switch id.text {
	case "has":
		arg, err := p.expr(depth+1, scope)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		if arg.kind != kSelect {
			return nil, &SyntaxError{Column: arg.col, Msg: "invalid argument to has() macro: has() takes a field selection, as has(self.spec.x)"}
		}
		return &node{kind: kHas, col: id.col, name: arg.name, args: arg.args}, nil
	case "size":
		args, err := p.exprList(depth+1, scope, ")")
		if err != nil {
			return nil, err
		}
		if len(args) != 1 {
			return nil, &SyntaxError{Column: id.col, Msg: fmt.Sprintf("size() takes 1 argument as a function, found %d", len(args))}
		}
		return &node{kind: kSize, col: id.col, args: args}, nil
	}
	if _, ok := macros[id.text]; ok {
		return nil, &SyntaxError{Column: id.col, Msg: fmt.Sprintf("%s() is a method: write list.%s(x, predicate)", id.text, id.text)}
	}
	if _, ok := methods[id.text]; ok {
		return nil, &SyntaxError{Column: id.col, Msg: fmt.Sprintf("%s() is a method: write s.%s(…)", id.text, id.text)}
	}
	return nil, &SyntaxError{Column: id.col, Msg: outside(fmt.Sprintf("the function %s()", id.text))}
}

// number reads a numeric token, negated where neg (the sign at col).
func number(t token, neg bool, col int) (value, error) {
	text := t.text
	bad := func(what string) error {
		if neg {
			return &SyntaxError{Column: col, Msg: fmt.Sprintf("invalid %s literal -%s", what, strings.TrimPrefix(t.text, "-"))}
		}
		return &SyntaxError{Column: t.col, Msg: fmt.Sprintf("invalid %s literal %s", what, t.text)}
	}
	switch t.kind {
	case tDouble:
		if neg {
			text = "-" + text
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil { // out of range too, as CEL's parser
			return nil, bad("double")
		}
		return f, nil
	case tUint:
		digits, base := strings.TrimRight(text, "uU"), 10
		if strings.HasPrefix(digits, "0x") {
			digits, base = digits[2:], 16
		}
		u, err := strconv.ParseUint(digits, base, 64)
		if err != nil {
			return nil, bad("uint")
		}
		return u, nil
	}
	digits, base := text, 10
	if strings.HasPrefix(digits, "0x") {
		digits, base = digits[2:], 16
	}
	u, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return nil, bad("int")
	}
	if neg {
		if u > 1<<63 {
			return nil, bad("int")
		}
		if u == 1<<63 {
			return int64(math.MinInt64), nil
		}
		return -int64(u), nil
	}
	if u > math.MaxInt64 {
		return nil, bad("int")
	}
	return int64(u), nil
}
