// Package proofsize says how large the root module's long proofs run. The
// README's `go test ./...` runs a proof that scales at a sample size: every
// case of every kind still runs and asserts, on fewer random updates,
// seeds or cases. A proof whose every run costs more than the quick
// start's budget (a whole migration of the worked example, say) is marked
// with Long and runs only in CI's proofs step (`make test-proofs`,
// .ci/run), which sets IMMUTABLE_GEN_PROOFS=full and runs everything at
// full size; docs/testing.md lists which tests scale, which are long, and
// how.
//
// The variable is read with os.Getenv, which go test's cache keys a
// package's result on, so a sample result is never reused for a full run.
package proofsize

import (
	"fmt"
	"os"
	"testing"
)

// Env is the environment variable that asks for the full-size proofs:
// IMMUTABLE_GEN_PROOFS=full.
const Env = "IMMUTABLE_GEN_PROOFS"

// Long marks t as a long proof: it runs only at full size, in CI's proofs
// step, and the default run skips it with a message that names the step
// and says what it costs. A value of Env other than "full" fails t.
func Long(t testing.TB, cost string) {
	t.Helper()
	full, err := envFull(os.Getenv(Env))
	if err != nil {
		t.Fatalf("proofsize: %v", err)
	}
	if !full {
		t.Skipf("a long proof (%s): CI's proofs step runs it, as `make test-proofs` does (%s=full)", cost, Env)
	}
}

// Of returns full when the full-size proofs run, else sample, and logs
// which on t. A sample must be at least 1 and at most full.
func Of(t testing.TB, what string, full, sample int) int {
	t.Helper()
	full2, err := size(os.Getenv(Env), full, sample)
	if err != nil {
		t.Fatalf("proofsize: %s: %v", what, err)
	}
	if full2 {
		t.Logf("%s: %d (full size)", what, full)
		return full
	}
	t.Logf("%s: %d of %d (%s=full for all)", what, sample, full, Env)
	return sample
}

// OrFlag returns set when a test flag set it (above 0: a run asked for
// that size, e.g. -lint.soundcrds=5000), else Of(t, what, full, sample).
// Such flags default to 0.
func OrFlag(t testing.TB, what string, set, full, sample int) int {
	t.Helper()
	if set > 0 {
		t.Logf("%s: %d (set by a flag)", what, set)
		return set
	}
	return Of(t, what, full, sample)
}

// Pick returns all when the full-size proofs run, else the items whose
// index keep lists (every kind the test covers must be among them), and
// logs which on t.
func Pick[T any](t testing.TB, what string, all []T, keep ...int) []T {
	t.Helper()
	n := Of(t, what, len(all), len(keep))
	if n == len(all) {
		return all
	}
	out := make([]T, 0, len(keep))
	seen := map[int]bool{}
	for _, i := range keep {
		if i < 0 || i >= len(all) || seen[i] {
			t.Fatalf("proofsize: %s: index %d out of range or repeated", what, i)
		}
		seen[i] = true
		out = append(out, all[i])
	}
	return out
}

// size decides from the value of Env whether the full size runs, and
// refuses a value other than "" and "full" and a sample outside [1, full].
func size(env string, full, sample int) (bool, error) {
	f, err := envFull(env)
	if err != nil {
		return false, err
	}
	if sample < 1 || sample > full {
		return false, fmt.Errorf("the sample (%d) must be in [1, %d]", sample, full)
	}
	return f, nil
}

// envFull reports whether env, the value of Env, asks for the full size;
// a value other than "full" and "" is an error, so that a typo does not
// silently run the sample.
func envFull(env string) (bool, error) {
	if env != "" && env != "full" {
		return false, fmt.Errorf("%s=%q: the only value is full", Env, env)
	}
	return env == "full", nil
}
