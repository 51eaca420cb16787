//go:build !immutablegen_full

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

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
