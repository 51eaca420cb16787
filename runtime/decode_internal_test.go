package runtime

import "testing"

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
