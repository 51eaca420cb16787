package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// TestValidatorsCLI runs the validators generator through the CLI: its
// output is the committed code of the test API, and a run in which it fails
// writes nothing, not even the output of the generators that succeeded.
func TestValidatorsCLI(t *testing.T) {
	t.Run("writes the test API's validators", func(t *testing.T) {
		out := outDir(t)
		var stdout, stderr bytes.Buffer
		code := run([]string{"validators", "paths=../../testdata/apis/validators/...", "output:validators:dir=" + out}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr.String())
		}
		got, err := os.ReadFile(filepath.Join(out, "zz_generated.immutable.go"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("../../testdata/apis/validators/v1/zz_generated.immutable.go")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the CLI's output differs from the committed testdata/apis/validators/v1/zz_generated.immutable.go:\n%s", golden.Diff(string(want), string(got)))
		}
	})
	t.Run("a refused value fails the whole run", func(t *testing.T) {
		out := outDir(t)
		var stdout, stderr bytes.Buffer
		code := run([]string{"crd:immutability=extensions", "validators", "paths=../../testdata/apis/validators-refused/...", "output:crd:dir=" + out, "output:validators:dir=" + out}, &stdout, &stderr)
		if code != 1 {
			t.Errorf("exit %d, want 1\n%s", code, stderr.String())
		}
		if files := readDir(t, out); len(files) != 0 {
			t.Errorf("a failing run wrote %d files", len(files))
		}
		if !strings.Contains(stderr.String(), "the typed validators cannot check spec.pairs") || !strings.Contains(stderr.String(), "no file was written") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	})
}
