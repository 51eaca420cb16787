package engine

import (
	"math/bits"
	"math/rand"
	"testing"
)

// TestPlainWord: the eight-byte test agrees with the byte table on every
// byte value in every position, among plain and non-plain neighbours.
func TestPlainWord(t *testing.T) {
	for _, fill := range []byte{'a', ' ', '~', 0x7f} {
		for pos := 0; pos < 8; pos++ {
			for c := 0; c < 256; c++ {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(c)
				var x uint64
				for i := 7; i >= 0; i-- {
					x = x<<8 | uint64(b[i])
				}
				if got, want := plainWord(x), plainByte[c] && plainByte[fill]; got != want {
					t.Fatalf("plainWord(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}

// TestNotPlain: the lowest byte notPlain marks is the first byte that is
// not plain, on words mixing plain bytes with every kind of other byte
// (quote, backslash, control characters, bytes above 0x7f, and the plain
// bytes next to them), so that the borrows of the byte tests are
// exercised.
func TestNotPlain(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	kinds := []byte{'a', ' ', '!', '#', '[', ']', '~', 0x7f, '"', '\\', 0, 0x1f, 0x01, '\n', 0x80, 0xff, 0xc3}
	for i := 0; i < 200000; i++ {
		var b [8]byte
		for j := range b {
			if r.Intn(3) == 0 {
				b[j] = byte(r.Intn(256))
			} else {
				b[j] = kinds[r.Intn(len(kinds))]
			}
		}
		var x uint64
		for j := 7; j >= 0; j-- {
			x = x<<8 | uint64(b[j])
		}
		first := 8
		for j, c := range b {
			if !plainByte[c] {
				first = j
				break
			}
		}
		m := notPlain(x)
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != first {
			t.Fatalf("notPlain(%q) marks byte %d first, want %d", b, got, first)
		}
	}
}

// randomJSON writes a random JSON value: few keys, so that objects often
// repeat one (the last wins), keys that decode alike ("a", "\u0061", two
// invalid UTF-8 bytes), numbers spelled several ways.
func randomJSON(r *rand.Rand, b []byte, depth int) []byte {
	k := r.Intn(9)
	if depth > 3 {
		k = r.Intn(5)
	}
	switch k {
	case 0:
		return append(b, "null"...)
	case 1:
		return append(b, []string{"true", "false"}[r.Intn(2)]...)
	case 2:
		return append(b, []string{`"a"`, `"\u0061"`, `"b"`, "\"\xff\"", "\"\xfe\"", `""`}[r.Intn(6)]...)
	case 3, 4:
		return append(b, []string{"1", "1.0", "10e-1", "2", "-0", "0", "0.5", "5e-1", "1e400"[:3]}[r.Intn(9)]...)
	case 5, 6:
		b = append(b, '{')
		for i := r.Intn(4); i > 0; i-- {
			b = append(b, []string{`"a"`, `"\u0061"`, `"b"`, "\"\xff\"", "\"\xfe\""}[r.Intn(5)]...)
			b = append(b, ':')
			b = randomJSON(r, b, depth+1)
			if i > 1 {
				b = append(b, ',')
			}
		}
		return append(b, '}')
	}
	b = append(b, '[')
	for i := r.Intn(4); i > 0; i-- {
		b = randomJSON(r, b, depth+1)
		if i > 1 {
			b = append(b, ',')
		}
	}
	return append(b, ']')
}

// TestCompareText: compareText's same and differ are eqPlain's verdict on
// the two values decoded in full.
func TestCompareText(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	counts := map[verdict]int{}
	for i := 0; i < 20000; i++ {
		a := randomJSON(r, nil, 0)
		b := randomJSON(r, nil, 0)
		if r.Intn(3) == 0 {
			b = a
		}
		da := decoder{data: a}
		va, err1 := da.value(nil, fullMode, 1, nil)
		db := decoder{data: b}
		vb, err2 := db.value(nil, fullMode, 1, nil)
		if err1 != nil || err2 != nil || da.pos != len(a) || db.pos != len(b) {
			t.Fatalf("generated invalid JSON: %q %v, %q %v", a, err1, b, err2)
		}
		got := compareText(va, &rawValue{data: b, depth: 1})
		counts[got]++
		if got != unsure && (got == same) != eqPlain(va, vb, 0) {
			t.Fatalf("compareText(%q, %q) = %v, eqPlain says %v", a, b, got, eqPlain(va, vb, 0))
		}
	}
	if counts[same] < 1000 || counts[differ] < 1000 || counts[unsure] == 0 {
		t.Errorf("verdicts %v: the test says little", counts)
	}
}
