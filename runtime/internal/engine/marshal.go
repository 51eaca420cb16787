package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/immutable"
	"github.com/immutable-gen/immutable-gen/runtime/internal/jsonwrite"
)

// Two values DecodeObject kept as bytes that differ are compared by the
// JSON json.Marshal writes for their decodings, and a denial quotes a
// short changed value (immutable.Reported) in that text
// (field.Error.ErrorBody). The marshaller below writes it from the bytes, without decoding
// them into maps: members in json.Marshal's key order (the last of
// duplicate keys, as the decoder keeps it), numbers as json.Marshal
// writes the int64 or float64 the decoder makes of them, strings escaped
// as encoding/json escapes them (HTML characters, U+2028, U+2029),
// invalid UTF-8 as the decoder replaces it. FuzzMarshalRaw proves the
// output byte for byte against json.Marshal of the decoded value.

// maxMarshalDepth bounds the nesting the marshaller writes; deeper values
// take the decoding path.
const maxMarshalDepth = 100

// marshaller writes JSON that DecodeObject checked as json.Marshal writes
// its decoding.
type marshaller struct {
	d   decoder
	out []byte
	// inexact: the text holds a number whose text may be the same for
	// two unequal numbers or differ for two equal ones (negative zero, an
	// integral float beyond 2^53), so that comparing two texts does not
	// tell equality (docs/semantics.md 2.3).
	inexact bool
	// members is the stack of the members of the objects being written.
	members []member
	// tmp holds an object's members while they are put in order.
	tmp []byte
	// base is the depth of the value in its document.
	base int
}

// member is a member of an object written: its key, decoded (the bytes
// between the quotes where those are the key), and where its value was
// written, from the object's start.
type member struct {
	key        []byte
	start, end int
}

// marshalRaw appends to b the JSON json.Marshal writes for the value r
// decodes to, and reports whether it could (false: nesting beyond
// maxMarshalDepth, or bytes DecodeObject did not check) and whether the
// text is exact: two values whose texts are both exact are equal (eqPlain)
// exactly when their texts are.
func marshalRaw(b []byte, r *rawValue) (out []byte, ok, exact bool) {
	m := marshallers.Get().(*marshaller)
	defer m.release()
	*m = marshaller{d: decoder{data: r.data}, out: b, base: int(r.depth), members: m.members[:0], tmp: m.tmp[:0]}
	if !m.value(0) {
		return b, false, false
	}
	m.d.skipSpace()
	if m.d.pos != len(m.d.data) {
		return b, false, false
	}
	return m.out, true, !m.inexact
}

// marshallers keep the stacks of marshallers between denials.
var marshallers = sync.Pool{New: func() interface{} { return new(marshaller) }}

// release returns m to marshallers, holding no reference to the data it
// wrote, unless its stacks grew large.
func (m *marshaller) release() {
	clear(m.members[:cap(m.members)])
	m.d, m.out = decoder{}, nil
	if cap(m.members) <= 1<<10 && cap(m.tmp) <= 64<<10 {
		marshallers.Put(m)
	}
}

// value writes the value at m.d.pos, nested at depth below the value
// marshalRaw writes, and moves past it.
func (m *marshaller) value(depth int) bool {
	d := &m.d
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		// Deep values, near the limits of the check's depth, are left
		// to the decoding path.
		if depth >= maxMarshalDepth || m.base+depth >= MaxDepth-2 {
			return false
		}
		if c == '{' {
			return m.object(depth)
		}
		return m.array(depth)
	case c == '"':
		return m.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return m.number()
	case c == 't':
		return m.literal("true")
	case c == 'f':
		return m.literal("false")
	case c == 'n':
		return m.literal("null")
	}
	return false
}

func (m *marshaller) literal(lit string) bool {
	if m.d.literal(lit) != nil {
		return false
	}
	m.out = append(m.out, lit...)
	return true
}

func (m *marshaller) array(depth int) bool {
	d := &m.d
	d.pos++ // '['
	m.out = append(m.out, '[')
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		m.out = append(m.out, ']')
		return true
	}
	for {
		if !m.value(depth + 1) {
			return false
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			m.out = append(m.out, ',')
		case ']':
			d.pos++
			m.out = append(m.out, ']')
			return true
		default:
			return false
		}
	}
}

// object writes the object at m.d.pos with its members in key order. The
// API server writes keys in that order, so the members are written as they
// come; where their keys do not increase (keys out of order, duplicates,
// keys that json.Marshal writes otherwise), the members written are put in
// order at the end of the object, each value moved once: the time stays
// linear in the value's size times its nesting (at most maxMarshalDepth).
func (m *marshaller) object(depth int) bool {
	d := &m.d
	outStart := len(m.out)
	base := len(m.members)
	defer func() { m.members = m.members[:base] }()
	sorted := true
	var prev []byte
	d.pos++ // '{'
	m.out = append(m.out, '{')
	for first := true; ; first = false {
		d.skipSpace()
		if d.pos >= len(d.data) {
			return false
		}
		if d.data[d.pos] == '}' && first {
			d.pos++
			m.out = append(m.out, '}')
			return true
		}
		ks := d.pos
		if d.data[d.pos] != '"' {
			return false
		}
		plain, err := d.skipString()
		if err != nil {
			return false
		}
		key := d.data[ks+1 : d.pos-1]
		if !plain && (bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key)) {
			k, err := d.unquote(ks, d.pos, false)
			if err != nil {
				return false
			}
			key = []byte(k)
		}
		if sorted && (!plain || (prev != nil && bytes.Compare(prev, key) >= 0) || !htmlSafe(key)) {
			sorted = false
		}
		prev = key
		if !first {
			m.out = append(m.out, ',')
		}
		m.out = append(m.out, d.data[ks:d.pos]...)
		m.out = append(m.out, ':')
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return false
		}
		d.pos++
		valueStart := len(m.out)
		if !m.value(depth + 1) {
			return false
		}
		m.members = append(m.members, member{key: key, start: valueStart - outStart, end: len(m.out) - outStart})
		d.skipSpace()
		if d.pos >= len(d.data) {
			return false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			if !sorted {
				m.sortMembers(outStart, m.members[base:])
			}
			m.out = append(m.out, '}')
			return true
		default:
			return false
		}
	}
}

// sortMembers writes again the members of the object written from
// m.out[outStart] on (its '{' and members), sorted by key as json.Marshal
// sorts a map's keys, keeping of duplicate keys the last, as the decoder
// does.
func (m *marshaller) sortMembers(outStart int, members []member) {
	m.tmp = append(m.tmp[:0], m.out[outStart:]...)
	m.out = m.out[:outStart+1] // '{'
	// A stable sort keeps duplicates in document order: the last of each
	// run is the one the decoder keeps.
	slices.SortStableFunc(members, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	written := false
	for i, mb := range members {
		if i+1 < len(members) && bytes.Equal(mb.key, members[i+1].key) {
			continue // a later duplicate wins
		}
		if written {
			m.out = append(m.out, ',')
		}
		written = true
		m.out = jsonwrite.String(m.out, mb.key)
		m.out = append(m.out, ':')
		m.out = append(m.out, m.tmp[mb.start:mb.end]...)
	}
}

// str writes the string at m.d.pos as encoding/json writes its decoding.
func (m *marshaller) str() bool {
	d := &m.d
	start := d.pos
	plain, err := d.skipString()
	if err != nil {
		return false
	}
	raw := d.data[start+1 : d.pos-1]
	switch {
	case plain && htmlSafe(raw):
		m.out = append(m.out, d.data[start:d.pos]...)
	case bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw):
		m.out = jsonwrite.String(m.out, raw)
	default:
		s, err := d.unquote(start, d.pos, false)
		if err != nil {
			return false
		}
		m.out = jsonwrite.String(m.out, s)
	}
	return true
}

// number writes the number at m.d.pos as json.Marshal writes the int64 or
// float64 the decoder makes of it (decoder.number).
func (m *marshaller) number() bool {
	d := &m.d
	start := d.pos
	if d.skipNumber() != nil {
		return false
	}
	num := d.data[start:d.pos]
	if smallInt(num) {
		// An int64: its text, but for -0, which is 0.
		if len(num) == 2 && num[0] == '-' && num[1] == '0' {
			m.out = append(m.out, '0')
		} else {
			m.out = append(m.out, num...)
		}
		return true
	}
	if bytes.IndexByte(num, '.') < 0 {
		if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			m.out = strconv.AppendInt(m.out, i, 10)
			return true
		}
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return false
	}
	if f == math.Trunc(f) && (math.Abs(f) >= 1<<53 || (f == 0 && math.Signbit(f))) {
		m.inexact = true
	}
	var ok bool
	m.out, ok = jsonwrite.Float(m.out, f)
	return ok
}

// smallInt reports whether num, a JSON number, is an integer of up to 18
// digits: the decoder makes it an int64, which json.Marshal writes as num
// is written (but -0, which it writes 0).
func smallInt(num []byte) bool {
	digits := len(num)
	if num[0] == '-' {
		digits--
	}
	return digits <= 18 && !bytes.ContainsAny(num, ".eE")
}

// htmlSafe reports whether s holds none of the characters encoding/json
// escapes for HTML, eight bytes at a time (a zero byte of x XOR the
// character marks it, as in notPlain).
func htmlSafe(s []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; len(s) >= 8; s = s[8:] {
		x := binary.LittleEndian.Uint64(s)
		lt, gt, amp := x^(ones*'<'), x^(ones*'>'), x^(ones*'&')
		if ((lt-ones)&^lt|(gt-ones)&^gt|(amp-ones)&^amp)&highs != 0 {
			return false
		}
	}
	for _, c := range s {
		if c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// MarshaledValue is a changed value in the errors of
// ValidateUpdateMarshaled where ValidateUpdate reports the value decoded
// (one no longer than immutable.MaxQuotedValue; a longer one is reported
// by its JSON type by both):
// its JSON as json.Marshal writes the decoded value, written from the
// bytes DecodeObject kept without decoding them. It marshals as that JSON.
type MarshaledValue struct {
	json []byte
	raw  *rawValue
}

// JSON returns the value as json.Marshal writes the decoded value. The
// caller must not modify it.
func (v MarshaledValue) JSON() []byte { return v.json }

// MarshalJSON returns v.JSON().
func (v MarshaledValue) MarshalJSON() ([]byte, error) { return v.json, nil }

// Value returns the value decoded, as ValidateUpdate reports it.
func (v MarshaledValue) Value() interface{} { return decoded(v.raw) }

// texts holds buffers for the texts marshalChanged compares: a changed
// value's text is kept (copied) only where its violation quotes it.
var texts = sync.Pool{New: func() interface{} { b := make([]byte, 0, 4096); return &b }}

// marshalChanged compares two values DecodeObject kept as bytes, with no
// set below them, by their JSON as json.Marshal writes their decodings,
// and returns the violation when they differ. It answers unsure where the
// texts do not tell (see marshalRaw).
func marshalChanged(nv, ov *rawValue, p *field.Path) (verdict, *field.Error) {
	nbuf, obuf := texts.Get().(*[]byte), texts.Get().(*[]byte)
	defer func() {
		release(nbuf)
		release(obuf)
	}()
	text, ok, exact := marshalRaw((*nbuf)[:0], nv)
	*nbuf = text[:0]
	if !ok || !exact {
		return unsure, nil
	}
	old, ok, exact := marshalRaw((*obuf)[:0], ov)
	*obuf = old[:0]
	switch {
	case !ok || !exact:
		return unsure, nil
	case bytes.Equal(text, old):
		return same, nil
	}
	return differ, changedText(p, nv, text)
}

// changedRaw is the violation of the changed value nv, kept as bytes that
// are their own text (canonical): reported as ValidateUpdateMarshaled
// reports it, or, for ValidateUpdate, decoded where it is quoted.
func (w *walker) changedRaw(nv *rawValue, p *field.Path) *field.Error {
	e := changedText(p, nv, nv.data)
	if v, quoted := e.BadValue.(MarshaledValue); quoted && !w.marshal {
		e.BadValue = v.Value()
	}
	return e
}

// changedText is the violation of the changed value nv, whose text is
// text: quoted, in a copy of text, where it is short enough (Reported).
func changedText(p *field.Path, nv *rawValue, text []byte) *field.Error {
	if len(text) <= immutable.MaxQuotedValue {
		// Quoted (short): the text outlives the buffer it is in.
		text = bytes.Clone(text)
	}
	return immutable.Changed(p, MarshaledValue{json: text, raw: nv})
}

// canonical reports whether r's bytes are the text marshalRaw writes for
// them, and exact: JSON without white space, each object's keys
// increasing and written by json.Marshal as they are (writtenAsIs), strings that it
// writes as they are (no escape, valid UTF-8, no HTML character, U+2028
// or U+2029), integers of up to 18 digits but -0, nesting within what
// marshalRaw writes. The API server writes custom resources so: two such
// values whose bytes differ are different values, which canonical tells
// in one scan that writes nothing, where marshalRaw writes both texts.
// It checks the syntax as marshalRaw does, on any bytes.
func canonical(r *rawValue) bool {
	if r.canon {
		return true
	}
	d := decoder{data: r.data}
	return canonicalValue(&d, int(r.depth), 0) && d.pos == len(d.data)
}

// writtenAsIs reports whether encoding/json writes the string whose
// bytes between the quotes are raw (plain: printable ASCII but the quote
// and the backslash, see decoder.skipString) as those bytes: no escape,
// valid UTF-8, no HTML character, U+2028 or U+2029.
func writtenAsIs(raw []byte, plain bool) bool {
	if plain {
		return htmlSafe(raw)
	}
	return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) && htmlSafe(raw) &&
		!bytes.Contains(raw, []byte("\u2028")) && !bytes.Contains(raw, []byte("\u2029"))
}

// canonicalString moves past the string at d.pos (at its quote) and
// reports whether encoding/json writes it as these bytes (writtenAsIs).
// Most strings hold only printable ASCII that needs no escape and is not
// an HTML character: it moves past those eight bytes at a time, in the
// one scan that finds the closing quote; a string with any other byte is
// scanned again by skipString and writtenAsIs. Its loop is skipString's
// with notAsIs for notPlain, written out rather than shared: these are
// the engine's two hottest loops, and a shared one, chosen by a flag,
// is not inlined and tests the flag on every word (measured no faster,
// within the noise of a loaded machine).
func canonicalString(d *decoder) bool {
	start := d.pos
	d.pos++ // '"'
	for d.pos+8 <= len(d.data) {
		if m := notAsIs(binary.LittleEndian.Uint64(d.data[d.pos:])); m != 0 {
			d.pos += bits.TrailingZeros64(m) >> 3
			break
		}
		d.pos += 8
	}
	for d.pos < len(d.data) && asIsByte[d.data[d.pos]] {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '"' {
		d.pos++
		return true
	}
	d.pos = start
	plain, err := d.skipString()
	return err == nil && writtenAsIs(d.data[start+1:d.pos-1], plain)
}

// notAsIs is notPlain that also marks the HTML characters '<', '>' and
// '&': the high bit of each byte of x (read little-endian) that may not
// be written as it is (asIsByte) is set. As in notPlain, only the lowest
// mark is sure to be such a byte.
func notAsIs(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (x - ones*0x20) &^ x
	q, bs := x^(ones*'"'), x^(ones*'\\')
	lt, gt, amp := x^(ones*'<'), x^(ones*'>'), x^(ones*'&')
	return (x | below | (q-ones)&^q | (bs-ones)&^bs | (lt-ones)&^lt | (gt-ones)&^gt | (amp-ones)&^amp) & highs
}

// asIsByte marks the bytes encoding/json writes in a string as they are:
// plainByte's but '<', '>' and '&'.
var asIsByte = func() (t [256]bool) {
	t = plainByte
	t['<'], t['>'], t['&'] = false, false, false
	return t
}()

// canonicalValue is canonical for the value at d.pos, nested at depth
// below a value at depth base of its document; it moves past the value.
func canonicalValue(d *decoder, base, depth int) bool {
	if d.pos >= len(d.data) {
		return false
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		if depth >= maxMarshalDepth || base+depth >= MaxDepth-2 {
			return false
		}
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		d.pos++
		if d.pos < len(d.data) && d.data[d.pos] == closing {
			d.pos++
			return true
		}
		var prev []byte
		for {
			if c == '{' {
				ks := d.pos
				if d.pos >= len(d.data) || d.data[d.pos] != '"' || !canonicalString(d) {
					return false
				}
				key := d.data[ks+1 : d.pos-1]
				if prev != nil && bytes.Compare(prev, key) >= 0 {
					return false
				}
				prev = key
				if d.pos >= len(d.data) || d.data[d.pos] != ':' {
					return false
				}
				d.pos++
			}
			if !canonicalValue(d, base, depth+1) || d.pos >= len(d.data) {
				return false
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
			case closing:
				d.pos++
				return true
			default:
				return false
			}
		}
	case c == '"':
		return canonicalString(d)
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.pos
		if d.skipNumber() != nil {
			return false
		}
		num := d.data[start:d.pos]
		return smallInt(num) && string(num) != "-0"
	case c == 't':
		return d.literal("true") == nil
	case c == 'f':
		return d.literal("false") == nil
	case c == 'n':
		return d.literal("null") == nil
	}
	return false
}

// release returns a buffer of texts to the pool, unless a huge value made
// it too large to keep.
func release(b *[]byte) {
	if cap(*b) <= 1<<20 {
		texts.Put(b)
	}
}
