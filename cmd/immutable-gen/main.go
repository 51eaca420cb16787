// Command immutable-gen compiles +immutable and +immutable=keys markers on Go
// API types into Kubernetes schemas, and checks updates against them.
//
// It takes controller-gen's arguments and runs controller-gen's generators
// (crd, rbac, webhook, object, schemapatch, applyconfiguration); its crd
// generator adds immutability and writes output only when the whole run
// succeeded. Subcommands:
//
//	immutable-gen crd[:immutability=cel|extensions] paths=./... output:crd:dir=DIR
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
	return runGenerate(args, stdout, stderr)
}
