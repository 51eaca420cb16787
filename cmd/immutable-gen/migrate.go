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
+immutable markers, in place, and proves each rewrite first: it generates
the CRDs before and after in memory and runs, for every migrated field, the
updates its rules and the schema name (the field removed and set later,
lists reordered, keys added and removed, optional ancestors removed and
added back, conditions true and false, values at their bounds), then random
ones, through the API server's validator (with ratcheting) under both. A
rewrite with a difference that closes no hole stays as written, with the
reason, and the others are written. Rules it cannot translate exactly stay
as written too. docs/guide.md, "Migrating", lists the shapes.

  crd[:OPTIONS]           the crd generator's options, as for generation
                          (crd:allowDangerousTypes=true, …)
  paths=PATTERN           the packages, as controller-gen takes them
  --diff                  print the unified diff on standard output and
                          write nothing
  --accept-refusals       keep the rewrites whose only differences are
                          updates the original allowed that are refused
                          after (never one that allows an update the
                          original refused)
  --k8s-immutable=MODE    keep (default): leave +k8s:immutable as it is;
                          immutable: turn it into +immutable, which
                          immutable-gen compiles it as
  --validators=MODE       whether the packages use immutable-gen's typed
                          validators, which refuse +immutable:when: auto
                          (default: a package of paths= holds
                          zz_generated.immutable.go), yes or no. Where
                          they are used, conditional rules stay as written
  --updates=N             random updates per CRD version, after the
                          targeted ones (default 1000)
  --seed=N                seed of the random updates (default 1); the
                          targeted updates, which decide what is
                          written, do not depend on it

The report goes to standard error. Files are written all or nothing.

Exit status: 0 every rewrite written is proven (every difference closes a
hole: the original allowed a change of a field its own rules call
immutable); the rules left are listed with their reasons; 1 rewrites with
new refusals were kept (--accept-refusals); 2 unusable input (packages
that do not load, sources the crd generator refuses, a CRD the API server
refuses).
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
	o := migrate.Options{K8sImmutable: *k8s, Validators: *validators, Updates: *updates, Seed: *seed, AcceptRefusals: *accept}
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
