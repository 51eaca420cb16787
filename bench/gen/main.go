// Command gen measures immutable-gen as a drop-in for controller-gen on a real
// API without immutability markers: Gateway API v1.6.3's packages under
// apis/, loaded from the Go module cache (this nested module requires
// sigs.k8s.io/gateway-api at that version).
//
// It builds controller-gen from the controller-tools release the root module
// pins (v0.23.0, with its version stamped as a release binary has it) and
// immutable-gen from this checkout, checks that all write byte-identical
// CRDs, then runs the commands interleaved, -n rounds, the order alternating
// each round, and reports per run the wall time, the CPU time (user+system)
// and the peak resident memory of the process. The per-run lines are in Go
// benchmark format for benchstat; a summary of medians and ratios follows.
//
// immutable-gen runs twice per round and generator option: with its cache
// off (IMMUTABLE_GEN_CACHE=off: every CRD is validated, as on a first run or
// after every CRD changed) and with a warm cache in a private directory
// (filled by the byte-identity check: the CRDs did not change since the last
// run, the common case of a `make`).
//
//	cd bench/gen && go run . -n 10 | tee /tmp/gen-cli.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl /tmp/gen-cli.txt
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// sample is one run of one command.
type sample struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

func main() {
	rounds := flag.Int("n", 10, "rounds; each runs every command once")
	paths := flag.String("paths", "sigs.k8s.io/gateway-api/apis/...", "the packages to generate CRDs for")
	gens := flag.String("gens", "crd;crd:immutability=extensions", "immutable-gen's generator options to measure, separated by ';'")
	keep := flag.String("bin", "", "directory for the built binaries (default: a temporary one)")
	flag.Parse()
	if err := run(*rounds, *paths, strings.Split(*gens, ";"), *keep, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type command struct {
	name string // benchmark name
	bin  string
	gen  string
	env  []string
}

func run(rounds int, paths string, gens []string, binDir string, stdout, stderr io.Writer) error {
	root, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	if binDir == "" {
		if binDir, err = os.MkdirTemp("", "bench-gen"); err != nil {
			return err
		}
		defer os.RemoveAll(binDir)
	}
	cg, ig, err := build(root, binDir)
	if err != nil {
		return err
	}
	cacheDir, err := os.MkdirTemp("", "bench-gen-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cacheDir)
	cmds := []command{{name: "controller-gen", bin: cg, gen: "crd"}}
	for _, g := range gens {
		cmds = append(cmds,
			command{"immutable-gen " + g + " cache-off", ig, g, []string{"IMMUTABLE_GEN_CACHE=off"}},
			command{"immutable-gen " + g + " cache-warm", ig, g, []string{"IMMUTABLE_GEN_CACHE=" + cacheDir}})
	}

	// The same output, byte for byte, or the comparison means nothing.
	want, err := generate(command{bin: cg, gen: "crd"}, paths)
	if err != nil {
		return err
	}
	if len(want) == 0 {
		return fmt.Errorf("controller-gen generated nothing for %s", paths)
	}
	for _, c := range cmds[1:] {
		got, err := generate(c, paths)
		if err != nil {
			return err
		}
		if err := sameFiles(want, got); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	fmt.Fprintf(stderr, "%d CRDs, identical from all %d commands; %d rounds\n", len(want), len(cmds), rounds)

	fmt.Fprintf(stdout, "goos: linux\ngoarch: %s\npkg: github.com/immutable-gen/immutable-gen/bench/gen\n", runtime.GOARCH)
	samples := make([][]sample, len(cmds))
	for r := range rounds {
		order := make([]int, len(cmds))
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			s, err := measure(cmds[i], paths)
			if err != nil {
				return fmt.Errorf("%s: %w", cmds[i].name, err)
			}
			samples[i] = append(samples[i], s)
			fmt.Fprintf(stdout, "BenchmarkCLI/impl=%s \t1\t%d ns/op\t%d cpu-ns/op\t%d peak-RSS-B/op\n",
				benchName(cmds[i].name), s.wall.Nanoseconds(), s.cpu.Nanoseconds(), s.maxRSS)
		}
	}

	// What each binary costs before it does anything: --version runs the
	// package initializers and exits. immutable-gen links the API server's
	// CRD validation (k8s.io/apiextensions-apiserver, k8s.io/apiserver).
	bins := []command{{name: "controller-gen", bin: cg}, {name: "immutable-gen", bin: ig}}
	baseline := make([][]sample, len(bins))
	for range rounds {
		for i, c := range bins {
			s, err := measureCmd(exec.Command(c.bin, "--version"))
			if err != nil {
				return fmt.Errorf("%s --version: %w", c.name, err)
			}
			baseline[i] = append(baseline[i], s)
			fmt.Fprintf(stdout, "BenchmarkVersion/impl=%s \t1\t%d ns/op\t%d cpu-ns/op\t%d peak-RSS-B/op\n",
				c.name, s.wall.Nanoseconds(), s.cpu.Nanoseconds(), s.maxRSS)
		}
	}

	fmt.Fprintf(stderr, "\nmedians over %d interleaved rounds (ratio to controller-gen):\n", rounds)
	summary(stderr, cmds, samples)
	fmt.Fprintf(stderr, "\n--version (start-up alone):\n")
	summary(stderr, bins, baseline)
	return nil
}

// summary prints each command's medians and their ratio to the first's.
func summary(w io.Writer, cmds []command, samples [][]sample) {
	base := medians(samples[0])
	for i, c := range cmds {
		m := medians(samples[i])
		fmt.Fprintf(w, "%-58s wall %6.2fs (%.2f×)  cpu %6.2fs (%.2f×)  peak RSS %4d MB (%.2f×)\n", c.name,
			m.wall.Seconds(), m.wall.Seconds()/base.wall.Seconds(),
			m.cpu.Seconds(), m.cpu.Seconds()/base.cpu.Seconds(),
			m.maxRSS>>20, float64(m.maxRSS)/float64(base.maxRSS))
	}
}

// build builds controller-gen and immutable-gen from the root module, so
// that both use the dependency versions the project pins.
func build(root, dir string) (cg, ig string, err error) {
	cg, ig = filepath.Join(dir, "controller-gen"), filepath.Join(dir, "immutable-gen")
	out, err := goCmd(root, "list", "-m", "-f", "{{.Version}}", "sigs.k8s.io/controller-tools")
	if err != nil {
		return "", "", err
	}
	version := strings.TrimSpace(out)
	if _, err := goCmd(root, "build", "-ldflags=-X=sigs.k8s.io/controller-tools/pkg/version.version="+version, "-o", cg, "sigs.k8s.io/controller-tools/cmd/controller-gen"); err != nil {
		return "", "", err
	}
	if _, err := goCmd(root, "build", "-o", ig, "./cmd/immutable-gen"); err != nil {
		return "", "", err
	}
	return cg, ig, nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// generate runs one command and returns the files it wrote.
func generate(c command, paths string) (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "bench-gen-out")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := c.cmd(paths, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(c.bin), c.gen, err, out)
	}
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = data
	}
	return files, nil
}

func sameFiles(want, got map[string][]byte) error {
	var names []string
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !bytes.Equal(want[name], got[name]) {
			return fmt.Errorf("%s differs from controller-gen's", name)
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("wrote %d files, controller-gen %d", len(got), len(want))
	}
	return nil
}

// cmd is the command writing its CRDs into dir.
func (c command) cmd(paths, dir string) *exec.Cmd {
	cmd := exec.Command(c.bin, c.gen, "paths="+paths, "output:crd:dir="+dir)
	cmd.Env = append(os.Environ(), c.env...)
	return cmd
}

// measure runs one command writing to a fresh directory, as a Makefile
// target would, and reads its resource usage from the kernel.
func measure(c command, paths string) (sample, error) {
	dir, err := os.MkdirTemp("", "bench-gen-out")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(dir)
	return measureCmd(c.cmd(paths, dir))
}

// measureCmd runs cmd and reads its resource usage from the kernel.
func measureCmd(cmd *exec.Cmd) (sample, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%v\n%s", err, out.Bytes())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("no resource usage")
	}
	return sample{
		wall:   wall,
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		maxRSS: ru.Maxrss << 10, // kilobytes on Linux
	}, nil
}

func medians(s []sample) sample {
	med := func(v []int64) int64 {
		v = slices.Clone(v)
		slices.Sort(v)
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	var wall, cpu, rss []int64
	for _, x := range s {
		wall = append(wall, int64(x.wall))
		cpu = append(cpu, int64(x.cpu))
		rss = append(rss, x.maxRSS)
	}
	return sample{time.Duration(med(wall)), time.Duration(med(cpu)), med(rss)}
}

// benchName makes a command's name a benchmark name part.
func benchName(s string) string {
	return strings.NewReplacer(" ", "_", ",", "+").Replace(s)
}
