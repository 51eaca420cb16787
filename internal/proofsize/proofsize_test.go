package proofsize

import (
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		name         string
		env          string
		full, sample int
		want         int
	}{
		{"default runs the sample", "", 300, 20, 20},
		{"full runs the full size", "full", 300, 20, 300},
		{"a sample as large as the full size", "", 5, 5, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(Env, c.env)
			if got := Of(t, "updates", c.full, c.sample); got != c.want {
				t.Errorf("Of(%d, %d) = %d, want %d", c.full, c.sample, got, c.want)
			}
		})
	}
}

func TestOrFlag(t *testing.T) {
	for _, c := range []struct {
		name string
		env  string
		set  int
		want int
	}{
		{"a flag's size wins over the sample", "", 7, 7},
		{"a flag's size wins over the full size", "full", 7, 7},
		{"unset flag: the sample", "", 0, 20},
		{"unset flag: the full size", "full", 0, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(Env, c.env)
			if got := OrFlag(t, "updates", c.set, 300, 20); got != c.want {
				t.Errorf("OrFlag(%d) = %d, want %d", c.set, got, c.want)
			}
		})
	}
}

func TestPick(t *testing.T) {
	all := []string{"a", "b", "c", "d"}
	for _, c := range []struct {
		name string
		env  string
		keep []int
		want []string
	}{
		{"default keeps the listed ones in their order", "", []int{3, 0}, []string{"d", "a"}},
		{"full keeps all", "full", []int{3, 0}, all},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(Env, c.env)
			if got := Pick(t, "cases", all, c.keep...); !slices.Equal(got, c.want) {
				t.Errorf("Pick = %v, want %v", got, c.want)
			}
		})
	}
}

func TestSize(t *testing.T) {
	for _, c := range []struct {
		name         string
		env          string
		full, sample int
		want         bool
		err          bool
	}{
		{"unset: the sample", "", 10, 2, false, false},
		{"full", "full", 10, 2, true, false},
		{"a typo is refused, not taken as the sample", "ful", 10, 2, false, true},
		{"another value is refused", "1", 10, 2, false, true},
		{"an empty sample is refused", "", 10, 0, false, true},
		{"a sample larger than the full size is refused", "", 10, 11, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := size(c.env, c.full, c.sample)
			if (err != nil) != c.err || got != c.want {
				t.Errorf("size(%q, %d, %d) = %v, %v; want %v, error %v", c.env, c.full, c.sample, got, err, c.want, c.err)
			}
		})
	}
}

func TestLong(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     string
		skipped bool
	}{
		{"unset: skipped, CI runs it", "", true},
		{"full: runs", "full", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(Env, c.env)
			ran := false
			var inner *testing.T
			t.Run("proof", func(t *testing.T) {
				inner = t
				Long(t, "a test of Long")
				ran = true
			})
			if inner.Skipped() != c.skipped || ran == c.skipped {
				t.Errorf("%s=%q: skipped %v, ran on %v; want skipped %v", Env, c.env, inner.Skipped(), ran, c.skipped)
			}
		})
	}
}
