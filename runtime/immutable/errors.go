// Package immutable holds what immutability checks share at run time: the
// violations they report (one field.Error each, the texts of
// docs/semantics.md "Update semantics" 6, written once here for the
// unstructured runtime and the generated typed validators alike) and the
// comparisons the typed validators `immutable-gen validators` generates
// call instead of inlining them (multisets, list-map correlation, key sets).
//
// It depends on apimachinery's field package, the standard library and the
// runtime's internal string quoting only, so an API package calling it
// pulls in nothing of the generator.
package immutable

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/internal/jsonwrite"
)

// Origin is the origin of every violation, where field.Error has one.
const Origin = "immutable"

// originField is the index of field.Error's Origin field, or nil where the
// apimachinery the program is built with has none (before v0.34): the
// package builds with apimachinery v0.31 and later, and sets the origin
// where the field exists. It is computed once and never changed.
var originField = func() []int {
	f, ok := reflect.TypeOf(field.Error{}).FieldByName("Origin")
	if !ok || f.Type.Kind() != reflect.String {
		return nil
	}
	return f.Index
}()

// OriginOf returns e's origin, or "" where field.Error has none.
func OriginOf(e *field.Error) string {
	if originField == nil || e == nil {
		return ""
	}
	return reflect.ValueOf(e).Elem().FieldByIndex(originField).String()
}

// WithOrigin sets e's origin to Origin where field.Error has one, and
// returns e.
func WithOrigin(e *field.Error) *field.Error {
	if originField != nil && e != nil {
		reflect.ValueOf(e).Elem().FieldByIndex(originField).SetString(Origin)
	}
	return e
}

// Form is the form of the marker on a property that was added or removed.
type Form uint8

const (
	// Whole is +immutable (x-kubernetes-immutable).
	Whole Form = iota
	// Keys is +immutable=keys (x-kubernetes-immutable-keys).
	Keys
	// Once is +immutable=once (x-immutable-gen-immutable-once).
	Once
)

// Changed is the violation of a changed immutable value: Invalid, "field is
// immutable", with the new value, or its JSON type where the value is
// longer than MaxQuotedValue (Reported).
func Changed(p *field.Path, value any) *field.Error {
	return ChangedAt(pathString(p), value)
}

// ChangedAt is Changed at a path already rendered (the root is "").
func ChangedAt(path string, value any) *field.Error {
	return WithOrigin(&field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: Reported(value), Detail: "field is immutable"})
}

// MaxQuotedValue is the length, in bytes of its JSON as json.Marshal writes
// it, of the longest changed value a violation quotes. A longer one (a pod
// template, a long string) is reported by its JSON type, "object", "array"
// or "string", as the API server's own CEL transition rules report every
// value (docs/semantics.md, "Update semantics (runtime)" 6): the path names
// the field, the client holds the value it sent, and a denial stays small
// whatever the size of the object; apierrors.NewInvalid's status quotes
// each violation twice, in its message and in its cause.
const MaxQuotedValue = 256

// Reported is the BadValue of the violation of a changed value: value
// itself, or its JSON type where its JSON (json.Marshal's, or its own
// MarshalJSON's) is longer than MaxQuotedValue bytes. value is what
// ValidateUpdate reports (decoded JSON, or a value that marshals as its
// JSON) or a field of a typed object; a value that does not marshal is
// returned as it is, for field.Error to render.
func Reported(value any) any {
	switch v := value.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return value
	case string:
		return reportedString(value, v)
	case json.Marshaler:
		// runtime.MarshaledValue, metav1.Time, resource.Quantity, ...:
		// their own text, without json.Marshal's check of it.
		text, err := v.MarshalJSON()
		if err != nil {
			return value
		}
		return reportedText(value, text)
	}
	switch value.(type) {
	case map[string]interface{}:
		// Decoded JSON: the length of its text is counted, not written (a
		// violation allocates what it holds, not a text to measure).
		if n, ok := jsonLength(value, MaxQuotedValue); ok && n > MaxQuotedValue {
			return "object"
		} else if ok {
			return value
		}
	case []interface{}:
		if n, ok := jsonLength(value, MaxQuotedValue); ok && n > MaxQuotedValue {
			return "array"
		} else if ok {
			return value
		}
	}
	rv := reflect.ValueOf(value)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return value
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return value
	case reflect.String:
		if _, ok := rv.Interface().(json.Marshaler); !ok {
			return reportedString(value, rv.String())
		}
	}
	text, err := json.Marshal(value)
	if err != nil {
		return value
	}
	return reportedText(value, text)
}

// reportedString is Reported for a value whose JSON is the string s.
func reportedString(value any, s string) any {
	if len(s)+2 > MaxQuotedValue {
		return "string"
	}
	var buf [2 * MaxQuotedValue]byte
	if len(jsonwrite.String(buf[:0], s)) > MaxQuotedValue {
		return "string"
	}
	return value
}

// over reports whether v, decoded JSON, has a JSON text surely longer than
// limit bytes: it counts a lower bound of its length (every string and key
// unescaped, every number one digit), and stops once past limit, so that a
// large value (a pod template) is not marshaled to learn its length.
// Values of other Go types count as nothing.
func over(v any, limit int) bool {
	n := 0
	var count func(v any) bool
	count = func(v any) bool {
		switch x := v.(type) {
		case map[string]interface{}:
			n += 1 + len(x) // braces, colons and commas
			for k, e := range x {
				n += len(k) + 2
				if n > limit || count(e) {
					return true
				}
			}
		case []interface{}:
			n += 1 + len(x)
			for _, e := range x {
				if n > limit || count(e) {
					return true
				}
			}
		case string:
			n += len(x) + 2
		case bool, int64, float64, nil:
			n++
		}
		return n > limit
	}
	return count(v)
}

// jsonLength returns the length of the JSON json.Marshal writes for v,
// decoded JSON, or a length past limit once it is past limit; ok is false
// where v holds something else (a value json.Marshal may refuse, such as
// NaN, or another Go type), which the caller marshals. It writes nothing
// on the heap.
func jsonLength(v any, limit int) (n int, ok bool) {
	var buf [64]byte
	var count func(v any) bool
	count = func(v any) bool {
		switch x := v.(type) {
		case nil:
			n += 4
		case bool:
			n += 4
			if !x {
				n++
			}
		case string:
			if len(x)+2 > limit {
				n += len(x) + 2 // at least
				return true
			}
			n += stringLength(x)
		case int64:
			n += len(strconv.AppendInt(buf[:0], x, 10))
		case float64:
			text, ok := jsonwrite.Float(buf[:0], x)
			if !ok {
				return false
			}
			n += len(text)
		case map[string]interface{}:
			if x == nil {
				n += 4
				break
			}
			n += 1 + max(len(x), 1) // braces, commas
			for k, e := range x {
				n += stringLength(k) + 1 // the key and its colon
				if n > limit {
					return true
				}
				if !count(e) {
					return false
				}
			}
		case []interface{}:
			if x == nil {
				n += 4
				break
			}
			n += 1 + max(len(x), 1) // brackets, commas
			for _, e := range x {
				if n > limit {
					return true
				}
				if !count(e) {
					return false
				}
			}
		default:
			return false
		}
		return true
	}
	return n, count(v)
}

// stringLength is the length of the JSON json.Marshal writes for s:
// printable ASCII other than the quote, the backslash and the HTML
// characters as it is, every other character as jsonwrite writes it.
func stringLength(s string) int {
	n := 2
	var buf [16]byte
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			n++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n += len(jsonwrite.String(buf[:0], s[i:i+size])) - 2
		i += size
	}
	return n
}

// reportedText is Reported for a value whose JSON is text.
func reportedText(value any, text []byte) any {
	if len(text) <= MaxQuotedValue {
		return value
	}
	switch text[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	}
	// A long number: reported as it is, as the API server decodes it.
	return value
}

// Presence is the violation of a marked property name that was added or
// removed: Forbidden, with the property's name and the marker's form in the
// message.
func Presence(p *field.Path, name string, form Form, added bool) *field.Error {
	return PresenceAt(pathString(p), name, form, added)
}

// PresenceAt is Presence at a path already rendered (the root is "").
func PresenceAt(path, name string, form Form, added bool) *field.Error {
	var detail string
	switch form {
	case Keys:
		detail = "field " + strconv.Quote(name) + " has immutable keys and may not be " + verb(added)
	case Once:
		detail = "field " + strconv.Quote(name) + " is immutable once set and may not be " + verb(added)
	default:
		detail = "field " + strconv.Quote(name) + " is immutable and may not be " + verb(added)
	}
	return forbidden(path, detail)
}

// KeyChanged is the violation of a key added to or removed from a map or
// list map with immutable keys: Forbidden, with the key as rendered by
// QuoteKey (a map key) or FormatKey (a list-map key).
func KeyChanged(p *field.Path, key string, added bool) *field.Error {
	return KeyChangedAt(pathString(p), key, added)
}

// KeyChangedAt is KeyChanged at a path already rendered (the root is "").
func KeyChangedAt(path, key string, added bool) *field.Error {
	return forbidden(path, "key "+key+" may not be "+verb(added)+": keys are immutable")
}

// forbidden is field.Forbidden at a rendered path, with the origin.
func forbidden(path, detail string) *field.Error {
	return WithOrigin(&field.Error{Type: field.ErrorTypeForbidden, Field: path, BadValue: "", Detail: detail})
}

func verb(added bool) string {
	if added {
		return "added"
	}
	return "removed"
}

// pathString renders p as field.Path does, and the root (nil) as "":
// field.Path renders nil as "<nil>".
func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return PathString(p)
}

// PathString renders p as p.String() does ("spec.ports[0].name"; a nil
// p as "<nil>"), allocating the string only, where p.String() allocates
// four times: a violation's path is rendered once, and holding its string
// is all the error needs.
func PathString(p *field.Path) string {
	if p == nil || !pathMirrored {
		return p.String()
	}
	n := 0
	for e := (*pathMirror)(unsafe.Pointer(p)); e != nil; e = e.parent {
		if len(e.name) > 0 {
			n += len(e.name)
			if e.parent != nil {
				n++
			}
		} else {
			n += len(e.index) + 2
		}
	}
	if n == 0 {
		return ""
	}
	b := make([]byte, n)
	for e := (*pathMirror)(unsafe.Pointer(p)); e != nil; e = e.parent {
		if len(e.name) > 0 {
			n -= len(e.name)
			copy(b[n:], e.name)
			if e.parent != nil {
				n--
				b[n] = '.'
			}
		} else {
			n--
			b[n] = ']'
			n -= len(e.index)
			copy(b[n:], e.index)
			n--
			b[n] = '['
		}
	}
	return unsafe.String(&b[0], len(b))
}

// pathMirror is field.Path's layout: its field's name, or "" for a
// subscript (index or map key), the subscript, and the parent element.
// PathString reads a field.Path through it where pathMirrored says that
// the apimachinery the program is built with has that layout (it has from
// v0.31 to v0.37 at least); elsewhere it calls Path.String.
type pathMirror struct {
	name   string
	index  string
	parent *pathMirror
}

// pathMirrored reports whether field.Path has pathMirror's layout:
// computed once and never changed.
var pathMirrored = func() bool {
	pt, mt := reflect.TypeOf(field.Path{}), reflect.TypeOf(pathMirror{})
	if pt.NumField() != mt.NumField() || pt.Size() != mt.Size() {
		return false
	}
	for i := 0; i < pt.NumField(); i++ {
		pf, mf := pt.Field(i), mt.Field(i)
		if pf.Name != mf.Name || pf.Offset != mf.Offset || pf.Type.Kind() != mf.Type.Kind() {
			return false
		}
	}
	return pt.Field(2).Type == reflect.TypeOf(&field.Path{})
}()

// QuoteKey renders a map key for a message: "team".
func QuoteKey(k string) string { return strconv.Quote(k) }

// FormatKey renders the key of a list-map item for a message, as a JSON
// object with the key properties in x-kubernetes-list-map-keys order:
// {"name":"http","port":80}. names and values go in pairs; values are
// rendered as JSON (FormatScalar).
func FormatKey(names []string, values ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		if i < len(values) {
			b.WriteString(values[i])
		}
	}
	b.WriteByte('}')
	return b.String()
}

// FormatScalar renders a key value of a Go type as the JSON of it decodes
// and renders: strings quoted, integral numbers as integers, other numbers
// in their shortest exact form (a float32 as encoding/json writes it). v is
// a string, bool, int64, uint64, float64 or float32.
func FormatScalar(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return fmt.Sprint(v)
}
