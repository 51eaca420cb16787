package when

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/immutable-gen/immutable-gen/runtime/internal/celorder"
)

// MaxCost bounds the work of one Eval: one unit a node evaluated, an
// element, key or value visited (by a macro, in, ==) and 64 bytes of
// string read. Beyond it Eval fails with ErrCost: no condition runs
// without bound, however large the objects (the API server bounds its own
// evaluation alike, with its per-call cost limit of 1,000,000).
const MaxCost = 1_000_000

// ErrCost is the error of an Eval over MaxCost.
var ErrCost = errors.New("the condition's evaluation is over the runtime's cost limit")

// EvalError is a CEL error of the condition on these objects (a field read
// that is absent, a type the operation does not take, a result that is not
// a bool): the API server refuses the update with such an error, and so
// must an enforcer.
type EvalError struct {
	Msg string
}

func (e *EvalError) Error() string { return e.Msg }

type evaluator struct {
	cost     int
	exceeded bool
}

// frame binds a name: self, oldSelf, or a macro's variable.
type frame struct {
	name string
	val  value
	next *frame
}

func (f *frame) lookup(name string) value {
	for ; f != nil; f = f.next {
		if f.name == name {
			return f.val
		}
	}
	return errf("undeclared reference to %q", name)
}

// Eval evaluates the condition with self and oldSelf bound to the new and
// old objects, decoded JSON (map[string]any, []any, string, bool, nil,
// int64 and float64 as k8s.io/apimachinery decodes them; other Go numbers
// and json.Number are read as the number they are), each value typed by
// root, the kind's schema (the root is a resource: kind, apiVersion and
// metadata.name and generateName are strings, the rest of metadata is not
// readable, as in the API server's CEL). Eval is CEL's evaluation in the
// API server exactly: it returns true or false, or an *EvalError where
// CEL's result is an error or not a bool, or ErrCost.
func (e *Expr) Eval(root *Schema, self, oldSelf any) (bool, error) {
	if root == nil {
		return false, errors.New("when: Eval needs the root's schema")
	}
	ev := &evaluator{}
	env := &frame{name: "self", val: ev.toValAs(self, root, true), next: &frame{name: "oldSelf", val: ev.toValAs(oldSelf, root, true)}}
	v := ev.eval(e.root, env)
	if ev.exceeded {
		return false, ErrCost
	}
	switch v := v.(type) {
	case bool:
		return v, nil
	case *errValue:
		return false, &EvalError{Msg: v.msg}
	}
	return false, &EvalError{Msg: fmt.Sprintf("the condition must be a bool; it is a %s", typeName(v))}
}

// charge adds n to the cost; false when the limit is passed.
func (ev *evaluator) charge(n int) bool {
	ev.cost += n
	if ev.cost > MaxCost {
		ev.exceeded = true
	}
	return !ev.exceeded
}

var errCost = &errValue{msg: ErrCost.Error()}

func (ev *evaluator) eval(n *node, env *frame) value {
	if !ev.charge(1) {
		return errCost
	}
	switch n.kind {
	case kLit:
		return n.lit
	case kIdent:
		return env.lookup(n.name)
	case kSelect:
		x := ev.eval(n.args[0], env)
		if isErr(x) {
			return x
		}
		m, ok := x.(*mapValue)
		if !ok {
			return noOverload("field selection ."+n.name, x)
		}
		v, found := m.find(ev, n.name)
		if !found {
			return errf("no such key: %s", n.name)
		}
		return v
	case kHas:
		x := ev.eval(n.args[0], env)
		if isErr(x) {
			return x
		}
		m, ok := x.(*mapValue)
		if !ok {
			return noOverload("has(."+n.name+")", x)
		}
		_, found := m.find(ev, n.name)
		return found
	case kIndex:
		x := ev.eval(n.args[0], env)
		i := ev.eval(n.args[1], env)
		if isErr(x) {
			return x
		}
		if isErr(i) {
			return i
		}
		return ev.index(x, i)
	case kList:
		vals := make([]value, len(n.args))
		for k, a := range n.args {
			v := ev.eval(a, env)
			if isErr(v) {
				return v
			}
			vals[k] = v
		}
		return &listValue{lit: vals, isLit: true}
	case kNot:
		x := ev.eval(n.args[0], env)
		switch x := x.(type) {
		case bool:
			return !x
		case *errValue:
			return x
		}
		return noOverload("!_", x)
	case kAnd, kOr:
		// CEL's commutative && and ||: a false (true) term decides
		// whatever the others are; else the first error, or a term that
		// is not a bool, is the result.
		decide := n.kind == kOr
		var err value
		for _, a := range n.args {
			v := ev.eval(a, env)
			if b, ok := v.(bool); ok {
				if b == decide {
					return decide
				}
				continue
			}
			if err == nil {
				if isErr(v) {
					err = v
				} else {
					err = noOverload(map[bool]string{true: "_||_", false: "_&&_"}[decide], v)
				}
			}
		}
		if err != nil {
			return err
		}
		return !decide
	case kCond:
		c := ev.eval(n.args[0], env)
		switch c := c.(type) {
		case bool:
			if c {
				return ev.eval(n.args[1], env)
			}
			return ev.eval(n.args[2], env)
		case *errValue:
			return c
		}
		return noOverload("_?_:_", c)
	case kEq, kNe, kLt, kLe, kGt, kGe, kIn:
		l := ev.eval(n.args[0], env)
		r := ev.eval(n.args[1], env)
		if isErr(l) {
			return l
		}
		if isErr(r) {
			return r
		}
		switch n.kind {
		case kEq:
			return ev.equal(l, r)
		case kNe:
			return ev.equal(l, r) != true
		case kIn:
			return ev.in(l, r)
		}
		c := compare(l, r)
		ci, ok := c.(int)
		if !ok {
			return c
		}
		switch n.kind {
		case kLt:
			return ci < 0
		case kLe:
			return ci <= 0
		case kGt:
			return ci > 0
		}
		return ci >= 0
	case kSize:
		x := ev.eval(n.args[0], env)
		switch x := x.(type) {
		case *errValue:
			return x
		case string:
			if !ev.charge(len(x) / 64) {
				return errCost
			}
			return int64(utf8.RuneCountInString(x))
		case bytesValue:
			return int64(len(x))
		case *listValue:
			return int64(x.size())
		case *mapValue:
			return int64(len(x.raw))
		}
		return noOverload("size", x)
	case kStarts, kEnds, kContains:
		x := ev.eval(n.args[0], env)
		a := ev.eval(n.args[1], env)
		if isErr(x) {
			return x
		}
		if isErr(a) {
			return a
		}
		xs, ok1 := x.(string)
		as, ok2 := a.(string)
		if !ok1 || !ok2 {
			return noOverload(map[kind]string{kStarts: "startsWith", kEnds: "endsWith", kContains: "contains"}[n.kind], x, a)
		}
		if !ev.charge(len(xs) / 64) {
			return errCost
		}
		switch n.kind {
		case kStarts:
			return strings.HasPrefix(xs, as)
		case kEnds:
			return strings.HasSuffix(xs, as)
		}
		return strings.Contains(xs, as)
	case kExists, kAll, kExistsOne:
		return ev.macro(n, env)
	}
	return errf("internal error: node kind %d", n.kind)
}

// index is x[i]: a list by a whole number (CEL's IndexOrError), a map or
// object by key.
func (ev *evaluator) index(x, i value) value {
	switch x := x.(type) {
	case *listValue:
		var k int64
		switch iv := i.(type) {
		case int64:
			k = iv
		case uint64:
			if iv > math.MaxInt64 {
				return errf("unsupported index value %v in list", iv)
			}
			k = int64(iv)
		case float64:
			if iv != math.Trunc(iv) || iv < math.MinInt64 || iv >= math.MaxInt64 {
				return errf("unsupported index value %v in list", iv)
			}
			k = int64(iv)
		default:
			return errf("no such key: %v", rawOf(i))
		}
		if k < 0 || k >= int64(x.size()) {
			return errf("index out of bounds: %d", k)
		}
		return x.get(ev, int(k))
	case *mapValue:
		v, found := x.find(ev, i)
		if !found {
			return errf("no such key: %v", rawOf(i))
		}
		return v
	}
	return noOverload("_[_]", x, i)
}

// in is `l in r`: membership in a list, a key of a map.
func (ev *evaluator) in(l, r value) value {
	switch r := r.(type) {
	case *listValue:
		var err value
		for k := 0; k < r.size(); k++ {
			if !ev.charge(1) {
				return errCost
			}
			var eq value
			if r.isLit {
				// A literal list asks the value: l.Equal(element).
				eq = ev.equalMethod(l, r.lit[k])
			} else {
				// The object's list asks each element: element.Equal(l).
				eq = ev.equalMethod(r.get(ev, k), l)
			}
			b, ok := eq.(bool)
			if ok && b {
				return true
			}
			if !ok && err == nil && !r.isLit {
				err = eq
				if !isErr(err) {
					err = noOverload("@in", l, r)
				}
			}
		}
		if err != nil {
			return err
		}
		return false
	case *mapValue:
		v, found := r.find(ev, l)
		if found && isErr(v) {
			return v
		}
		return found
	}
	return noOverload("@in", l, r)
}

// equal is CEL's == (types.Equal): null equals only null, then the left
// value's equality.
func (ev *evaluator) equal(l, r value) value {
	_, ln := l.(nullValue)
	_, rn := r.(nullValue)
	if ln || rn {
		return ln == rn
	}
	return ev.equalMethod(l, r)
}

// equalMethod is l.Equal(r) of the API server's CEL values: heterogeneous
// (numbers compare by value across int, uint and double; other types
// differ), lists in order unless of type set or map, objects by their
// properties.
func (ev *evaluator) equalMethod(l, r value) value {
	if !ev.charge(1) {
		return errCost
	}
	switch l := l.(type) {
	case *errValue:
		return l
	case nullValue:
		_, ok := r.(nullValue)
		return ok
	case bool, string:
		return l == r
	case bytesValue:
		rb, ok := r.(bytesValue)
		return ok && bytes.Equal(l, rb)
	case int64, uint64, float64:
		switch r.(type) {
		case int64, uint64, float64:
			if f, ok := l.(float64); ok && math.IsNaN(f) {
				return false
			}
			if f, ok := r.(float64); ok && math.IsNaN(f) {
				return false
			}
			return compareNumbers(l, r) == 0
		}
		return false
	case time.Time:
		rt, ok := r.(time.Time)
		return ok && l.Equal(rt)
	case time.Duration:
		return l == r
	case preserved:
		return ev.jsonEqual(l.raw, rawOf(r))
	case *listValue:
		return ev.listEqual(l, r)
	case *mapValue:
		return ev.mapEqual(l, r)
	}
	return errf("internal error: no equality for %T", l)
}

func (ev *evaluator) listEqual(l *listValue, r value) value {
	rl, ok := r.(*listValue)
	if !ok {
		if l.isLit {
			return false
		}
		return noOverload("_==_", l, r)
	}
	if l.size() != rl.size() {
		return false
	}
	switch {
	case l.isLit:
		for i := 0; i < l.size(); i++ {
			if ev.equal(l.lit[i], rl.get(ev, i)) == false {
				return false
			}
		}
		return true
	case l.listType == "set":
		return ev.setEqual(l, rl)
	case l.listType == "map":
		return ev.mapListEqual(l, rl)
	}
	for i := 0; i < l.size(); i++ {
		if eq := ev.equalMethod(l.get(ev, i), rl.get(ev, i)); eq != true {
			return eq
		}
	}
	return true
}

// setKey is the API server's setElementKey: the element's Go value, or
// its %#v where that is not comparable.
func setKey(v value) (any, value) {
	switch v.(type) {
	case *listValue, *mapValue:
		return nil, errf("listSet operations are only supported on lists of scalar values")
	}
	raw := rawOf(v)
	if raw != nil {
		if _, ok := raw.([]byte); ok {
			return fmt.Sprintf("%#v", raw), nil
		}
		if p, ok := v.(preserved); ok {
			if _, ok := p.raw.(map[string]any); ok {
				return fmt.Sprintf("%#v", raw), nil
			}
			if _, ok := p.raw.([]any); ok {
				return fmt.Sprintf("%#v", raw), nil
			}
		}
	}
	return raw, nil
}

func (ev *evaluator) setEqual(l, r *listValue) value {
	set := make(map[any]struct{}, l.size())
	for i := 0; i < l.size(); i++ {
		if !ev.charge(1) {
			return errCost
		}
		k, err := setKey(l.get(ev, i))
		if err != nil {
			return err
		}
		set[k] = struct{}{}
	}
	seen := make(map[any]struct{}, len(set))
	for i := 0; i < r.size(); i++ {
		if !ev.charge(1) {
			return errCost
		}
		k, err := setKey(r.get(ev, i))
		if err != nil {
			return err
		}
		if _, ok := set[k]; !ok {
			return false
		}
		seen[k] = struct{}{}
	}
	return len(seen) == len(set)
}

// mapKey is the API server's key of a list map's item: its key fields'
// raw values (absent: nil).
func (l *listValue) mapKey(item any) any {
	obj, ok := normalize(item).(map[string]any)
	if !ok {
		return &errValue{msg: fmt.Sprintf("unexpected data format for element of array with x-kubernetes-list-type=map: %T", item)}
	}
	switch len(l.keys) {
	case 1:
		return normalize(obj[l.keys[0]])
	case 2:
		return [2]any{normalize(obj[l.keys[0]]), normalize(obj[l.keys[1]])}
	case 3:
		return [3]any{normalize(obj[l.keys[0]]), normalize(obj[l.keys[1]]), normalize(obj[l.keys[2]])}
	}
	key := make([]any, len(l.keys))
	for i, k := range l.keys {
		key[i] = normalize(obj[k])
	}
	return fmt.Sprintf("%#v", key)
}

func (ev *evaluator) mapListEqual(l, r *listValue) value {
	byKey := make(map[any]any, l.size())
	for _, item := range l.raw {
		if !ev.charge(1) {
			return errCost
		}
		if k := l.mapKey(item); comparable(k) {
			byKey[k] = item
		}
	}
	seen := make(map[any]struct{}, len(byKey))
	for i := 0; i < r.size(); i++ {
		v := r.get(ev, i)
		k := l.mapKey(rawOf(v))
		if !comparable(k) {
			return false
		}
		item, ok := byKey[k]
		if !ok {
			return false
		}
		if eq := ev.equalMethod(ev.toVal(item, l.items), v); eq != true {
			return eq
		}
		seen[k] = struct{}{}
	}
	return len(seen) == len(byKey)
}

// comparable says k can key a Go map (a key field holding an object or a
// list cannot; the API server would fail there, and such a key never
// passes its schema validation).
func comparable(k any) bool {
	switch k := k.(type) {
	case map[string]any, []any:
		return false
	case [2]any:
		return comparable(k[0]) && comparable(k[1])
	case [3]any:
		return comparable(k[0]) && comparable(k[1]) && comparable(k[2])
	}
	return true
}

func (ev *evaluator) mapEqual(l *mapValue, r value) value {
	rm, ok := r.(*mapValue)
	if !ok {
		return noOverload("_==_", l, r)
	}
	if len(l.raw) != len(rm.raw) {
		return false
	}
	for key, raw := range l.raw {
		if !ev.charge(1) {
			return errCost
		}
		if _, known := l.propSchema(key); known {
			v, found := l.find(ev, key)
			ov, oFound := rm.find(ev, key)
			if found != oFound {
				return false
			}
			if !found {
				continue
			}
			if eq := ev.equalMethod(v, ov); eq != true {
				return eq
			}
			continue
		}
		if oraw, ok := rm.raw[key]; ok && !ev.jsonEqual(raw, oraw) {
			return false
		}
	}
	return true
}

// compareNumbers orders two numbers of any of CEL's numeric types, as
// cel-go's cross-type comparisons do (NaN excluded by the callers).
func compareNumbers(l, r value) int {
	switch a := l.(type) {
	case int64:
		switch b := r.(type) {
		case int64:
			return celorder.Of(a < b, a > b)
		case uint64:
			return celorder.IntUint(a, b)
		case float64:
			return -celorder.DoubleInt(b, a)
		}
	case uint64:
		switch b := r.(type) {
		case int64:
			return -compareNumbers(b, a)
		case uint64:
			return celorder.Of(a < b, a > b)
		case float64:
			return -celorder.DoubleUint(b, a)
		}
	case float64:
		switch b := r.(type) {
		case int64:
			return celorder.DoubleInt(a, b)
		case uint64:
			return celorder.DoubleUint(a, b)
		case float64:
			return celorder.Of(a < b, a > b)
		}
	}
	return 0
}

// compare is l.Compare(r) of CEL's ordered types: an int, or an error
// value.
func compare(l, r value) value {
	switch a := l.(type) {
	case int64, uint64, float64:
		switch r.(type) {
		case int64, uint64, float64:
			if f, ok := l.(float64); ok && math.IsNaN(f) {
				return errf("NaN values cannot be ordered")
			}
			if f, ok := r.(float64); ok && math.IsNaN(f) {
				return errf("NaN values cannot be ordered")
			}
			return compareNumbers(l, r)
		}
	case string:
		if b, ok := r.(string); ok {
			return strings.Compare(a, b)
		}
	case bool:
		if b, ok := r.(bool); ok {
			return celorder.Of(!a && b, a && !b)
		}
	case bytesValue:
		if b, ok := r.(bytesValue); ok {
			return bytes.Compare(a, b)
		}
	case time.Time:
		if b, ok := r.(time.Time); ok {
			return celorder.Of(a.Before(b), a.After(b))
		}
	case time.Duration:
		if b, ok := r.(time.Duration); ok {
			return celorder.Of(a < b, a > b)
		}
	}
	return noOverload("ordering", l, r)
}

// macro evaluates exists, all and exists_one over a list's elements or a
// map's keys, as CEL's expansions do: exists is true at the first true
// element, else the first error, else false; all is false at the first
// false, else the first error, else true; exists_one counts, and any
// error is its result.
func (ev *evaluator) macro(n *node, env *frame) value {
	rng := ev.eval(n.args[0], env)
	var elems func(yield func(value) bool)
	switch r := rng.(type) {
	case *errValue:
		return r
	case *listValue:
		elems = func(yield func(value) bool) {
			for i := 0; i < r.size(); i++ {
				if !yield(r.get(ev, i)) {
					return
				}
			}
		}
	case *mapValue:
		elems = func(yield func(value) bool) {
			for k := range r.raw {
				if _, known := r.propSchema(k); !known {
					continue
				}
				if r.isObject() {
					if e, ok := escapeName(k); ok {
						k = e
					}
				}
				if !yield(k) {
					return
				}
			}
		}
	default:
		return noOverload(map[kind]string{kExists: "exists", kAll: "all", kExistsOne: "exists_one"}[n.kind], rng)
	}
	var result value
	var firstErr value
	count := 0
	elems(func(e value) bool {
		if !ev.charge(1) {
			result = errCost
			return false
		}
		v := ev.eval(n.args[1], &frame{name: n.name, val: e, next: env})
		b, ok := v.(bool)
		switch n.kind {
		case kExists:
			if ok && b {
				result = true
				return false
			}
		case kAll:
			if ok && !b {
				result = false
				return false
			}
		case kExistsOne:
			if ok {
				if b && firstErr == nil {
					count++
				}
				return true
			}
		}
		if !ok && (firstErr == nil || n.kind == kExistsOne) {
			if isErr(v) {
				firstErr = v
			} else {
				firstErr = noOverload("_||_", v)
			}
		}
		return true
	})
	if result != nil {
		return result
	}
	if firstErr != nil {
		return firstErr
	}
	switch n.kind {
	case kExists:
		return false
	case kAll:
		return true
	}
	return count == 1
}
