package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestGenerateCI: the flags a CI gates a generator run on. --fail-on
// fails the run (nothing written) on a finding of that severity or above,
// default error as before; -q hides info findings and the summary of a
// successful run, never a warning or an error; --check writes nothing, and
// lists and fails on the files whose content differs from what is on disk.
// Every finding line carries its ID.
func TestGenerateCI(t *testing.T) {
	t.Parallel() // beside the other long ones, after the tests that change directory
	const (
		warnAPI = "../../testdata/apis/crd/ci/warn/..."    // one warning (IG040)
		infoAPI = "../../testdata/apis/crd/ci/info/..."    // one info (IG007)
		badAPI  = "../../testdata/apis/crd/parseerror/..." // errors
	)
	type outcome struct {
		code     int
		written  bool     // the CRD is in the output directory
		stderr   []string // regular expressions each line of which some line matches
		noStderr []string // substrings no line has
		stdout   []string // exact lines of stdout (--check's list)
	}
	cases := []struct {
		name  string
		paths string
		flags []string
		// before prepares the output directory (the CRDs on disk);
		// "fresh" generates it first, "stale" writes a changed CRD.
		before string
		want   outcome
	}{
		{"default: a warning writes the CRD", warnAPI, nil, "",
			outcome{code: 0, written: true, stderr: []string{`^.*warn/types.go:13:2: warning\[IG040\]: unknown marker \+imutable`, `^immutable-gen: 1 finding\(s\): 0 error\(s\), 1 warning\(s\), 0 info \(IG040 ×1\)$`}}},
		{"--fail-on=error is the default", warnAPI, []string{"--fail-on=error"}, "",
			outcome{code: 0, written: true}},
		{"--fail-on=warning fails on a misspelled marker and writes nothing", warnAPI, []string{"--fail-on=warning"}, "",
			outcome{code: 1, written: false, stderr: []string{`warning\[IG040\]`, `^immutable-gen: 1 finding\(s\).*; --fail-on=warning: no file was written$`}}},
		{"--fail-on warning (separate value)", warnAPI, []string{"--fail-on", "warning"}, "",
			outcome{code: 1, written: false}},
		{"--fail-on=warning passes info", infoAPI, []string{"--fail-on=warning"}, "",
			outcome{code: 0, written: true, stderr: []string{`info\[IG007\]: .*redundant`}}},
		{"--fail-on=info fails on info", infoAPI, []string{"--fail-on=info"}, "",
			outcome{code: 1, written: false, stderr: []string{`--fail-on=info: no file was written$`}}},
		{"an unknown --fail-on is refused", warnAPI, []string{"--fail-on=note"}, "",
			outcome{code: 1, written: false, stderr: []string{`--fail-on: unknown severity "note": want info, warning or error`}}},
		{"-q hides info and the summary", infoAPI, []string{"-q"}, "",
			outcome{code: 0, written: true, noStderr: []string{"IG007", "finding(s)"}}},
		{"-q keeps warnings", warnAPI, []string{"-q"}, "",
			outcome{code: 0, written: true, stderr: []string{`warning\[IG040\]`}, noStderr: []string{"finding(s)"}}},
		{"-q keeps errors and says nothing was written", badAPI, []string{"--quiet"}, "",
			outcome{code: 1, written: false, stderr: []string{`error\[IG041\]`, `error\[IG043\]`, `no file was written$`}}},
		{"--check on what the run writes passes and writes nothing", warnAPI, []string{"--check", "-q"}, "fresh",
			outcome{code: 0, written: true}},
		{"--check on a missing CRD fails and writes nothing", warnAPI, []string{"--check"}, "",
			outcome{code: 1, written: false, stdout: []string{"warn.example.com_gadgets.yaml"}, stderr: []string{`^immutable-gen: --check: 1 file\(s\) differ`}}},
		{"--check on a changed CRD fails and leaves it", warnAPI, []string{"--check"}, "stale",
			outcome{code: 1, written: true, stdout: []string{"warn.example.com_gadgets.yaml"}}},
		{"--check with errors fails on the errors, lists nothing", badAPI, []string{"--check"}, "",
			outcome{code: 1, written: false, stderr: []string{`no file was written$`}, noStderr: []string{"--check:"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := outDir(t)
			gen := []string{"crd", "paths=" + tc.paths, "output:crd:dir=" + out}
			crd := ""
			switch tc.before {
			case "fresh", "stale":
				var o, e bytes.Buffer
				if code := run(gen, &o, &e); code != 0 {
					t.Fatalf("preparing: exit %d\n%s", code, &e)
				}
				files := readDir(t, out)
				if len(files) != 1 {
					t.Fatalf("preparing wrote %d files", len(files))
				}
				for name := range files {
					crd = name
				}
				if tc.before == "stale" {
					if err := os.WriteFile(filepath.Join(out, crd), []byte("stale\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := readDir(t, out)
			var stdout, stderr bytes.Buffer
			code := run(append(gen, tc.flags...), &stdout, &stderr)
			if code != tc.want.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.want.code, &stderr)
			}
			after := readDir(t, out)
			if written := len(after) > 0; written != tc.want.written {
				t.Errorf("CRD on disk: %v, want %v", written, tc.want.written)
			}
			if tc.before != "" || slices.Contains(tc.flags, "--check") {
				for name, data := range before {
					if !bytes.Equal(after[name], data) {
						t.Errorf("%s was rewritten", name)
					}
				}
			}
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			for _, re := range tc.want.stderr {
				rx := regexp.MustCompile(re)
				found := false
				for _, l := range lines {
					found = found || rx.MatchString(l)
				}
				if !found {
					t.Errorf("no stderr line matches %s:\n%s", re, &stderr)
				}
			}
			for _, s := range tc.want.noStderr {
				if strings.Contains(stderr.String(), s) {
					t.Errorf("stderr has %q:\n%s", s, &stderr)
				}
			}
			var wantOut string
			for _, f := range tc.want.stdout {
				wantOut += filepath.Join(out, f) + "\n"
			}
			if stdout.String() != wantOut {
				t.Errorf("stdout %q, want %q", stdout.String(), wantOut)
			}
			assertFindingsHaveIDs(t, stderr.String())
		})
	}
}

// findingLine is a finding as the generators print it, with or without an
// ID.
var findingLine = regexp.MustCompile(`(^|: )(info|warning|error)(\[IG\d{3}\])?: `)

// assertFindingsHaveIDs fails t for a line of a generator run's stderr
// that prints a finding without its ID.
func assertFindingsHaveIDs(t *testing.T, stderr string) {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if m := findingLine.FindStringSubmatch(l); m != nil && m[3] == "" {
			t.Errorf("a finding without an ID: %s", l)
		}
	}
}

// TestCheckCatchesPlainControllerGen: a CRD that plain controller-gen wrote
// from marked types (its immutability rules missing) fails crd --check,
// which lists it; after a run of immutable-gen, --check passes.
func TestCheckCatchesPlainControllerGen(t *testing.T) {
	t.Parallel() // beside the other long ones, after the tests that change directory
	if testing.Short() {
		t.Skip("builds controller-gen")
	}
	bin, err := controllerGen()
	if err != nil {
		t.Fatal(err)
	}
	const paths = "paths=../../testdata/apis/crd/ci/warn/..."
	out := outDir(t)
	if b, err := exec.Command(bin, "crd", paths, "output:crd:dir="+out).CombinedOutput(); err != nil {
		t.Fatalf("controller-gen: %v\n%s", err, b)
	}
	check := []string{"crd", paths, "output:crd:dir=" + out, "--check", "-q"}
	var stdout, stderr bytes.Buffer
	if code := run(check, &stdout, &stderr); code != 1 || stdout.String() != filepath.Join(out, "warn.example.com_gadgets.yaml")+"\n" {
		t.Errorf("--check on controller-gen's CRD: exit %d, stdout %q\n%s", code, &stdout, &stderr)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(check[:3], &stdout, &stderr); code != 0 {
		t.Fatalf("generating: exit %d\n%s", code, &stderr)
	}
	if code := run(check, &stdout, &stderr); code != 0 || stdout.Len() != 0 {
		t.Errorf("--check after immutable-gen: exit %d, stdout %q\n%s", code, &stdout, &stderr)
	}
}

// TestCheckValidators: --check works for every generator: the committed
// zz_generated.immutable.go of the test API is up to date, a changed one is
// listed and left as it is.
func TestCheckValidators(t *testing.T) {
	src := "../../testdata/apis/validators/v1/zz_generated.immutable.go"
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		onDisk []byte
		code   int
		listed bool
	}{
		{"up to date", want, 0, false},
		{"changed", append(bytes.Clone(want), "// edited\n"...), 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := outDir(t)
			dst := filepath.Join(out, "zz_generated.immutable.go")
			if err := os.WriteFile(dst, tc.onDisk, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"validators", "paths=../../testdata/apis/validators/...", "output:validators:dir=" + out, "--check"}, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, &stderr)
			}
			if listed := stdout.String() == dst+"\n"; listed != tc.listed {
				t.Errorf("stdout %q, listed %v, want %v", &stdout, listed, tc.listed)
			}
			if got, _ := os.ReadFile(dst); !bytes.Equal(got, tc.onDisk) {
				t.Error("--check changed the file")
			}
		})
	}
}

// TestParseErrorsOnce: a marker that does not parse prints once, with its
// ID and fix, whichever generators of a run read it (controller-tools
// records it once per pass over the package's markers, and the openapi
// generator reads the markers itself).
func TestParseErrorsOnce(t *testing.T) {
	const ours = `types.go:13:2: error[IG041]: invalid marker +immutable=true: the only forms are +immutable, +immutable=keys and +immutable=once; fix: write one of the forms ` + "`immutable-gen help markers`" + ` lists`
	const theirs = `types.go:15:2: error[IG043]: +kubebuilder:validation:MaxLength=abc: expected integer`
	cases := []struct {
		name       string
		generators []string
		theirs     bool // the run reads controller-tools' CRD markers
	}{
		{"crd", []string{"crd"}, true},
		{"openapi", []string{"openapi"}, false},
		{"crd and openapi", []string{"crd", "openapi"}, true},
		{"crd and validators", []string{"crd", "validators"}, true},
		{"validators", []string{"validators"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := outDir(t)
			args := append(tc.generators, "paths=../../testdata/apis/crd/parseerror/...")
			for _, g := range tc.generators {
				args = append(args, "output:"+g+":dir="+out)
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, &stderr)
			}
			if n := strings.Count(stderr.String(), ours); n != 1 {
				t.Errorf("+immutable=true printed %d times:\n%s", n, &stderr)
			}
			want := 0
			if tc.theirs {
				want = 1
			}
			if n := strings.Count(stderr.String(), theirs); n != want {
				t.Errorf("MaxLength=abc printed %d times, want %d:\n%s", n, want, &stderr)
			}
			if n := strings.Count(stderr.String(), "IG041"); n != 2 { // the line and the summary
				t.Errorf("IG041 appears %d times, want its line and the summary:\n%s", n, &stderr)
			}
			assertFindingsHaveIDs(t, stderr.String())
			if files := readDir(t, out); len(files) != 0 {
				t.Errorf("wrote %d files", len(files))
			}
		})
	}
}
