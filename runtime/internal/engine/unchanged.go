package engine

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Unchanged reports whether ValidateUpdate allows the update of oldRaw to
// raw, and both decode without error, found without decoding either: raw
// is known to be valid JSON (trusted, as for DecodeTrusted), oldRaw is
// exactly raw's bytes, c has no conditions, raw is an object, float64
// holds its numbers and its arrays and objects nest at most
// maxUnchangedNesting levels. Then DecodeUpdate would decode raw without
// error into one map for both objects (the old one shares the new one's
// values), and the walk of a value beside itself reports nothing: every
// comparison of a value with itself is equal, no key or item is added or
// removed, and the one violation a value can carry beside itself, nesting
// deeper than MaxDepth, is out of reach of a decoded object. Where
// Unchanged reports false, the update is decoded and checked as usual;
// it may report false for an update it could have answered (an exponent
// outside strings, say), never true for one that is not allowed
// (docs/semantics.md, "Update semantics (runtime)" 4).
//
// It compares raw with oldRaw and scans raw eight bytes at a time
// (scanNumbers; scanNesting as well where raw is long enough to nest
// beyond the bound), in time linear in len(raw), and allocates nothing.
func (c *Checker) Unchanged(raw, oldRaw []byte, trusted bool) bool {
	if !trusted || c == nil || c.whenRoot != nil || !bytes.Equal(raw, oldRaw) {
		return false
	}
	return scanUnchanged(raw, maxUnchangedNesting)
}

// maxUnchangedNesting bounds the nesting of an object Unchanged answers
// for, below the decoder's maxNesting with a margin of a thousand levels
// on the depths the walk counts (one per level, from the root or from a
// value compared whole). Real objects nest a few tens of levels.
const maxUnchangedNesting = maxNesting - 1000

// scanUnchanged reports whether data, known to be valid JSON, is an
// object whose numbers float64 holds and whose arrays and objects nest at
// most limit levels (the object itself at level 1). It may report false
// for such an object, never true for another JSON value. Nesting n levels
// takes 2n bytes, so only data longer than 2*limit is scanned for its
// nesting. On bytes that are not JSON it may answer either way, in time
// linear in len(data), but never reads past the data.
func scanUnchanged(data []byte, limit int) bool {
	pos := 0
	for pos < len(data) && isSpace(data[pos]) {
		pos++
	}
	if pos >= len(data) || data[pos] != '{' {
		return false
	}
	return scanNumbers(data) && (len(data) <= 2*limit || scanNesting(data, limit))
}

// Masks of the bytes of a word read little-endian: the low bit, the low
// seven bits, the high bit and the high nibble of each byte, the bit that
// tells a capital letter from a small one, and a word of quotes.
const (
	lowBits   = 0x0101010101010101
	low7Bits  = 0x7f7f7f7f7f7f7f7f
	highBits  = 0x8080808080808080
	hiNibbles = 0xf0f0f0f0f0f0f0f0
	caseBit   = 0x2020202020202020
	quoteWord = lowBits * '"'
)

// equalBytes returns a mask of the bytes of x equal to those of y: the
// high bit of each equal byte is set, and no other bit. Unlike notPlain's
// tests it is exact in every byte (no carry crosses a byte).
func equalBytes(x, y uint64) uint64 {
	z := x ^ y
	return ^((z&low7Bits + low7Bits) | z | low7Bits)
}

// digitBytes returns a mask of the bytes of x that are ASCII digits, as
// equalBytes does: a high nibble of 3 and a low one below 10.
func digitBytes(x uint64) uint64 {
	// A low nibble of 10 or more carries into bit 4 when 6 is added.
	tens := ((x&^hiNibbles + lowBits*6) & (lowBits * 0x10)) << 3
	return equalBytes(x&hiNibbles, lowBits*'0') &^ tens
}

// Bounds of scanNumbers, past which it reports false: the bytes it reads
// back from an e after a digit, and the whole words of digits in a row (a
// number without an exponent that float64 cannot hold has more than 308
// digits before its point, 37 whole words at least).
const (
	maxNumberBack = 32
	maxDigitWords = 32
)

// scanNumbers reports whether the numbers of data, known to be valid
// JSON, are held by float64 (inRange), without knowing which bytes are in
// strings: it reports false where a number may have an exponent or more
// than maxDigitWords whole words of digits, true where none can. An
// exponent is an e or E after a digit; where one is not in a number, it
// is in a string, which the bytes before it show: in JSON a number
// starts after a colon, a comma, an opening bracket or white space, so
// an e after digits read back from another byte (a letter or a quote:
// a uid's "3e5e") is in a string. It may report false for JSON whose
// numbers float64 holds (an exponent in range, or a string such as
// "a 1e5"), never true for other JSON. It reads each byte at most
// maxNumberBack+1 times.
func scanNumbers(data []byte) bool {
	var prevDigit uint64 // the high bit of its lowest byte set where the last word ended in a digit
	digitWords := 0      // the last words of digits
	for pos := 0; pos < len(data); pos += 8 {
		var x uint64
		if pos+8 <= len(data) {
			x = binary.LittleEndian.Uint64(data[pos:])
		} else {
			x = tailWord(data[pos:])
		}
		digits := digitBytes(x)
		if digits == highBits {
			if digitWords++; digitWords > maxDigitWords {
				return false
			}
		} else {
			digitWords = 0
		}
		exps := equalBytes(x|caseBit, lowBits*'e') & (digits<<8 | prevDigit)
		prevDigit = digits >> 56
		for ; exps != 0; exps &= exps - 1 {
			if !inString(data, pos+bits.TrailingZeros64(exps)>>3) {
				return false
			}
		}
	}
	return true
}

// tailWord returns the last bytes of the data, fewer than eight, as a
// word read little-endian, padded with white space.
func tailWord(b []byte) uint64 {
	tail := [8]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}
	copy(tail[:], b)
	return binary.LittleEndian.Uint64(tail[:])
}

// inString reports whether the e at data[i], after a digit, is in a
// string of data, known to be valid JSON: the bytes of a number read back
// from it end at a byte that cannot stand before a number. It reports
// false where it cannot tell, after maxNumberBack bytes.
func inString(data []byte, i int) bool {
	for j := i - 1; j >= 0 && j >= i-maxNumberBack; j-- {
		if !numberByte[data[j]] {
			switch data[j] {
			case ':', ',', '[', ' ', '\t', '\n', '\r':
				return false
			}
			return true
		}
	}
	return false
}

// scanNesting reports whether the arrays and objects of data, known to be
// valid JSON, nest at most limit levels, reading eight bytes at a time:
// the bytes in strings are those after an odd number of quotes, counted
// by one multiplication, and the brackets outside them are counted. It
// may report false where they do not nest so deep (it counts the opening
// brackets of a word before its closing ones), never true where they
// nest deeper. Words with a backslash go byte by byte (nestingBytes).
func scanNesting(data []byte, limit int) bool {
	// inString is lowBits after a word that ends in a string, else 0;
	// escaped: the word starts with an escaped byte.
	var inString uint64
	escaped := false
	depth := 0
	for pos := 0; pos < len(data); pos += 8 {
		tail := [8]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}
		w := tail[:]
		if pos+8 <= len(data) {
			w = data[pos : pos+8]
		} else {
			copy(tail[:], data[pos:]) // padded with white space
		}
		x := binary.LittleEndian.Uint64(w)
		if escaped || equalBytes(x, lowBits*'\\') != 0 {
			var deepest int
			in := inString != 0
			if depth, deepest, in, escaped = nestingBytes(w, depth, in, escaped); deepest > limit {
				return false
			}
			inString = 0
			if in {
				inString = lowBits
			}
			continue
		}
		quotes := equalBytes(x, quoteWord) >> 7
		// Byte i of quotes*lowBits counts the quotes of bytes 0..i; its
		// low bit is their parity. A byte is in a string (or is its
		// opening quote) where it differs from the state before the word.
		inside := (quotes*lowBits)&lowBits ^ inString
		outside := (lowBits &^ inside) &^ quotes
		inString = (inside >> 56) * lowBits
		folded := x | caseBit // '[' to '{', ']' to '}'
		if depth += bits.OnesCount64(equalBytes(folded, lowBits*'{') >> 7 & outside); depth > limit {
			return false
		}
		depth -= bits.OnesCount64(equalBytes(folded, lowBits*'}') >> 7 & outside)
	}
	return true
}

// nestingBytes is scanNesting on the bytes of w one at a time, from the
// nesting level depth, in a string or not, after a backslash or not; it
// returns the state after them and the deepest level they reach.
func nestingBytes(w []byte, depth int, inString, escaped bool) (after, deepest int, in, esc bool) {
	deepest = depth
	for _, c := range w {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return depth, deepest, inString, escaped
}

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
