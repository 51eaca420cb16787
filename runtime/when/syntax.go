package when

// Syntax is a read-only view of one node of a parsed condition, for code
// generators that compile the subset into another language (the typed
// validators compile it into Go): the tree Parse built, so that the subset
// keeps its one definition here. It is built on demand by (*Expr).Syntax
// and shares nothing with the Expr.
type Syntax struct {
	// Op names the construct: "literal", "ident" (self, oldSelf or a
	// macro's variable, in Name), "select" (Args[0].Name), "has"
	// (has(Args[0].Name)), "index" (Args[0][Args[1]]), "list" (a list
	// literal of Args), "!", "&&" and "||" (two or more Args), "?:", the
	// relations "==", "!=", "<", "<=", ">", ">=" and "in", "size",
	// "startsWith", "endsWith" and "contains" (the receiver first), and the
	// macros "exists", "all" and "exists_one" (Args[0] the range, Args[1]
	// the predicate, Name the variable).
	Op string
	// Column is the 1-based column of the construct in the condition, in
	// characters, as Parse's errors give it.
	Column int
	// Name is the field of a select or has, the identifier, or a macro's
	// variable.
	Name string
	// Literal is the value of a literal: bool, int64 (int), uint64
	// (uint), float64 (double), string, or nil (null).
	Literal any
	// Args are the operands, in the order written.
	Args []*Syntax
}

var opNames = map[kind]string{
	kLit: "literal", kIdent: "ident", kSelect: "select", kHas: "has", kIndex: "index", kList: "list",
	kNot: "!", kAnd: "&&", kOr: "||", kCond: "?:", kEq: "==", kNe: "!=", kLt: "<", kLe: "<=", kGt: ">",
	kGe: ">=", kIn: "in", kSize: "size", kStarts: "startsWith", kEnds: "endsWith", kContains: "contains",
	kExists: "exists", kAll: "all", kExistsOne: "exists_one",
}

// Syntax returns the condition's syntax tree.
func (e *Expr) Syntax() *Syntax { return syntaxOf(e.root) }

func syntaxOf(n *node) *Syntax {
	s := &Syntax{Op: opNames[n.kind], Column: n.col, Name: n.name}
	if n.kind == kLit {
		switch v := n.lit.(type) {
		case nullValue:
			s.Literal = nil
		default:
			s.Literal = v
		}
	}
	for _, a := range n.args {
		s.Args = append(s.Args, syntaxOf(a))
	}
	return s
}
