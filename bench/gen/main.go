// Command gen measures immutable-gen as a drop-in for controller-gen on a real
// API without immutability markers: Gateway API v1.6.3's packages under
// apis/, loaded from the Go module cache (this nested module requires
// sigs.k8s.io/gateway-api at that version) — and on real APIs with
// markers: a copy of Gateway API's packages with six +immutable markers
// added (gatewayMarked), and of JobSet v0.10.1's, whose CRD embeds Job and
// Pod templates, with +immutable where its hand-written rules were
// (jobsetMarked). controller-gen runs on the same copies: it ignores the
// markers, so it generates the types without them.
//
// It builds controller-gen from the controller-tools release the root module
// pins (v0.23.0, with its version stamped as a release binary has it) and
// immutable-gen from this checkout, checks that all write byte-identical
// CRDs for the API without markers, then runs the commands interleaved, -n
// rounds, the order alternating each round, and reports per run the wall
// time, the CPU time (user+system) and the peak resident memory of the
// process. The per-run lines are in Go benchmark format for benchstat; a
// summary of medians and ratios follows.
//
// On the API with markers immutable-gen runs twice per round: with its
// cache off (IMMUTABLE_GEN_CACHE=off: the API server's CRD validation runs
// on every CRD with markers, as on a first run or after every CRD changed)
// and with a warm cache in a private directory (no CRD changed since the
// last run, the common case of a `make`). On the API without markers there
// is nothing to cache: CRDs without markers are not validated
// (docs/semantics.md, rule 7).
//
// With -split it also samples each process's /proc/PID/status every 2 ms
// and reports, at the sample with the largest VmRSS, its anonymous memory
// (heap, stacks, written data) and its file-backed memory (the pages of
// the binary it touched): where a difference in peak RSS lies.
//
//	cd bench/gen && go run . -n 10 | tee /tmp/gen-cli.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl /tmp/gen-cli.txt
//	cd bench/gen && go run . -n 10 -marked=false -split   # API without markers, RSS by kind
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sample is one run of one command.
type sample struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
	// With -split: the process's anonymous (heap, stacks, written data)
	// and file-backed (the binary's pages) resident memory at the
	// largest of its /proc/PID/status samples, taken every 2 ms. The
	// sampled peak can be below maxRSS, which the kernel keeps exactly.
	anon, file int64 // bytes
}

func main() {
	rounds := flag.Int("n", 10, "rounds; each runs every command once")
	paths := flag.String("paths", "sigs.k8s.io/gateway-api/apis/...", "the packages without markers to generate CRDs for")
	gens := flag.String("gens", "crd;crd:immutability=extensions", "immutable-gen's generator options to measure, separated by ';'")
	marked := flag.Bool("marked", true, "also measure Gateway API and JobSet with markers added, cache off and warm")
	split := flag.Bool("split", false, "also sample each process's anonymous and file-backed resident memory (/proc/PID/status, every 2 ms) and report them at its peak")
	keep := flag.String("bin", "", "directory for the built binaries (default: a temporary one)")
	flag.Parse()
	if err := run(*rounds, *paths, strings.Split(*gens, ";"), *marked, *split, *keep, os.Stdout, os.Stderr); err != nil {
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

// suite is one API and the commands measured on it.
type suite struct {
	api   string // benchmark name part
	dir   string // the directory the commands run in ("" for this one)
	paths string
	cmds  []command // the first is controller-gen, the base of the ratios
}

func run(rounds int, paths string, gens []string, marked, split bool, binDir string, stdout, stderr io.Writer) error {
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

	// Without markers: the same output, byte for byte, or the comparison
	// means nothing.
	plain := suite{api: "gateway-api", paths: paths, cmds: []command{{name: "controller-gen", bin: cg, gen: "crd"}}}
	for _, g := range gens {
		plain.cmds = append(plain.cmds, command{"immutable-gen " + g, ig, g, nil})
	}
	want, err := generate(plain.cmds[0], "", paths)
	if err != nil {
		return err
	}
	if len(want) == 0 {
		return fmt.Errorf("controller-gen generated nothing for %s", paths)
	}
	for _, c := range plain.cmds[1:] {
		got, err := generate(c, "", paths)
		if err != nil {
			return err
		}
		if err := sameFiles(want, got); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	fmt.Fprintf(stderr, "%s: %d CRDs, identical from all %d commands\n", plain.api, len(want), len(plain.cmds))
	suites := []suite{plain}

	if marked {
		cacheDir, err := os.MkdirTemp("", "bench-gen-cache")
		if err != nil {
			return err
		}
		defer os.RemoveAll(cacheDir)
		for _, api := range []markedAPI{gatewayMarked, jobsetMarked} {
			dir, err := api.copy()
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			m := suite{api: api.name, dir: dir, paths: "./" + api.dir + "/...", cmds: []command{
				{name: "controller-gen", bin: cg, gen: "crd"},
				{"immutable-gen crd cache-off", ig, "crd", []string{"IMMUTABLE_GEN_CACHE=off"}},
				{"immutable-gen crd cache-warm", ig, "crd", []string{"IMMUTABLE_GEN_CACHE=" + cacheDir}},
			}}
			// Fills the cache, and checks that the markers were compiled.
			got, err := generate(m.cmds[2], dir, m.paths)
			if err != nil {
				return err
			}
			n := 0
			for _, data := range got {
				if bytes.Contains(data, []byte("oldSelf")) {
					n++
				}
			}
			if n == 0 {
				return fmt.Errorf("%s: no CRD has immutability rules", m.api)
			}
			fmt.Fprintf(stderr, "%s: %d CRDs, %d with immutability rules\n", m.api, len(got), n)
			suites = append(suites, m)
		}
	}
	fmt.Fprintf(stderr, "%d rounds\n", rounds)

	fmt.Fprintf(stdout, "goos: linux\ngoarch: %s\npkg: github.com/immutable-gen/immutable-gen/bench/gen\n", runtime.GOARCH)
	samples := make([][][]sample, len(suites))
	for i, su := range suites {
		samples[i] = make([][]sample, len(su.cmds))
	}
	for r := range rounds {
		for si, su := range suites {
			order := make([]int, len(su.cmds))
			for i := range order {
				order[i] = i
			}
			if r%2 == 1 {
				slices.Reverse(order)
			}
			for _, i := range order {
				s, err := measure(su.cmds[i], su.dir, su.paths, split)
				if err != nil {
					return fmt.Errorf("%s %s: %w", su.api, su.cmds[i].name, err)
				}
				samples[si][i] = append(samples[si][i], s)
				fmt.Fprintf(stdout, "BenchmarkCLI/api=%s/impl=%s \t1\t%d ns/op\t%d cpu-ns/op\t%d peak-RSS-B/op%s\n",
					su.api, benchName(su.cmds[i].name), s.wall.Nanoseconds(), s.cpu.Nanoseconds(), s.maxRSS, s.splitMetrics(split))
			}
		}
	}

	// What each binary costs before it does anything: --version runs the
	// package initializers and exits. immutable-gen links the API server's
	// CRD validation (k8s.io/apiextensions-apiserver, k8s.io/apiserver).
	bins := []command{{name: "controller-gen", bin: cg}, {name: "immutable-gen", bin: ig}}
	baseline := make([][]sample, len(bins))
	for range rounds {
		for i, c := range bins {
			s, err := measureCmd(exec.Command(c.bin, "--version"), split)
			if err != nil {
				return fmt.Errorf("%s --version: %w", c.name, err)
			}
			baseline[i] = append(baseline[i], s)
			fmt.Fprintf(stdout, "BenchmarkVersion/impl=%s \t1\t%d ns/op\t%d cpu-ns/op\t%d peak-RSS-B/op%s\n",
				c.name, s.wall.Nanoseconds(), s.cpu.Nanoseconds(), s.maxRSS, s.splitMetrics(split))
		}
	}

	for si, su := range suites {
		fmt.Fprintf(stderr, "\n%s: medians over %d interleaved rounds (ratio to controller-gen):\n", su.api, rounds)
		summary(stderr, su.cmds, samples[si], split)
	}
	fmt.Fprintf(stderr, "\n--version (start-up alone):\n")
	summary(stderr, bins, baseline, split)
	return nil
}

// markedAPI is a real API's module copied with +immutable markers added.
type markedAPI struct {
	name   string // the suite's benchmark name
	module string // the module, as required by this one
	dir    string // the directory of its API packages in the module
	// edits, by file name under dir: each field line (the Go field's line,
	// unique in its file) gets the marker lines written before it; where
	// replace is set, that comment line above the field (a hand-written
	// rule the marker stands for) is removed.
	edits map[string][]edit
}

type edit struct {
	field   string
	markers string
	replace string
}

// gatewayMarked is Gateway API v1.6.3 with six +immutable markers added:
// scalars, atomic lists and a list shared by every route kind, in 7 of the
// 10 CRDs.
var gatewayMarked = markedAPI{
	name: "gateway-api-marked", module: "sigs.k8s.io/gateway-api", dir: "apis",
	edits: map[string][]edit{
		"v1/gateway_types.go":      {{field: "\tGatewayClassName ObjectName `json:\"gatewayClassName\"`", markers: "\t// +immutable"}},
		"v1/gatewayclass_types.go": {{field: "\tControllerName GatewayController `json:\"controllerName\"`", markers: "\t// +immutable"}},
		"v1/grpcroute_types.go":    {{field: "\tHostnames []Hostname `json:\"hostnames,omitempty\"`", markers: "\t// +immutable"}},
		"v1/httproute_types.go":    {{field: "\tHostnames []Hostname `json:\"hostnames,omitempty\"`", markers: "\t// +immutable"}},
		"v1/tlsroute_types.go":     {{field: "\tHostnames []Hostname `json:\"hostnames,omitempty\"`", markers: "\t// +immutable"}},
		"v1/shared_types.go":       {{field: "\tParentRefs []ParentReference `json:\"parentRefs,omitempty\"`", markers: "\t// +immutable"}},
	},
}

// jobsetHandRule is JobSet's hand-written immutability rule.
const jobsetHandRule = "\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\",message=\"Value is immutable\""

// jobsetMarked is JobSet v0.10.1's v1alpha2 API (its JobSet CRD embeds
// whole Job and Pod templates) with +immutable (and the rule's message)
// where its hand-written `self == oldSelf` rules are, on the four spec
// fields that have one. The fifth, on replicatedJobs[*].dependsOn, is
// left as written: a list map in an unbounded list, whose order check
// needs bounds JobSet does not set (issue 22's +immutable:ignoreOrder).
var jobsetMarked = markedAPI{
	name: "jobset-marked", module: "sigs.k8s.io/jobset", dir: "api/jobset",
	edits: map[string][]edit{
		"v1alpha2/jobset_types.go": {
			{field: "\tNetwork *Network `json:\"network,omitempty\"`", markers: jobsetMarkers, replace: jobsetHandRule},
			{field: "\tSuccessPolicy *SuccessPolicy `json:\"successPolicy,omitempty\"`", markers: jobsetMarkers, replace: jobsetHandRule},
			{field: "\tFailurePolicy *FailurePolicy `json:\"failurePolicy,omitempty\"`", markers: jobsetMarkers, replace: jobsetHandRule},
			{field: "\tStartupPolicy *StartupPolicy `json:\"startupPolicy,omitempty\"`", markers: jobsetMarkers, replace: jobsetHandRule},
		},
	},
}

const jobsetMarkers = "\t// +immutable\n\t// +immutable:message=\"Value is immutable\""

// copy copies the API's module (its go.mod, go.sum and API directory) into
// a temporary directory and applies the edits.
func (m markedAPI) copy() (string, error) {
	out, err := goCmd(".", "list", "-m", "-f", "{{.Dir}}", m.module)
	if err != nil {
		return "", err
	}
	src := strings.TrimSpace(out)
	dst, err := os.MkdirTemp("", "bench-gen-marked")
	if err != nil {
		return "", err
	}
	applied := 0
	copyFile := func(rel string) error {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			return err
		}
		inDir, _ := filepath.Rel(m.dir, rel)
		for _, e := range m.edits[filepath.ToSlash(inDir)] {
			if data, err = e.apply(data); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			applied++
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}
	err = filepath.WalkDir(filepath.Join(src, m.dir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return copyFile(rel)
	})
	for _, f := range []string{"go.mod", "go.sum"} {
		err = errors.Join(err, copyFile(f))
	}
	n := 0
	for _, es := range m.edits {
		n += len(es)
	}
	if err == nil && applied != n {
		err = fmt.Errorf("%s: %d of %d edits applied", m.name, applied, n)
	}
	if err != nil {
		os.RemoveAll(dst)
		return "", err
	}
	return dst, nil
}

// apply adds e's markers before its field line and removes the replaced
// rule from the comment block right above it.
func (e edit) apply(data []byte) ([]byte, error) {
	lines := strings.Split(string(data), "\n")
	at := -1
	for i, l := range lines {
		if l == e.field {
			if at >= 0 {
				return nil, fmt.Errorf("more than one line %q", e.field)
			}
			at = i
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("no line %q", e.field)
	}
	if e.replace != "" {
		found := false
		for i := at - 1; i >= 0 && strings.HasPrefix(strings.TrimSpace(lines[i]), "//"); i-- {
			if lines[i] == e.replace {
				lines = append(lines[:i], lines[i+1:]...)
				at--
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("no line %q above %q", e.replace, e.field)
		}
	}
	lines = append(lines[:at], append(strings.Split(e.markers, "\n"), lines[at:]...)...)
	return []byte(strings.Join(lines, "\n")), nil
}

// summary prints each command's medians and their ratio to the first's.
func summary(w io.Writer, cmds []command, samples [][]sample, split bool) {
	base := medians(samples[0])
	for i, c := range cmds {
		m := medians(samples[i])
		fmt.Fprintf(w, "%-58s wall %6.2fs (%.2f×)  cpu %6.2fs (%.2f×)  peak RSS %4d MB (%.2f×)", c.name,
			m.wall.Seconds(), m.wall.Seconds()/base.wall.Seconds(),
			m.cpu.Seconds(), m.cpu.Seconds()/base.cpu.Seconds(),
			m.maxRSS>>20, float64(m.maxRSS)/float64(base.maxRSS))
		if split {
			fmt.Fprintf(w, "  at the sampled peak: anon %5.1f MB, file %5.1f MB", float64(m.anon)/(1<<20), float64(m.file)/(1<<20))
		}
		fmt.Fprintln(w)
	}
}

// splitMetrics is the benchmark line's anon and file metrics, with -split.
func (s sample) splitMetrics(split bool) string {
	if !split {
		return ""
	}
	return fmt.Sprintf("\t%d anon-B/op\t%d file-B/op", s.anon, s.file)
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

// generate runs one command in dir and returns the files it wrote.
func generate(c command, dir, paths string) (map[string][]byte, error) {
	outDir, err := os.MkdirTemp("", "bench-gen-out")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(outDir)
	cmd := c.cmd(dir, paths, outDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(c.bin), c.gen, err, out)
	}
	files := map[string][]byte{}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(outDir, e.Name()))
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

// cmd is the command run in dir writing its CRDs into outDir.
func (c command) cmd(dir, paths, outDir string) *exec.Cmd {
	cmd := exec.Command(c.bin, c.gen, "paths="+paths, "output:crd:dir="+outDir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), c.env...)
	return cmd
}

// measure runs one command writing to a fresh directory, as a Makefile
// target would, and reads its resource usage from the kernel.
func measure(c command, dir, paths string, split bool) (sample, error) {
	outDir, err := os.MkdirTemp("", "bench-gen-out")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(outDir)
	return measureCmd(c.cmd(dir, paths, outDir), split)
}

// measureCmd runs cmd and reads its resource usage from the kernel; with
// split, it also samples the process's resident memory by kind.
func measureCmd(cmd *exec.Cmd, split bool) (sample, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	done := make(chan struct{})
	sampled := make(chan rssSample, 1)
	if split {
		go func() { sampled <- samplePeak(cmd.Process.Pid, done) }()
	} else {
		sampled <- rssSample{}
	}
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	peak := <-sampled
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
		anon:   peak.anon,
		file:   peak.file,
	}, nil
}

// rssSample is one reading of /proc/PID/status, in bytes.
type rssSample struct{ rss, anon, file int64 }

// samplePeak reads /proc/pid/status every 2 ms until done is closed and
// returns the reading with the largest VmRSS. A zombie's status has no
// memory lines: the last readings before the exit count.
func samplePeak(pid int, done <-chan struct{}) rssSample {
	var peak rssSample
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if s, ok := readStatus(pid); ok && s.rss > peak.rss {
			peak = s
		}
		select {
		case <-done:
			return peak
		case <-tick.C:
		}
	}
}

// readStatus reads VmRSS, RssAnon and RssFile from /proc/pid/status.
func readStatus(pid int) (rssSample, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rssSample{}, false
	}
	var s rssSample
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var field *int64
		switch key {
		case "VmRSS":
			field = &s.rss
		case "RssAnon":
			field = &s.anon
		case "RssFile":
			field = &s.file
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return rssSample{}, false
		}
		*field = kb << 10
		found++
	}
	return s, found == 3
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
	var anon, file []int64
	for _, x := range s {
		anon = append(anon, x.anon)
		file = append(file, x.file)
	}
	return sample{time.Duration(med(wall)), time.Duration(med(cpu)), med(rss), med(anon), med(file)}
}

// benchName makes a command's name a benchmark name part.
func benchName(s string) string {
	return strings.NewReplacer(" ", "_", ",", "+").Replace(s)
}
