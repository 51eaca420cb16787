//go:build !immutablegen_full

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/immutable-gen/immutable-gen/fullbuild"
)

// fullBuildForTests builds the full build of this package once for the
// tests of the light build and names it in $IMMUTABLE_GEN_FULL (unless it
// is set already): lint, check-update and the CRD validation of CRDs with
// markers run in it as they do for a user, as a child process.
func fullBuildForTests() (cleanup func(), err error) {
	if os.Getenv(fullbuild.EnvVar) != "" {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "immutable-gen-full-")
	if err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, "immutable-gen")
	cmd := exec.Command("go", "build", "-tags", fullbuild.Tag, "-o", exe, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("building the full build: %v\n%s", err, out)
	}
	os.Setenv(fullbuild.EnvVar, exe)
	return func() { os.RemoveAll(dir) }, nil
}

// TestDefaultBuildAnywhere: the contract's build (go build
// ./cmd/immutable-gen), run outside any module with no full build named and
// an empty cache, runs lint and check-update with the same exit status and
// output as the full build: it builds its full build from the tree it was
// built in, once (the second run finds it cached), and says nothing of it
// when stderr is not a terminal.
func TestDefaultBuildAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command twice")
	}
	root := moduleRoot(t)
	bin := filepath.Join(t.TempDir(), "immutable-gen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cacheDir := t.TempDir()
	cases := [][]string{
		{"lint", filepath.Join(root, "testdata/lint/defects")},
		{"check-update", "--schema", filepath.Join(root, "testdata/golden/crd/once"),
			"--old", filepath.Join(root, "testdata/check-update/once/old"), "--new", filepath.Join(root, "testdata/check-update/once/new")},
	}
	for i, args := range cases {
		var wantOut, wantErr bytes.Buffer
		wantCode := run(args, &wantOut, &wantErr)
		for round := range 2 {
			cmd := exec.Command(bin, args...)
			cmd.Dir = t.TempDir() // not a module
			cmd.Env = append(os.Environ(), fullbuild.EnvVar+"=", "IMMUTABLE_GEN_CACHE="+cacheDir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != wantCode || stdout.String() != wantOut.String() || stderr.String() != wantErr.String() {
				t.Errorf("%s (run %d): exit %d, want %d\n--- stdout\n%s--- want\n%s--- stderr\n%s--- want\n%s",
					args[0], i*2+round+1, code, wantCode, &stdout, &wantOut, &stderr, &wantErr)
			}
		}
	}
	builds, _ := filepath.Glob(filepath.Join(cacheDir, "full", "*", "immutable-gen*"))
	if len(builds) != 1 {
		t.Errorf("%d full builds in the cache, want 1: %v", len(builds), builds)
	}
}
