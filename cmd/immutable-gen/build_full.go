//go:build immutablegen_full

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/immutable-gen/immutable-gen/fullbuild"
	"github.com/immutable-gen/immutable-gen/validation"
	"github.com/immutable-gen/immutable-gen/validation/apiserver"
)

// runFull runs a subcommand of the full build in this process.
func runFull(args []string, stdout, stderr io.Writer) int {
	switch args[0] {
	case "check-update":
		return runCheckUpdate(args[1:], stdout, stderr)
	case "lint":
		return runLint(args[1:], stdout, stderr)
	case fullbuild.ServeCommand:
		if err := fullbuild.ServeCRDValidation(os.Stdin, stdout, apiserver.InProcess{}); err != nil {
			fmt.Fprintln(stderr, "immutable-gen:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "immutable-gen: no subcommand %q\n", args[0])
	return 2
}

// crdServer is the API server's CRD validation, in this process.
func crdServer(io.Writer) (server validation.Server, closeServer func()) {
	return apiserver.InProcess{}, func() {}
}
