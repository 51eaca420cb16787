// Package respell writes a JSON value in another spelling of the same
// value, for the tests that compare two documents whose bytes differ while
// their values are equal (docs/semantics.md, 2.3: "1 equals 1.0", keys in
// any order, and a string is its characters however they are escaped).
//
// The spellings: object members in a random order, now and then preceded
// by a duplicate of a member with another value (the last of duplicate
// keys wins, as in the API server's decoder); integral numbers as 1, 1.0,
// 1e0 or 10E-1, other numbers in the shortest or the exponent form;
// characters of strings escaped as \uXXXX (surrogate pairs beyond the
// basic plane), "/" as "\/", and white space between tokens. Arrays keep
// their order: reordering a set is the caller's (it needs the schema).
package respell

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Respell returns v (unstructured content: maps, slices, strings,
// booleans, nil, int64, float64 and json.Number) as JSON in a spelling
// drawn from r. It decodes to a value equal to v.
func Respell(v interface{}, r *rand.Rand) []byte {
	w := writer{r: r}
	w.value(v)
	return w.b
}

type writer struct {
	b []byte
	r *rand.Rand
}

func (w *writer) space() {
	if w.r.Intn(4) == 0 {
		w.b = append(w.b, " \n\t\r"[w.r.Intn(4)])
	}
}

func (w *writer) value(v interface{}) {
	w.space()
	switch x := v.(type) {
	case nil:
		w.b = append(w.b, "null"...)
	case bool:
		w.b = strconv.AppendBool(w.b, x)
	case string:
		w.str(x)
	case int64:
		w.integer(strconv.FormatInt(x, 10), x >= -1<<53 && x <= 1<<53)
	case int:
		w.integer(strconv.Itoa(x), x >= -1<<53 && x <= 1<<53)
	case float64:
		w.float(x)
	case json.Number:
		w.b = append(w.b, x...)
	case map[string]interface{}:
		if x == nil {
			w.b = append(w.b, "null"...)
			break
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		w.b = append(w.b, '{')
		for i, k := range keys {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if w.r.Intn(8) == 0 {
				// A duplicate that the member after it overrides.
				w.str(k)
				w.b = append(w.b, ':')
				w.value("overridden")
				w.b = append(w.b, ',')
			}
			w.space()
			w.str(k)
			w.space()
			w.b = append(w.b, ':')
			w.value(x[k])
		}
		w.space()
		w.b = append(w.b, '}')
	case []interface{}:
		if x == nil {
			w.b = append(w.b, "null"...)
			break
		}
		w.b = append(w.b, '[')
		for i, e := range x {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.value(e)
		}
		w.space()
		w.b = append(w.b, ']')
	default:
		panic(fmt.Sprintf("respell: %T is not unstructured content", v))
	}
	w.space()
}

// integer writes the integer whose decimal form is s; exact: a float64
// holds it exactly, so that it may be spelled as a float.
func (w *writer) integer(s string, exact bool) {
	if !exact {
		w.b = append(w.b, s...)
		return
	}
	switch w.r.Intn(5) {
	case 0:
		s += ".0"
	case 1:
		s += "e0"
	case 2:
		if s == "0" || s == "-0" {
			s += ".0E1" // 00E-1 has a leading zero
		} else {
			s += "0E-1"
		}
	case 3:
		s += ".000e+0"
	}
	w.b = append(w.b, s...)
}

func (w *writer) float(f float64) {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		w.integer(strconv.FormatFloat(f, 'f', -1, 64), true)
		return
	}
	format := byte('g')
	if w.r.Intn(2) == 0 {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
}

// str writes s quoted, escaping some of its characters.
func (w *writer) str(s string) {
	if !utf8.ValidString(s) {
		// Invalid UTF-8 decodes to U+FFFD however it is spelled; keep it.
		b, _ := json.Marshal(s)
		w.b = append(w.b, b...)
		return
	}
	w.b = append(w.b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			w.b = append(w.b, '\\', byte(c))
		case c < 0x20:
			w.b = fmt.Appendf(w.b, `\u%04x`, c)
		case c == '/' && w.r.Intn(2) == 0:
			w.b = append(w.b, `\/`...)
		case w.r.Intn(4) == 0:
			if c > 0xffff {
				c -= 0x10000
				w.b = fmt.Appendf(w.b, `\u%04X\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			} else {
				w.b = fmt.Appendf(w.b, `\u%04x`, c)
			}
		default:
			w.b = utf8.AppendRune(w.b, c)
		}
	}
	w.b = append(w.b, '"')
}
