//go:build !immutablegen_full

package main

import (
	"context"
	"io"
	"os"

	"github.com/immutable-gen/immutable-gen/fullbuild"
	"github.com/immutable-gen/immutable-gen/validation"
)

// runFull runs a subcommand of the full build (lint, check-update) in the
// full build, found or built by fullbuild.Locate, with the same arguments
// and standard streams, and returns its exit code.
func runFull(args []string, stdout, stderr io.Writer) int {
	return fullbuild.Run(context.Background(), args, os.Stdin, stdout, stderr)
}

// crdServer is the API server's CRD validation for the CRDs with markers: a
// child process of the full build, started only when a CRD with markers
// needs validating (a run without markers, or with every finding cached,
// starts none). closeServer ends it.
func crdServer(notes io.Writer) (server validation.Server, closeServer func()) {
	v := fullbuild.NewCRDValidator(fullbuild.OnTerminal(notes))
	return v, func() { v.Close() }
}
