package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/applyconfiguration"
	"sigs.k8s.io/controller-tools/pkg/deepcopy"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/genall/help"
	prettyhelp "sigs.k8s.io/controller-tools/pkg/genall/help/pretty"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/controller-tools/pkg/rbac"
	"sigs.k8s.io/controller-tools/pkg/schemapatcher"
	"sigs.k8s.io/controller-tools/pkg/webhook"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/crdmodel"
	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/openapi"
	"github.com/immutable-gen/immutable-gen/output"
	"github.com/immutable-gen/immutable-gen/validators"
)

// generators are controller-gen's, with crd replaced by immutable-gen's.
func generators() map[string]genall.Generator {
	return map[string]genall.Generator{
		"crd":                crdgen.Generator{},
		"rbac":               rbac.Generator{},
		"object":             deepcopy.Generator{},
		"applyconfiguration": applyconfiguration.Generator{},
		"webhook":            webhook.Generator{},
		"schemapatch":        schemapatcher.Generator{},
		"openapi":            openapi.Generator{},
		"validators":         validators.Generator{},
	}
}

var outputRules = map[string]genall.OutputRule{
	"dir":       genall.OutputToDirectory(""),
	"none":      genall.OutputToNothing,
	"stdout":    genall.OutputToStdout,
	"artifacts": genall.OutputArtifacts{},
}

// optionsRegistry builds the registry controller-gen parses its arguments
// with: one marker per generator, per output rule, and per generator/rule pair.
func optionsRegistry() (*ctmarkers.Registry, error) {
	reg := &ctmarkers.Registry{}
	add := func(name string, out any) error {
		def, err := ctmarkers.MakeDefinition(name, ctmarkers.DescribesPackage, out)
		if err != nil {
			return err
		}
		if err := reg.Register(def); err != nil {
			return err
		}
		if h, ok := out.(genall.HasHelp); ok {
			if text := h.Help(); text != nil {
				reg.AddHelp(def, text)
			}
		}
		return nil
	}
	for genName, gen := range generators() {
		if err := add(genName, gen); err != nil {
			return nil, err
		}
		for ruleName, rule := range outputRules {
			if err := add(fmt.Sprintf("output:%s:%s", genName, ruleName), rule); err != nil {
				return nil, err
			}
		}
	}
	for ruleName, rule := range outputRules {
		if err := add("output:"+ruleName, rule); err != nil {
			return nil, err
		}
	}
	return reg, genall.RegisterOptionsMarkers(reg)
}

var errReported = errors.New("reported")

func runGenerate(args []string, stdout, stderr io.Writer) int {
	reg, err := optionsRegistry()
	if err != nil {
		fmt.Fprintln(stderr, "immutable-gen: internal error:", err)
		return 2
	}
	var f generatorFlags
	cmd := &cobra.Command{
		Use:   "immutable-gen",
		Short: "Generate Kubernetes API resources and code, with +immutable compiled in.",
		Long:  overview(),
		Example: `  # CRDs with immutability as CEL rules (the default) or as the KEP extensions
  immutable-gen crd paths=./api/... output:crd:dir=config/crd/bases
  immutable-gen crd:immutability=extensions paths=./api/... output:crd:dir=out

  # In place of controller-gen in a kubebuilder Makefile
  immutable-gen rbac:roleName=manager-role crd webhook paths="./..." output:crd:artifacts:config=config/crd/bases

  # In CI: fail on warnings too, and on CRDs that are not what the markers generate
  immutable-gen crd paths=./api/... output:crd:dir=config/crd/bases --fail-on=warning --check

  # Typed ValidateImmutableUpdate methods (zz_generated.immutable.go) for the kinds
  immutable-gen validators paths=./api/...

  # Check an update against a CRD
  immutable-gen check-update --schema crd.yaml --old old.yaml --new new.yaml`,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, rawOpts []string) error {
			if f.showVersion {
				fmt.Fprintf(stdout, "Version: %s\ncontroller-tools: %s\n", moduleVersion(), crdmodel.ControllerToolsVersion())
				return nil
			}
			if f.helpLevel > 0 {
				return c.Help()
			}
			if f.whichLevel > 0 {
				r, err := genall.RegistryFromOptions(reg, rawOpts)
				if err != nil {
					return err
				}
				return printHelp(stdout, stderr, f.whichLevel, r, help.SortByCategory)
			}
			if f.opts.failOn, err = diag.ParseSeverity(f.failOn); err != nil {
				return fmt.Errorf("--fail-on: %w", err)
			}
			return generate(rawOpts, f.opts, stdout, stderr)
		},
	}
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	f.register(cmd.Flags())
	oldUsage := cmd.UsageFunc()
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		if err := oldUsage(c); err != nil {
			return err
		}
		level := max(f.helpLevel, 1)
		fmt.Fprintf(c.OutOrStderr(), "\n\nOptions\n\n")
		return printHelp(c.OutOrStdout(), c.OutOrStderr(), level, reg, help.SortByOption)
	})
	if err := cmd.Execute(); err != nil {
		if !errors.Is(err, errReported) {
			fmt.Fprintln(stderr, "Error:", err)
			fmt.Fprintf(stderr, "run `immutable-gen %s -w` to see all available markers, or `immutable-gen %s -h` for usage\n", strings.Join(args, " "), strings.Join(args, " "))
		}
		return 1
	}
	return 0
}

// generatorFlags are the flags of a generator run (and of its help).
type generatorFlags struct {
	helpLevel, whichLevel int
	showVersion           bool
	failOn                string
	opts                  runOptions
}

// register defines the flags in fs: controller-gen's, then immutable-gen's.
func (f *generatorFlags) register(fs *pflag.FlagSet) {
	fs.CountVarP(&f.whichLevel, "which-markers", "w", "print out all markers available with the requested generators\n(up to -www for the most detailed output, or -wwww for json output)")
	fs.CountVarP(&f.helpLevel, "detailed-help", "h", "print out more detailed help\n(up to -hhh for the most detailed output, or -hhhh for json output)")
	fs.BoolVar(&f.showVersion, "version", false, "show version")
	fs.StringSliceVar(&f.opts.buildTags, "load-build-tags", []string{"ignore_autogenerated"}, "build tags to use when loading Go packages")
	fs.Bool("help", false, "print out usage and a summary of options")
	fs.StringVar(&f.failOn, "fail-on", "error", "the least severity of a finding that fails the run, and nothing is written:\nerror, warning or info")
	fs.BoolVarP(&f.opts.quiet, "quiet", "q", false, "print no info findings and no summary (warnings and errors always print)")
	fs.BoolVar(&f.opts.check, "check", false, "generate in memory, write nothing, list the files whose content differs\nfrom what is on disk, and exit 1 if there are any (make verify)")
}

// runOptions are the flags of a generator run beside controller-gen's
// arguments.
type runOptions struct {
	// buildTags are --load-build-tags.
	buildTags []string
	// failOn is --fail-on: the least severity of a finding that fails the
	// run (nothing is written).
	failOn diag.Severity
	// quiet is -q: no info findings and no summary of a run that succeeds.
	quiet bool
	// check is --check: compare with the files on disk, write nothing.
	check bool
}

// generate runs the generators with all output held in memory, prints
// their findings, each once, sorted, paths relative to the working
// directory, and writes the output only when every generator succeeded
// and no finding reached opts.failOn — or, with opts.check, lists on
// standard output the files whose content differs from it and fails when
// there are any.
func generate(rawOpts []string, opts runOptions, stdout, stderr io.Writer) error {
	reg, err := optionsRegistry()
	if err != nil {
		return err
	}
	tags := fmt.Sprintf("-tags=%s", strings.Join(opts.buildTags, ","))
	rt, err := genall.FromOptionsWithConfig(&packages.Config{BuildFlags: []string{tags}}, reg, rawOpts)
	if err != nil {
		return err
	}
	if len(rt.Generators) == 0 {
		return fmt.Errorf("no generators specified")
	}
	var diags diag.List
	collect := func(d diag.List) { diags = append(diags, d...) }
	for _, gen := range rt.Generators {
		switch g := (*gen).(type) {
		case crdgen.Generator:
			*gen = g.WithReport(collect).WithServer(apiserver.InProcess{})
		case openapi.Generator:
			*gen = g.WithReport(collect)
		case validators.Generator:
			*gen = g.WithReport(collect)
		}
	}
	buf := &output.Buffer{Stdout: stdout}
	failed := false
	for _, gen := range rt.Generators {
		ctx := rt.GenerationContext
		ctx.OutputRule = buf.Rule(rt.OutputRules.ForGenerator(gen))
		if _, ok := (*gen).(genall.NeedsTypeChecking); !ok {
			ctx.Checker = nil
		}
		if err := (*gen).Generate(&ctx); err != nil {
			failed = true
			if !errors.Is(err, diag.ErrFindings) { // those are printed below
				fmt.Fprintln(stderr, err)
			}
		}
	}
	// Marker parse errors and the other errors controller-tools records
	// in the packages are findings too.
	pkgDiags, err := packageDiagnostics(rt.Roots)
	if err != nil {
		return err
	}
	diags = relative(append(diags, pkgDiags...)).Sort()
	for _, d := range diags {
		if !opts.quiet || d.Severity > diag.Note {
			fmt.Fprintln(stderr, d)
		}
	}
	summary := "immutable-gen: " + diags.Summary()
	switch {
	case failed || diags.HasErrors():
		if len(diags) == 0 {
			summary = "immutable-gen: not all generators ran successfully"
		}
		fmt.Fprintln(stderr, summary+"; no file was written")
		return errReported
	case diags.AtLeast(opts.failOn) > 0:
		fmt.Fprintf(stderr, "%s; --fail-on=%s: no file was written\n", summary, opts.failOn)
		return errReported
	}
	if opts.check {
		stale, err := buf.Stale()
		if err != nil {
			return err
		}
		for _, f := range stale {
			fmt.Fprintln(stdout, relativePath(f))
		}
		if len(stale) > 0 {
			fmt.Fprintf(stderr, "immutable-gen: --check: %d file(s) differ from what the generators write (listed on standard output); run the command without --check to write them\n", len(stale))
			return errReported
		}
	} else if err := buf.Commit(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if len(diags) > 0 && !opts.quiet {
		fmt.Fprintln(stderr, summary)
	}
	return nil
}

// relative makes the positions of the findings relative to the working
// directory, where they are below it.
func relative(l diag.List) diag.List {
	out := make(diag.List, len(l))
	for i, d := range l {
		d.Pos.Filename = relativePath(d.Pos.Filename)
		out[i] = d
	}
	return out
}

// relativePath is path relative to the working directory when path is
// absolute and below it, else path.
func relativePath(path string) string {
	cwd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return path
}

func printHelp(mainOut, errOut io.Writer, level int, reg *ctmarkers.Registry, sorter help.SortGroup) error {
	info := help.ByCategory(reg, sorter)
	switch level {
	case 4:
		return json.NewEncoder(mainOut).Encode(info)
	case 2, 3:
		for _, cat := range info {
			if cat.Category == "" {
				continue
			}
			if err := prettyhelp.MarkersDetails(level == 3, cat.Category, cat.Markers).Write(errOut); err != nil {
				return err
			}
		}
	default:
		for _, cat := range info {
			if cat.Category == "" {
				continue
			}
			if err := prettyhelp.MarkersSummary(cat.Category, cat.Markers).Write(errOut); err != nil {
				return err
			}
		}
	}
	return nil
}
