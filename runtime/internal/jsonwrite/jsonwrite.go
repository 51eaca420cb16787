// Package jsonwrite writes JSON strings and floats exactly as
// encoding/json's json.Marshal writes them (HTML escaping on), for the
// runtime's and the webhook's renderings of values, which must match
// json.Marshal byte for byte.
package jsonwrite

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// String appends s to b quoted as json.Marshal quotes a string: `"` and
// `\` escaped, control characters as \b \f \n \r \t or \u00XX, `<`, `>`,
// `&`, U+2028 and U+2029 as \u escapes, and each byte of invalid UTF-8
// as \ufffd.
func String[T ~string | ~[]byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s, i)
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// decodeRune decodes the rune of s at i, as utf8.DecodeRune does, without
// converting s.
func decodeRune[T ~string | ~[]byte](s T, i int) (rune, int) {
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], s[i:])
	return utf8.DecodeRune(buf[:n])
}

// Float appends f as encoding/json's float encoder writes it: the
// shortest exact form, with an exponent (e-7, e+21) below 1e-6 and from
// 1e21 on; false for NaN and the infinities, which it refuses.
func Float(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
