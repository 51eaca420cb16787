// Command immutable-gen compiles +immutable and +immutable=keys markers on Go
// API types into Kubernetes schemas, and checks updates against them.
//
// It takes controller-gen's arguments and runs controller-gen's generators
// (crd, rbac, webhook, object, schemapatch, applyconfiguration), plus
// openapi and validators (typed ValidateImmutableUpdate methods); its crd
// generator adds immutability and writes output only when the whole run
// succeeded. Subcommands:
//
//	immutable-gen crd[:immutability=cel|extensions] paths=./... output:crd:dir=DIR
//	immutable-gen check-update --schema CRD_FILE_OR_DIR [--old FILE_OR_DIR] --new FILE_OR_DIR [-o text|json]
//	immutable-gen lint [--format=text|json] [--fail-on=error|warning|info] FILE_OR_DIR...
//	immutable-gen help diagnostics
//
// The command has two builds of this one package. The default (light)
// build is what controller-gen is, plus the immutability compiler: it does
// not link the API server's code that lint, check-update and the CRD
// validation of CRDs with markers run (it would cost its start-up memory
// on every run; BENCHMARKS.md, "Two builds"). Those run in the full build,
// `go build -tags immutablegen_full`, which the light build finds or builds
// once and runs as a child process (package fullbuild).
package main

import (
	"io"
	"os"

	"github.com/immutable-gen/immutable-gen/fullbuild"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "check-update", "lint", fullbuild.ServeCommand:
			return runFull(args, stdout, stderr)
		case "help":
			if len(args) == 2 && args[1] == "diagnostics" {
				return helpDiagnostics(stdout)
			}
		}
	}
	return runGenerate(args, stdout, stderr)
}
