package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// maxNesting is the nesting limit of the JSON decoder the API server uses
// for unstructured content (encoding/json's, kept by sigs.k8s.io/json):
// arrays and objects may nest this deep, not deeper.
const maxNesting = 10000

// DecodeObject decodes the JSON object raw for ValidateUpdate, reading only
// what the check reads. Members of an object that the check never visits (a
// pod template beside an immutable spec field, say) are validated and
// skipped, not built. An array or object that the check compares whole
// (immutable, or immutable once set) is validated and kept as its bytes:
// ValidateUpdate compares two such values as bytes — with a set below
// them, by their canonical bytes, a set as the multiset of its items'
// bytes — and decodes them only where the bytes cannot decide, since keys
// in another order, 1.0 for 1, escaped characters or a reordered set may
// still be equal (docs/semantics.md, 2.3). The other parts the check reads
// are decoded as the API server decodes unstructured content
// (k8s.io/apimachinery/pkg/util/json: integers as int64, other numbers as
// float64), so ValidateUpdate returns the same errors for two objects
// decoded with DecodeObject as for the same objects decoded in full. The result is for ValidateUpdate only: it is not
// the object, and it shares memory with raw, which must not change while
// the result is in use.
//
// DecodeObject accepts exactly what utiljson.Unmarshal into a
// map[string]interface{} accepts, and fails where it fails: invalid JSON, a
// number beyond float64, nesting deeper than 10000, a value other than an
// object or null. JSON null decodes to a nil map, as there. The time it
// takes is linear in len(raw).
func (c *Checker) DecodeObject(raw []byte) (map[string]interface{}, error) {
	return c.decodeObject(raw, nil, false, false)
}

// DecodeOldObject is DecodeObject for the old object of an update whose new
// object DecodeObject decoded into obj: it decodes raw to the same result
// (the same verdicts from ValidateUpdate, the same errors), but a value
// compared whole whose bytes are those of the same value in obj is
// recognised by comparing bytes rather than scanned again, as is the
// common case (the API server serialises both objects the same way). The
// result shares memory with raw and with obj's bytes, which must not
// change while it is in use.
func (c *Checker) DecodeOldObject(raw []byte, obj map[string]interface{}) (map[string]interface{}, error) {
	return c.decodeObject(raw, obj, false, true)
}

// DecodeTrusted is DecodeObject for raw known to be valid JSON, as the
// bytes of an AdmissionReview that controller-runtime's decoder validated
// are (runtime/webhook): where the decoder only needs the end of a value
// (one it skips, or keeps as bytes that the other object's turn out to
// equal), it finds it without checking the syntax. On valid JSON the
// results are those of DecodeObject; on other bytes it may accept what
// DecodeObject refuses, but never panics, and takes time linear in
// len(raw) without nesting deeper than the decoder's limit.
func (c *Checker) DecodeTrusted(raw []byte) (map[string]interface{}, error) {
	return c.decodeObject(raw, nil, true, false)
}

// DecodeOldTrusted is DecodeOldObject for raw known to be valid JSON
// (DecodeTrusted).
func (c *Checker) DecodeOldTrusted(raw []byte, obj map[string]interface{}) (map[string]interface{}, error) {
	return c.decodeObject(raw, obj, true, true)
}

// decodeObject decodes raw; peer, if not nil, is DecodeObject's result
// for the other object of the update, and old says raw is the old
// object. With valid, raw is known to be valid JSON (see decoder.valid)
// and is decoded in trusted mode.
func (c *Checker) decodeObject(raw []byte, peer map[string]interface{}, valid, old bool) (map[string]interface{}, error) {
	return c.decodeWith(raw, peer, valid, old, nil, nil)
}

// decodeWith is decodeObject recording the spans of the objects and lists
// it builds for the walk in record, and sharing, where peers is set, the
// values of peer that it holds (DecodeUpdate).
func (c *Checker) decodeWith(raw []byte, peer map[string]interface{}, valid, old bool, record, peers *spanTable) (map[string]interface{}, error) {
	d := decoder{data: raw, valid: valid, old: old, record: record, peers: peers}
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
	md := walkMode
	switch {
	case !root.needsWalk():
		md = skipMode
	case c.whenRoot != nil:
		// A condition may read any part of the objects.
		md = fullMode
	}
	v, err := d.value(root, md, 1, peer)
	if err != nil {
		return nil, err
	}
	if md == skipMode {
		v = map[string]interface{}{}
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
	// text, if set, is data as a string: the strings the decoder builds
	// are then substrings of it, one allocation for all of them.
	text string
	// strs holds the strings the decoder builds where text is not set
	// (substring).
	strs []byte
	// keySlab holds the key values of list-map items kept as bytes
	// (keySlots); keyDest and keyNames, while set, tell object to write
	// the key properties of such an item there (item).
	keySlab  []interface{}
	keyDest  []interface{}
	keyNames []string
	// raws is where rawValues are allocated, a few at a time.
	raws []rawValue
	// strSlab and intSlab hold the strings and integers the decoder
	// builds, boxed without an allocation each (box.go).
	strSlab []string
	intSlab []int64
	// items is a stack of the items of the lists being read (array).
	items []interface{}
	// valid: data is known to be valid JSON (a JSON decoder checked it, as
	// the AdmissionReview's did for the webhook's objects). The decoder is
	// then in trusted mode: where it only needs the end of a value, one it
	// skips or keeps as bytes, it finds that end without checking the
	// syntax (skipTrusted). What it decodes, and the keys it reads, it
	// checks as in the other mode; so does the decoding of a value kept as
	// bytes that differs from the other object's. On valid JSON the result
	// is the same in both modes; on other bytes trusted mode may accept
	// what the other refuses, in time linear in len(data), without
	// nesting deeper than maxNesting.
	valid bool
	// old: data is the old object of an update, decoded beside the new
	// one. In trusted mode, a value it keeps as bytes is the new object's
	// bytes, compared, or checked as in the other mode: the comparison of
	// two values whose bytes differ reads the old one's as checked JSON.
	old bool
	// record, if set, receives the spans of the objects and lists built
	// for the walk (the new object of DecodeUpdate); peers, if set, holds
	// those of the other object's, whose values the decoder shares where
	// the bytes are the same (the old object of DecodeUpdate).
	record, peers *spanTable
}

// mode is what the decoder does with a value. One walk over the document
// serves all three: the syntax is checked the same way everywhere, and
// only what is built differs.
type mode uint8

const (
	// skipMode checks the value's syntax and builds nothing.
	skipMode mode = iota
	// fullMode builds the value as utiljson.Unmarshal does.
	fullMode
	// walkMode builds what the check reads of the value, which its schema
	// node says: the members of an object that the walk visits, and the
	// rest in full.
	walkMode
)

var errNestedTooDeep = errors.New("exceeded max depth")

// value reads the value at d.pos in mode m (n describes it in walkMode),
// moves past it and returns what it built: nil in skipMode. In walkMode,
// peer is what DecodeObject built at the same place of the other object
// of the update, if anything. In fullMode (and for what walkMode builds in
// full) the value is what utiljson.Unmarshal decodes into an interface{}:
// objects as map[string]interface{} (the last of duplicate keys wins),
// arrays as []interface{}, integers that fit as int64 and other numbers as
// float64, strings unquoted with invalid UTF-8 replaced. Arrays and
// objects deeper than maxNesting are refused in every mode, as the full
// decoder refuses them.
func (d *decoder) value(n *node, m mode, depth int, peer interface{}) (interface{}, error) {
	if m == skipMode && d.valid {
		return nil, d.skipTrusted(depth)
	}
	if d.pos >= len(d.data) {
		return nil, d.syntaxError("in value")
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		if depth > maxNesting {
			return nil, errNestedTooDeep
		}
		if m == walkMode {
			switch {
			case n.whole():
				// Compared whole: kept as its bytes (rawvalue.go). Where
				// they are the bytes of the other object's value, they
				// are valid as those were: compare, do not scan.
				r, ok := peer.(*rawValue)
				if ok && int(r.depth) == depth && bytes.HasPrefix(d.data[d.pos:], r.data) {
					d.pos += len(r.data)
					return r, nil
				}
				return d.raw(depth, ok && d.old)
			case n.immutableKeys || n.structure == nil:
				// A value with immutable keys is built in full: a
				// violation there reports the whole value when the
				// other side is not of the keyed kind.
				return d.container(n, fullMode, depth, peer, nil)
			case d.lazy(n, depth):
				return d.keepLazy(n, depth) // lazy.go
			}
			return d.container(n, m, depth, peer, nil)
		}
		if m == fullMode && depth == 1 && (d.record != nil || d.peers != nil) {
			// The whole object of a Checker with conditions, which
			// decodes in full: shared whole where it is unchanged.
			return d.container(n, m, depth, peer, nil)
		}
		if c == '{' {
			return d.object(n, m, depth, peer, nil)
		}
		return d.array(n, m, depth, peer)
	case c == '"':
		if m == skipMode {
			_, err := d.skipString()
			return nil, err
		}
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number(m != skipMode)
	case c == 't':
		return literalValue(m, true, d.literal("true"))
	case c == 'f':
		return literalValue(m, false, d.literal("false"))
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.syntaxError("looking for beginning of value")
}

// raw checks the syntax of the array or object at d.pos, at the given
// depth, moves past it and returns its bytes as a rawValue.
//
// differs: the value is the old object's, and the new object's value at
// its place is kept as bytes that differ from these, which the walk will
// compare by their canonical form (canonical). The bytes are then first
// scanned for that form, which checks their syntax too: where they have
// it, that one scan serves both, and the rawValue says so (canon).
func (d *decoder) raw(depth int, differs bool) (interface{}, error) {
	start := d.pos
	canon := false
	if differs {
		if canon = canonicalValue(d, depth, 0); !canon {
			d.pos = start
		}
	}
	if !canon {
		valid := d.checkingOld()
		_, err := d.value(nil, skipMode, depth, nil)
		d.valid = valid
		if err != nil {
			return nil, err
		}
	}
	if len(d.raws) == cap(d.raws) {
		d.raws = make([]rawValue, 0, min(max(2*cap(d.raws), 8), maxSlab))
	}
	d.raws = append(d.raws, rawValue{data: d.data[start:d.pos], depth: int32(depth), canon: canon})
	return &d.raws[len(d.raws)-1], nil
}

// checkingOld leaves trusted mode for a value of the old object kept as
// bytes, which is checked in trusted mode too (see decoder.old), and
// returns the mode to restore (d.valid) once the value is read.
func (d *decoder) checkingOld() (valid bool) {
	valid = d.valid
	if d.old {
		d.valid = false
	}
	return valid
}

// literalValue is v in the modes that build, nil in skipMode, or err.
func literalValue(m mode, v bool, err error) (interface{}, error) {
	if err != nil || m == skipMode {
		return nil, err
	}
	return v, nil
}

// object reads the object at d.pos (at its '{') in mode m. In walkMode it
// keeps the properties of n that need a walk, and the other keys when
// additionalProperties needs one; the other members are skipped.
func (d *decoder) object(n *node, m mode, depth int, peer interface{}, keep *structure) (interface{}, error) {
	// The key properties of a list-map item kept as bytes go into
	// keyDest, by their index in keyNames, not into a map (item).
	dest, names := d.keyDest, d.keyNames
	d.keyDest, d.keyNames = nil, nil
	peerObj, _ := peer.(map[string]interface{})
	var obj map[string]interface{}
	switch {
	case m == skipMode || dest != nil:
	case len(peerObj) > 8:
		// Likely as large as the other object's: made at that size, not
		// grown.
		obj = make(map[string]interface{}, len(peerObj))
	default:
		obj = map[string]interface{}{}
	}
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return result(obj, m), nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.syntaxError("looking for beginning of object key string")
		}
		start := d.pos
		plain, err := d.skipString()
		if err != nil {
			return nil, err
		}
		keyEnd := d.pos
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.syntaxError("after object key")
		}
		d.pos++
		d.skipSpace()

		var key string
		var child *node
		cm := m
		switch m {
		case fullMode:
			if key, err = d.unquote(start, keyEnd, plain); err != nil {
				return nil, err
			}
		case walkMode:
			key, child, err = d.member(n.structure, keep, start, keyEnd, plain)
			if err != nil {
				return nil, err
			}
			if child == nil {
				cm = skipMode
			}
		}
		var childPeer interface{}
		if child != nil && peerObj != nil {
			childPeer = peerObj[key]
		}
		v, err := d.value(child, cm, depth+1, childPeer)
		if err != nil {
			return nil, err
		}
		switch {
		case cm == skipMode:
		case dest != nil:
			if i := keyPosition(names, key); i >= 0 {
				dest[i] = v
			}
		default:
			obj[key] = v
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
			return result(obj, m), nil
		default:
			return nil, d.syntaxError("after object key:value pair")
		}
	}
}

// member returns the key of the member whose quoted key is
// d.data[start:end], and the schema node of its value if the walk visits
// it, at s or else at keep (the key properties of a list-map item; nil:
// none); nil: skip it. The key is built only for a member that is kept.
func (d *decoder) member(s, keep *structure, start, end int, plain bool) (string, *node, error) {
	raw := d.data[start+1 : end-1]
	if plain || (bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)) {
		// The key's bytes are the key: look it up without building it,
		// and build it only for a key the schema does not name.
		name, child := s.walkMember(raw)
		if child == nil && keep != nil {
			name, child = keep.walkMember(raw)
		}
		switch {
		case child == nil:
			return "", nil, nil
		case name == "":
			return d.substring(start+1, end-1), child, nil
		}
		return name, child, nil
	}
	key, err := d.unquote(start, end, false)
	if err != nil {
		return "", nil, err
	}
	_, child := s.walkMember([]byte(key))
	if child == nil && keep != nil {
		_, child = keep.walkMember([]byte(key))
	}
	return key, child, nil
}

// walkMember returns the node of the key whose bytes are k in an object
// at s if the walk visits it (a property that needs a walk, or any other
// key when additionalProperties needs one; else nil), without allocating,
// and the property's name where it is one of s's walked properties (they
// are sorted by name): "" for any other key.
func (s *structure) walkMember(k []byte) (name string, child *node) {
	if s == nil {
		return "", nil
	}
	lo, hi := 0, len(s.walkProps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.walkProps[m].name < string(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.walkProps) && s.walkProps[lo].name == string(k) {
		return s.walkProps[lo].name, s.walkProps[lo].node
	}
	if !s.walkAdd {
		return "", nil
	}
	if _, ok := s.propIndex[string(k)]; ok {
		return "", nil // a property the walk does not visit
	}
	return "", s.additional
}

// array reads the array at d.pos (at its '[') in mode m. In walkMode (n
// describes it) its items are read in walkMode when the walk visits them:
// those of an atomic list or a list map, each beside the item at the same
// index of peer; the items of other lists are skipped (the walk does not
// read them, and the list stays a list).
func (d *decoder) array(n *node, m mode, depth int, peer interface{}) (interface{}, error) {
	var list []interface{}
	if m != skipMode {
		list = []interface{}{}
	}
	im := m // the items' mode
	var keys *structure
	var peerList []interface{}
	if m == walkMode {
		s := n.structure
		switch {
		case !s.walkItems || s.listType == listSet:
			im = skipMode
		case s.listType == listMap:
			keys = s.keyProps
			if keys == nil {
				keys = listKeyStructure(s)
			}
		}
		peerList, _ = peer.([]interface{})
	}
	d.pos++ // '['
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return result(list, m), nil
	}
	if im != skipMode && d.items == nil {
		d.items = make([]interface{}, 0, minSlab)
	}
	base := len(d.items)
	for i := 0; ; i++ {
		d.skipSpace()
		var v interface{}
		var err error
		switch {
		case im != walkMode:
			v, err = d.value(nil, im, depth+1, nil)
		default:
			var p interface{}
			if i < len(peerList) {
				p = peerList[i]
			}
			v, err = d.item(n.structure, keys, depth+1, p)
		}
		if err != nil {
			return nil, err
		}
		if im != skipMode {
			d.items = append(d.items, v)
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.syntaxError("after array element")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			if im != skipMode {
				list = d.popItems(base)
			}
			return result(list, m), nil
		default:
			return nil, d.syntaxError("after array element")
		}
	}
}

// popItems returns the items of a list pushed on decoder.items since base,
// in a slice of their number, and pops them. A list's items are gathered
// there (the items of the lists inside it pushed and popped in between)
// rather than appended to a slice that grows, one allocation per list
// instead of one per doubling.
func (d *decoder) popItems(base int) []interface{} {
	list := make([]interface{}, len(d.items)-base)
	copy(list, d.items[base:])
	clear(d.items[base:])
	d.items = d.items[:base]
	return list
}

// item reads an item of a list the walk visits, whose structure is s; keys
// is listKeyStructure(s) for a list map, else nil. The item of a list map
// keeps its key properties, which correlate it, whatever else the walk
// reads: an item compared whole is kept as its bytes with them
// (rawValue.keys), another object is built for the walk with them.
func (d *decoder) item(s, keys *structure, depth int, peer interface{}) (interface{}, error) {
	if keys == nil || d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return d.value(s.items, walkMode, depth, peer)
	}
	if depth > maxNesting {
		return nil, errNestedTooDeep
	}
	switch {
	case s.items.immutableKeys || s.items.structure == nil:
		return d.value(s.items, walkMode, depth, peer) // built in full
	case !s.items.whole():
		return d.container(s.items, walkMode, depth, peer, keys)
	}
	if r, ok := peer.(*rawValue); ok && r.keys != nil && int(r.depth) == depth && bytes.HasPrefix(d.data[d.pos:], r.data) {
		d.pos += len(r.data)
		return r, nil
	}
	start := d.pos
	valid := d.checkingOld()
	vals := d.keySlots(len(s.listKeys))
	d.keyDest, d.keyNames = vals, s.listKeys
	_, err := d.object(&node{structure: keys}, walkMode, depth, nil, nil)
	d.valid = valid
	if err != nil {
		return nil, err
	}
	if len(d.raws) == cap(d.raws) {
		d.raws = make([]rawValue, 0, min(max(2*cap(d.raws), 8), maxSlab))
	}
	d.raws = append(d.raws, rawValue{data: d.data[start:d.pos], depth: int32(depth), keys: vals})
	return &d.raws[len(d.raws)-1], nil
}

// keySlots returns n slots for the values of an item's key properties,
// from a slab shared by the items of the document.
func (d *decoder) keySlots(n int) []interface{} {
	if cap(d.keySlab)-len(d.keySlab) < n {
		d.keySlab = make([]interface{}, 0, max(n, 64))
	}
	i := len(d.keySlab)
	d.keySlab = d.keySlab[:i+n]
	return d.keySlab[i : i+n : i+n]
}

// keyPosition returns the index of name in names, or -1.
func keyPosition(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// listKeyStructure is the structure that keeps the key properties of a
// list map's items: each compared whole, so that a scalar is built and
// anything else, which cannot be a key, is not.
func listKeyStructure(s *structure) *structure {
	k := &structure{propIndex: make(map[string]*node, len(s.listKeys))}
	for _, name := range s.listKeys {
		k.propIndex[name] = &node{immutable: true}
	}
	for _, name := range slices.Sorted(maps.Keys(k.propIndex)) {
		k.walkProps = append(k.walkProps, property{name: name, node: k.propIndex[name]})
	}
	return k
}

// result is v, or nil in skipMode (an interface holding a nil map or
// slice is not nil).
func result[T any](v T, m mode) interface{} {
	if m == skipMode {
		return nil
	}
	return v
}

// number reads the number at d.pos, checking JSON's number grammar, and
// with build returns it as sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts does: an integer without a decimal
// point that fits is an int64, anything else a float64.
func (d *decoder) number(build bool) (interface{}, error) {
	start := d.pos
	if err := d.skipNumber(); err != nil || !build {
		return nil, err
	}
	num := string(d.data[start:d.pos])
	if !strings.Contains(num, ".") {
		if i, err := strconv.ParseInt(num, 10, 64); err == nil {
			return d.boxInt(i), nil
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		// skipNumber refused what float64 cannot hold.
		return nil, fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", num)
	}
	return f, nil
}

// str reads a string value.
func (d *decoder) str() (interface{}, error) {
	start := d.pos
	plain, err := d.skipString()
	if err != nil {
		return nil, err
	}
	v, err := d.unquote(start, d.pos, plain)
	if err != nil {
		return nil, err
	}
	return d.boxString(v), nil
}

// substring returns d.data[start:end] as a string: a substring of
// decoder.text where it is set, else written into decoder.strs, so that
// the strings built share a few buffers rather than one allocation each.
// Bytes written there are never written again (a full buffer is left as
// it is for a new one), so the strings stay immutable.
func (d *decoder) substring(start, end int) string {
	if d.text != "" {
		return d.text[start:end]
	}
	n := end - start
	if n == 0 {
		return ""
	}
	if cap(d.strs)-len(d.strs) < n {
		d.strs = make([]byte, 0, max(n, min(2*cap(d.strs), maxStringBuffer), minStringBuffer))
	}
	off := len(d.strs)
	d.strs = append(d.strs, d.data[start:end]...)
	return unsafe.String(&d.strs[off], n)
}

// minStringBuffer and maxStringBuffer bound the buffers of decoder.strs:
// each is twice the last, from 256 bytes to 64 KB (or one string's size).
const (
	minStringBuffer = 256
	maxStringBuffer = 64 << 10
)

// unquote returns the string whose quoted form is d.data[start:end]. A
// string without escapes whose bytes are valid UTF-8 is its bytes; others
// are unquoted by the full decoder, which replaces invalid UTF-8 as it
// does everywhere.
func (d *decoder) unquote(start, end int, plain bool) (string, error) {
	if raw := d.data[start+1 : end-1]; plain || (bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)) {
		return d.substring(start+1, end-1), nil
	}
	var k string
	if err := utiljson.Unmarshal(d.data[start:end], &k); err != nil {
		return "", err
	}
	return k, nil
}

// skipString moves past the string at d.pos (at its opening quote) and
// reports whether it is plain: no escapes and only ASCII, so that its bytes
// are its value.
func (d *decoder) skipString() (plain bool, err error) {
	plain = true
	d.pos++ // '"'
	for d.pos < len(d.data) {
		// Most bytes are plain ASCII: move past them eight at a time, to
		// the first byte that is not plain, then (near the end of the
		// data) one at a time.
		for d.pos+8 <= len(d.data) {
			if m := notPlain(binary.LittleEndian.Uint64(d.data[d.pos:])); m != 0 {
				d.pos += bits.TrailingZeros64(m) >> 3
				break
			}
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
// plainByte).
func plainWord(x uint64) bool { return notPlain(x) == 0 }

// notPlain returns a mask of the bytes of x (read little-endian) that may
// not be plain (see plainByte): the high bit of such a byte is set. The
// lowest byte it marks is the first byte that is not plain (it has the
// high bit set, is below 0x20, or is a quote or a backslash), and it marks
// none when all eight are plain: the tests are the exact ones of "Bit
// Twiddling Hacks" (a byte below n, a zero byte), whose borrows reach
// only the bytes above a marked one.
func notPlain(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (x - ones*0x20) & ^x
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	quoteZero := (quote - ones) & ^quote
	backslashZero := (backslash - ones) & ^backslash
	return (x | below | quoteZero | backslashZero) & highs
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
	return d.inRange(start, exponent)
}

// inRange fails where the full decoder fails on the number
// d.data[start:d.pos], which has an exponent or not: on a number beyond
// float64.
func (d *decoder) inRange(start int, exponent bool) error {
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

// skipTrusted moves past the value at d.pos, at the given depth, in
// trusted mode (decoder.valid): it finds the value's end without checking
// its syntax. A string ends at the first quote not escaped by a
// backslash (found eight bytes at a time), an array or object where the
// brackets opened outside strings since its start are all closed, a
// number or literal at the first byte that cannot be in one. It fails
// where the full decoder fails on valid JSON: on nesting deeper than
// maxNesting, on a number beyond float64. On any bytes it moves forward,
// never past the end of the data.
func (d *decoder) skipTrusted(depth int) error {
	data, pos := d.data, d.pos
	if pos >= len(data) {
		return d.syntaxError("in value")
	}
	start := pos
	open := 0 // the arrays and objects open, the value's own included
	for {
		switch trustedClass[data[pos]] {
		case quoteClass:
			pos++
			for {
				if pos+8 <= len(data) {
					m := quoteOrBackslash(binary.LittleEndian.Uint64(data[pos:]))
					if m == 0 {
						pos += 8
						continue
					}
					pos += bits.TrailingZeros64(m) >> 3
				} else {
					for pos < len(data) && data[pos] != '"' && data[pos] != '\\' {
						pos++
					}
					if pos >= len(data) {
						d.pos = len(data)
						return d.syntaxError("in string literal")
					}
				}
				if data[pos] == '"' {
					pos++
					break
				}
				pos += 2 // '\\' and the character it escapes
			}
		case openClass:
			if depth+open > maxNesting {
				d.pos = pos
				return errNestedTooDeep
			}
			open++
			pos++
		case closeClass:
			if open == 0 {
				d.pos = pos
				return d.syntaxError("looking for beginning of value")
			}
			open--
			pos++
		case numberClass:
			num := pos
			exponent := false
			for pos < len(data) && numberByte[data[pos]] {
				exponent = exponent || data[pos] == 'e' || data[pos] == 'E'
				pos++
			}
			d.pos = pos
			if err := d.inRange(num, exponent); err != nil {
				return err
			}
		default: // white space, ',', ':', letters
			if open == 0 {
				// A literal, or not a value.
				for pos < len(data) && data[pos] >= 'a' && data[pos] <= 'z' {
					pos++
				}
				d.pos = pos
				if pos == start {
					return d.syntaxError("looking for beginning of value")
				}
				return nil
			}
			pos++
		}
		if open == 0 {
			d.pos = pos
			return nil
		}
		if pos >= len(data) {
			d.pos = pos
			return d.syntaxError("in value")
		}
	}
}

// The classes of bytes skipTrusted tells apart (0: any other byte).
const (
	quoteClass = iota + 1
	openClass
	closeClass
	numberClass
)

// trustedClass is the class of each byte for skipTrusted.
var trustedClass = func() (t [256]uint8) {
	t['"'] = quoteClass
	t['{'], t['['] = openClass, openClass
	t['}'], t[']'] = closeClass, closeClass
	for _, c := range []byte("-0123456789") {
		t[c] = numberClass
	}
	return t
}()

// numberByte marks the bytes a JSON number may hold.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE") {
		t[c] = true
	}
	return t
}()

// quoteOrBackslash returns a mask of the bytes of x (read little-endian)
// that may be a quote or a backslash: the high bit of such a byte is set.
// The lowest byte it marks is the first quote or backslash, and it marks
// none when there is none (see notPlain).
func quoteOrBackslash(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	return ((quote-ones)&^quote | (backslash-ones)&^backslash) & highs
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
		if c := d.data[d.pos]; c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return
		}
		d.pos++
	}
}

func (d *decoder) syntaxError(where string) error {
	if d.pos >= len(d.data) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %q %s at offset %d", d.data[d.pos], where, d.pos)
}
