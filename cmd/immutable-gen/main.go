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
//	immutable-gen migrate [crd[:OPTIONS]] paths=./... [--diff] [--accept-refusals] [--k8s-immutable=keep|immutable] [--validators=auto|yes|no]
//	immutable-gen help
//	immutable-gen help diagnostics [ID] [-o text|markdown]
//	immutable-gen help markers [-o text|json|markdown]
//
// `immutable-gen help`, --help and -h list them all (help.go holds the
// list).
//
// One binary runs every command in process: generation with the API
// server's CRD validation of CRDs with markers, lint and check-update. None
// of them needs a Go toolchain at run time except for what controller-gen
// itself needs, go/packages' `go list` to load the packages to generate for.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "check-update":
			return runCheckUpdate(args[1:], stdout, stderr)
		case "lint":
			return runLint(args[1:], stdout, stderr)
		case "migrate":
			return runMigrate(args[1:], stdout, stderr)
		case "help":
			return runHelp(args[1:], stdout, stderr)
		}
	}
	return runGenerate(args, stdout, stderr)
}
