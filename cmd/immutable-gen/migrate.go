package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/migrate"
)

const migrateSynopsis = "usage: immutable-gen migrate [crd[:OPTIONS]] paths=PATTERN[;PATTERN...] [--diff] [--accept-refusals] [--k8s-immutable=keep|immutable] [--validators=auto|yes|no]"

const migrateUsage = migrateSynopsis + `

Rewrites the immutability rules the Go sources write by hand
(+kubebuilder:validation:XValidation rules such as "self == oldSelf") into
+immutable markers, in place, and proves the rewrite first: it generates the
CRDs before and after in memory and runs random updates of every migrated
field through the API server's validator (with ratcheting) under both.
Rules it cannot translate exactly stay as written, each with the reason.
docs/guide.md, "Migrating", lists the shapes.

  crd[:OPTIONS]           the crd generator's options, as for generation
                          (crd:allowDangerousTypes=true, …)
  paths=PATTERN           the packages, as controller-gen takes them
  --diff                  print the unified diff on standard output and
                          write nothing
  --accept-refusals       write even when updates the original allowed are
                          refused after the migration (never when one it
                          refused is allowed)
  --k8s-immutable=MODE    keep (default): leave +k8s:immutable as it is;
                          immutable: turn it into +immutable, which
                          immutable-gen compiles it as
  --validators=MODE       whether the packages use immutable-gen's typed
                          validators, which refuse +immutable:when: auto
                          (default: a package of paths= holds
                          zz_generated.immutable.go), yes or no. Where
                          they are used, conditional rules stay as written
  --updates=N             random updates per CRD version (default 1000)
  --seed=N                seed of the updates (default 1)

The report goes to standard error. Files are written all or nothing.

Exit status: 0 every verdict that differs closes a hole (the original
allowed a change of a field its own rules call immutable); 1 some
difference is a new refusal or a new acceptance (nothing is written, except
new refusals with --accept-refusals); 2 unusable input (packages that do
not load, sources the crd generator refuses, a CRD the API server refuses).
`

// runMigrate implements "immutable-gen migrate" and returns the exit status.
func runMigrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	diff := fs.Bool("diff", false, "")
	accept := fs.Bool("accept-refusals", false, "")
	k8s := fs.String("k8s-immutable", migrate.K8sImmutableKeep, "")
	validators := fs.String("validators", migrate.ValidatorsAuto, "")
	updates := fs.Int("updates", 1000, "")
	seed := fs.Uint64("seed", 1, "")
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "immutable-gen migrate: "+format+"\n", args...)
		return 2
	}
	var opts []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, migrateUsage)
				return 0
			}
			fmt.Fprintln(stderr, migrateSynopsis)
			return fail("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		opts = append(opts, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	o := migrate.Options{K8sImmutable: *k8s, Validators: *validators, Updates: *updates, Seed: *seed}
	for _, a := range opts {
		switch {
		case strings.HasPrefix(a, "paths="):
			for _, p := range strings.Split(strings.Trim(strings.TrimPrefix(a, "paths="), `"`), ";") {
				if p != "" {
					o.Paths = append(o.Paths, p)
				}
			}
		case a == "crd" || strings.HasPrefix(a, "crd:"):
			g, err := parseCRDOptions(a)
			if err != nil {
				return fail("%s: %v", a, err)
			}
			o.CRD = g
		default:
			fmt.Fprintln(stderr, migrateSynopsis)
			return fail("unknown argument %q", a)
		}
	}
	if len(o.Paths) == 0 {
		fmt.Fprintln(stderr, migrateSynopsis)
		return fail("no paths= given")
	}
	res, err := migrate.Run(o)
	if err != nil {
		return fail("%v", err)
	}
	cwd, _ := os.Getwd()
	if *diff {
		io.WriteString(stdout, res.Diff)
	}
	io.WriteString(stderr, res.Report(cwd))
	switch {
	case *diff || len(res.Files) == 0:
	case res.Writable(*accept):
		if err := res.Write(); err != nil {
			return fail("writing: %v", err)
		}
		fmt.Fprintf(stderr, "wrote %d file(s)\n", len(res.Files))
	default:
		fmt.Fprintln(stderr, "no file was written")
	}
	if !res.Proven() {
		return 1
	}
	return 0
}

// parseCRDOptions parses crd[:OPTIONS] as generation does.
func parseCRDOptions(arg string) (crdgen.Generator, error) {
	reg, err := optionsRegistry()
	if err != nil {
		return crdgen.Generator{}, err
	}
	def := reg.Lookup("+"+arg, ctmarkers.DescribesPackage)
	if def == nil {
		return crdgen.Generator{}, fmt.Errorf("unknown option")
	}
	v, err := def.Parse("+" + arg)
	if err != nil {
		return crdgen.Generator{}, err
	}
	g, ok := v.(crdgen.Generator)
	if !ok {
		return crdgen.Generator{}, fmt.Errorf("not the crd generator")
	}
	return g, nil
}
