//go:build unix

package lintcorpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/lint"
)

// The floor of lint's cost is the API server's own validation of the
// same CRDs: read each file, split its documents, turn YAML into JSON,
// decode the CRD, default and convert it as the API server does, and run
// apiextensions-apiserver's ValidateCustomResourceDefinition — what
// creating the CRD costs a cluster (kubectl's YAML to JSON included).
// BenchmarkLintVsAPIServer runs both, each in a process of its own (this
// test binary, re-executed), on the files lint lints (Helm templates
// left out), and reports the CPU time and peak RSS of each and their
// ratios.

const childEnv = "LINTCORPUS_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "lint":
		childLint()
		os.Exit(0)
	case "apiserver":
		childAPIServer()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childFiles are the inputs of a child: one path a line on standard input.
func childFiles() []string {
	data, _ := io.ReadAll(os.Stdin)
	return strings.Fields(string(data))
}

func childLint() {
	// As the CLI does (cmd/immutable-gen/lint.go).
	debug.SetGCPercent(400)
	res, err := lint.Files(childFiles())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(res.CRDs)
}

func childAPIServer() {
	debug.SetGCPercent(400)
	files := childFiles()
	var mu sync.Mutex
	crds := 0
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			n := validateFile(f)
			mu.Lock()
			crds += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(crds)
}

// validateFile runs the API server's validation on every whole v1 CRD of
// a file and returns how many there were.
func validateFile(file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n := 0
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) || err != nil {
			return n
		}
		raw, err := sigsyaml.YAMLToJSON(doc)
		if err != nil {
			continue
		}
		var crd apiextv1.CustomResourceDefinition
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &crd); err != nil {
			continue
		}
		if crd.Kind != "CustomResourceDefinition" || crd.APIVersion != "apiextensions.k8s.io/v1" || len(crd.Spec.Versions) == 0 || crd.Spec.Names.Plural == "" {
			continue // not a CRD, or a kustomize patch
		}
		internal, err := crdvalidation.Internal(&crd)
		if err != nil {
			continue
		}
		apiserver.InProcess{}.ValidateCRD(internal)
		n++
	}
}

// usage is what a child process cost.
type usage struct {
	cpu  time.Duration
	rss  int64 // bytes
	crds string
}

// runChild runs this test binary as a child of the kind on files.
func runChild(tb testing.TB, kind string, files []string) usage {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+kind)
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s: %v: %s", kind, err, errb.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return usage{
		cpu:  time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		rss:  int64(ru.Maxrss) * 1024, // kilobytes on Linux
		crds: strings.TrimSpace(out.String()),
	}
}

// corpusFiles are the files of the whole corpus that lint lints: the
// manifests below every project's directories, Helm templates left out.
func corpusFiles(tb testing.TB) []string {
	dirs := downloadAll(tb)
	var all []string
	for i, p := range corpus {
		all = append(all, paths(p, dirs[i])...)
	}
	res, err := lint.Files(all)
	if err != nil {
		tb.Fatal(err)
	}
	var files []string
	for _, d := range all {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && slices.Contains([]string{".yaml", ".yml", ".json"}, strings.ToLower(filepath.Ext(p))) && !slices.Contains(res.Helm, p) {
				files = append(files, p)
			}
			return nil
		})
	}
	return files
}

// BenchmarkLintVsAPIServer compares lint of the whole corpus, and of its
// largest file (CAPZ's ASO crds.yaml, 3.6 MB, 14 CRDs), with the API
// server's own validation of the same CRDs, each in a process of its own:
//
//	cd e2e/lintcorpus && go test -run '^$' -bench LintVsAPIServer -benchtime 5x
func BenchmarkLintVsAPIServer(b *testing.B) {
	files := corpusFiles(b)
	largest, size := "", int64(0)
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			largest, size = f, st.Size()
		}
	}
	b.Run("corpus", func(b *testing.B) { compare(b, files) })
	b.Run("largest-file", func(b *testing.B) { compare(b, []string{largest}) })
}

func compare(b *testing.B, files []string) {
	var l, a usage
	var lrss, arss, ratios []float64
	n := 0
	for b.Loop() {
		lu := runChild(b, "lint", files)
		au := runChild(b, "apiserver", files)
		if lu.crds != au.crds {
			b.Fatalf("lint linted %s CRDs, the API server validated %s", lu.crds, au.crds)
		}
		if os.Getenv("LINTCORPUS_VERBOSE") != "" {
			b.Logf("lint %v %d MB, apiserver %v %d MB", lu.cpu, lu.rss>>20, au.cpu, au.rss>>20)
		}
		l.cpu += lu.cpu
		a.cpu += au.cpu
		lrss = append(lrss, float64(lu.rss)/(1<<20))
		arss = append(arss, float64(au.rss)/(1<<20))
		ratios = append(ratios, float64(lu.rss)/float64(au.rss))
		l.crds = lu.crds
		n++
	}
	// Peak RSS varies from run to run with the collector's timing (both
	// run with GOGC=400, as the CLI): the medians, and the worst ratio.
	median := func(x []float64) float64 {
		x = slices.Clone(x)
		slices.Sort(x)
		return x[len(x)/2]
	}
	b.ReportMetric(l.cpu.Seconds()/float64(n), "lint-cpu-s")
	b.ReportMetric(a.cpu.Seconds()/float64(n), "apiserver-cpu-s")
	b.ReportMetric(float64(l.cpu)/float64(a.cpu), "cpu-ratio")
	b.ReportMetric(median(lrss), "lint-peak-MB")
	b.ReportMetric(median(arss), "apiserver-peak-MB")
	b.ReportMetric(median(ratios), "peak-ratio")
	b.ReportMetric(slices.Max(ratios), "worst-peak-ratio")
	var crds int
	fmt.Sscan(l.crds, &crds)
	b.ReportMetric(float64(crds), "CRDs")
	b.ReportMetric(float64(len(files)), "files")
}
