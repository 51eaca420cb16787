package runtime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// maxNesting is the nesting limit of the JSON decoder the API server uses
// for unstructured content (encoding/json's, kept by sigs.k8s.io/json):
// arrays and objects may nest this deep, not deeper.
const maxNesting = 10000

// DecodeObject decodes the JSON object raw for ValidateUpdate, reading only
// what the check reads. Members of an object that the check never visits (a
// pod template beside an immutable spec field, say) are validated and
// skipped, not built; the parts the check does read are decoded as the API
// server decodes unstructured content (k8s.io/apimachinery/pkg/util/json:
// integers as int64, other numbers as float64), so ValidateUpdate returns
// the same errors for two objects decoded with DecodeObject as for the same
// objects decoded in full. The result is for ValidateUpdate only: it is not
// the object.
//
// DecodeObject accepts exactly what utiljson.Unmarshal into a
// map[string]interface{} accepts, and fails where it fails: invalid JSON, a
// number beyond float64, nesting deeper than 10000, a value other than an
// object or null. JSON null decodes to a nil map, as there. The time it
// takes is linear in len(raw).
func (c *Checker) DecodeObject(raw []byte) (map[string]interface{}, error) {
	d := decoder{data: raw}
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		// Not an object: the full decoder's answer (a nil map for null, or
		// its error) costs nothing here.
		var m map[string]interface{}
		err := utiljson.Unmarshal(raw, &m)
		return m, err
	}
	var root *node
	if c != nil {
		root = c.root
	}
	var v interface{}
	var err error
	if root.needsWalk() {
		v, err = d.value(root, 1)
	} else {
		err = d.skip(1)
		v = map[string]interface{}{}
	}
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.syntaxError("after top-level value")
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		// Unreachable: the value starts with '{'.
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// decoder reads one JSON document. depth arguments are the nesting level
// of the value about to be read: 1 for the document's top-level value.
type decoder struct {
	data []byte
	pos  int
}

// value decodes the value at d.pos, which n describes and the check visits.
// An object is built member by member, keeping the members the check reads;
// anything else is decoded in full.
func (d *decoder) value(n *node, depth int) (interface{}, error) {
	if d.pos >= len(d.data) {
		return nil, d.syntaxError("in value")
	}
	// Whole values: an immutable value is compared in full, and so may be
	// one with immutable keys (a violation there reports the whole value
	// when the other side is not of the keyed kind).
	if d.data[d.pos] != '{' || n.whole() || n.immutableKeys || n.structure == nil {
		return d.full(depth)
	}
	return d.object(n, depth)
}

// object decodes the object at d.pos for the walk: the properties that
// need a walk, and the other keys when additionalProperties needs one.
func (d *decoder) object(n *node, depth int) (interface{}, error) {
	if depth > maxNesting {
		return nil, errNestedTooDeep
	}
	s := n.structure
	m := map[string]interface{}{}
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.skipSpace()
		key, err := d.key()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.syntaxError("after object key")
		}
		d.pos++
		d.skipSpace()

		var child *node
		if p, ok := s.propIndex[key]; ok {
			if p.needsWalk() {
				child = p
			}
		} else if s.walkAdd {
			child = s.additional
		}
		if child != nil {
			v, err := d.value(child, depth+1)
			if err != nil {
				return nil, err
			}
			m[key] = v
		} else if err := d.skip(depth + 1); err != nil {
			return nil, err
		}

		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.syntaxError("after object key:value pair")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, d.syntaxError("after object key:value pair")
		}
	}
}

// full decodes the value at d.pos in full, as utiljson.Unmarshal decodes
// it into an interface{}: objects as map[string]interface{} (the last of
// duplicate keys wins), arrays as []interface{}, integers that fit as
// int64 and other numbers as float64, strings unquoted with invalid UTF-8
// replaced.
func (d *decoder) full(depth int) (interface{}, error) {
	if d.pos >= len(d.data) {
		return nil, d.syntaxError("in value")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		if depth > maxNesting {
			return nil, errNestedTooDeep
		}
		m := map[string]interface{}{}
		d.pos++
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			return m, nil
		}
		for {
			d.skipSpace()
			k, err := d.key()
			if err != nil {
				return nil, err
			}
			d.skipSpace()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return nil, d.syntaxError("after object key")
			}
			d.pos++
			d.skipSpace()
			v, err := d.full(depth + 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
			d.skipSpace()
			if d.pos >= len(d.data) {
				return nil, d.syntaxError("after object key:value pair")
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
			case '}':
				d.pos++
				return m, nil
			default:
				return nil, d.syntaxError("after object key:value pair")
			}
		}
	case c == '[':
		if depth > maxNesting {
			return nil, errNestedTooDeep
		}
		l := []interface{}{}
		d.pos++
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return l, nil
		}
		for {
			d.skipSpace()
			v, err := d.full(depth + 1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			d.skipSpace()
			if d.pos >= len(d.data) {
				return nil, d.syntaxError("after array element")
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return l, nil
			default:
				return nil, d.syntaxError("after array element")
			}
		}
	case c == '"':
		return d.key()
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.pos
		if err := d.skipNumber(); err != nil {
			return nil, err
		}
		// As sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts: an
		// integer without a decimal point that fits is an int64, anything
		// else a float64 (skipNumber refused what float64 cannot hold).
		num := string(d.data[start:d.pos])
		if !strings.Contains(num, ".") {
			if i, err := strconv.ParseInt(num, 10, 64); err == nil {
				return i, nil
			}
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return nil, fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", num)
		}
		return f, nil
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.syntaxError("looking for beginning of value")
}

// key reads a string (an object key or a value). A string without escapes
// whose bytes are valid UTF-8 is its bytes; others are unquoted by the full
// decoder, which replaces invalid UTF-8 as it does everywhere.
func (d *decoder) key() (string, error) {
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return "", d.syntaxError("looking for beginning of object key string")
	}
	start := d.pos
	plain, err := d.skipString()
	if err != nil {
		return "", err
	}
	if raw := d.data[start+1 : d.pos-1]; plain || (bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)) {
		return string(raw), nil
	}
	var k string
	if err := utiljson.Unmarshal(d.data[start:d.pos], &k); err != nil {
		return "", err
	}
	return k, nil
}

var errNestedTooDeep = errors.New("exceeded max depth")

// skip checks the syntax of the value at d.pos and moves past it. depth is
// the value's nesting level; arrays and objects deeper than maxNesting are
// refused, as the full decoder refuses them.
func (d *decoder) skip(depth int) error {
	if d.pos >= len(d.data) {
		return d.syntaxError("in value")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		if depth > maxNesting {
			return errNestedTooDeep
		}
		d.pos++
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			return nil
		}
		for {
			d.skipSpace()
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return d.syntaxError("looking for beginning of object key string")
			}
			if _, err := d.skipString(); err != nil {
				return err
			}
			d.skipSpace()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return d.syntaxError("after object key")
			}
			d.pos++
			d.skipSpace()
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			d.skipSpace()
			if d.pos >= len(d.data) {
				return d.syntaxError("after object key:value pair")
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
			case '}':
				d.pos++
				return nil
			default:
				return d.syntaxError("after object key:value pair")
			}
		}
	case c == '[':
		if depth > maxNesting {
			return errNestedTooDeep
		}
		d.pos++
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return nil
		}
		for {
			d.skipSpace()
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			d.skipSpace()
			if d.pos >= len(d.data) {
				return d.syntaxError("after array element")
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return nil
			default:
				return d.syntaxError("after array element")
			}
		}
	case c == '"':
		_, err := d.skipString()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return d.skipNumber()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	return d.syntaxError("looking for beginning of value")
}

// skipString moves past the string at d.pos (at its opening quote) and
// reports whether it is plain: no escapes and only ASCII, so that its bytes
// are its value.
func (d *decoder) skipString() (plain bool, err error) {
	plain = true
	d.pos++ // '"'
	for d.pos < len(d.data) {
		// Most bytes are plain ASCII: move past them eight at a time, then
		// one at a time.
		for d.pos+8 <= len(d.data) && plainWord(binary.LittleEndian.Uint64(d.data[d.pos:])) {
			d.pos += 8
		}
		for d.pos < len(d.data) && plainByte[d.data[d.pos]] {
			d.pos++
		}
		if d.pos >= len(d.data) {
			break
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return plain, nil
		case c == '\\':
			plain = false
			d.pos++
			if d.pos >= len(d.data) {
				return false, d.syntaxError("in string escape code")
			}
			switch d.data[d.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				d.pos++
				for i := 0; i < 4; i++ {
					if d.pos >= len(d.data) || !isHex(d.data[d.pos]) {
						return false, d.syntaxError("in \\u hexadecimal character escape")
					}
					d.pos++
				}
			default:
				return false, d.syntaxError("in string escape code")
			}
		case c < 0x20:
			return false, d.syntaxError("in string literal")
		default: // c >= 0x80
			plain = false
			d.pos++
		}
	}
	return false, d.syntaxError("in string literal")
}

// plainWord reports whether all eight bytes of x are plain (see
// plainByte): none has the high bit set, none is below 0x20, none is a
// quote or a backslash. The tests are the exact ones of "Bit Twiddling
// Hacks" (a byte below n, a zero byte).
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if x&highs != 0 {
		return false
	}
	below := (x - ones*0x20) & ^x & highs
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	quoteZero := (quote - ones) & ^quote & highs
	backslashZero := (backslash - ones) & ^backslash & highs
	return below|quoteZero|backslashZero == 0
}

// plainByte marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber moves past the number at d.pos, checking JSON's number
// grammar, and fails where the full decoder would: on a number beyond
// float64.
func (d *decoder) skipNumber() error {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.pos < len(d.data) && d.data[d.pos] >= '1' && d.data[d.pos] <= '9':
		d.skipDigits()
	default:
		return d.syntaxError("in numeric literal")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.skipDigits() == 0 {
			return d.syntaxError("after decimal point in numeric literal")
		}
	}
	exponent := false
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		exponent = true
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.skipDigits() == 0 {
			return d.syntaxError("in exponent of numeric literal")
		}
	}
	// Without an exponent, a number of up to 300 characters is below
	// float64's largest (about 1.8e308); others may be beyond it.
	if exponent || d.pos-start > 300 {
		s := string(d.data[start:d.pos])
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", s)
		}
	}
	return nil
}

func (d *decoder) skipDigits() int {
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos - start
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.syntaxError("in literal " + lit)
	}
	d.pos += len(lit)
	return nil
}

// skipSpace moves past JSON whitespace.
func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) syntaxError(where string) error {
	if d.pos >= len(d.data) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %q %s at offset %d", d.data[d.pos], where, d.pos)
}
