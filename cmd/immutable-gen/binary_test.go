package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// buildBinary builds this command as the contract says (go build
// ./cmd/immutable-gen) into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "immutable-gen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBinary runs bin with args in dir and environment env, and returns its
// exit code and output.
func runBinary(t *testing.T, bin, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// TestNoGoAtRunTime: the binary of a plain go build runs lint,
// check-update and help with no go command on PATH and an empty HOME, with the same
// exit status and output as in process; and generates a CRD with markers
// (the API server's CRD validation included) with a fresh HOME and build
// cache, running the go command only as controller-gen does (go/packages'
// go list), never go build or go install.
func TestNoGoAtRunTime(t *testing.T) {
	t.Parallel() // beside the other long ones, after the tests that change directory
	if testing.Short() {
		t.Skip("builds the command")
	}
	root := moduleRoot(t)
	bin := buildBinary(t)

	t.Run("lint, check-update and help without go", func(t *testing.T) {
		noGo := t.TempDir() // PATH: a directory with no go in it
		env := []string{"PATH=" + noGo, "HOME=" + t.TempDir(), "IMMUTABLE_GEN_CACHE=" + t.TempDir()}
		cases := [][]string{
			{"lint", filepath.Join(root, "testdata/lint/defects")},
			{"check-update", "--schema", filepath.Join(root, "testdata/golden/crd/once"),
				"--old", filepath.Join(root, "testdata/check-update/once/old"), "--new", filepath.Join(root, "testdata/check-update/once/new")},
			{"help"},
			{"--help"},
			{"help", "diagnostics", "IG040"},
		}
		for _, args := range cases {
			var wantOut, wantErr bytes.Buffer
			wantCode := run(args, &wantOut, &wantErr)
			code, stdout, stderr := runBinary(t, bin, t.TempDir(), env, args...)
			if code != wantCode || stdout != wantOut.String() || stderr != wantErr.String() {
				t.Errorf("%s: exit %d, want %d\n--- stdout\n%s--- want\n%s--- stderr\n%s--- want\n%s",
					args[0], code, wantCode, stdout, &wantOut, stderr, &wantErr)
			}
		}
	})

	t.Run("crd with markers in a fresh HOME and build cache", func(t *testing.T) {
		realGo, err := exec.LookPath("go")
		if err != nil {
			t.Fatal(err)
		}
		modCache, err := exec.Command(realGo, "env", "GOMODCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		// A go command on PATH that records each invocation, then runs the
		// real one.
		shimDir, log := t.TempDir(), filepath.Join(t.TempDir(), "go-calls.txt")
		shim := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + realGo + "' \"$@\"\n"
		if err := os.WriteFile(filepath.Join(shimDir, "go"), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		env := []string{
			"PATH=" + shimDir + string(os.PathListSeparator) + "/usr/bin:/bin",
			"HOME=" + t.TempDir(),
			"GOCACHE=" + t.TempDir(),
			"GOMODCACHE=" + strings.TrimSpace(string(modCache)),
			"GOPROXY=off", // no network: everything is in the module cache
			"GOFLAGS=-mod=mod",
			"IMMUTABLE_GEN_CACHE=" + t.TempDir(),
		}
		code, _, stderr := runBinary(t, bin, root, env,
			"crd", "paths=./testdata/apis/crd/celshapes/...", "output:crd:dir="+out)
		if code != 0 {
			t.Fatalf("crd: exit %d\n%s", code, stderr)
		}
		golden := filepath.Join(root, "testdata/golden/crd/celshapes/shapes.example.com_shapes.yaml")
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, "shapes.example.com_shapes.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the CRD differs from %s", golden)
		}
		calls, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("the go command never ran (go/packages runs go list): %v", err)
		}
		for _, call := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
			if verb := strings.Fields(call)[0]; verb != "list" && verb != "env" && verb != "version" {
				t.Errorf("the binary ran `go %s`; only go list (go/packages) is expected", call)
			}
		}
	})

	t.Run("version", func(t *testing.T) {
		code, stdout, _ := runBinary(t, bin, t.TempDir(), nil, "--version")
		if code != 0 || !strings.HasPrefix(stdout, "Version: ") {
			t.Fatalf("--version: exit %d, %q", code, stdout)
		}
		info, ok := debug.ReadBuildInfo()
		if !ok {
			t.Skip("no build information in the test binary")
		}
		// A binary built in a version-control checkout has a pseudo-version.
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && strings.Contains(stdout, "(devel)") {
				t.Errorf("--version in a checkout printed %q, want the module version", stdout)
			}
		}
	})

	t.Run("initialisers", func(t *testing.T) {
		testInitialisers(t, bin)
	})
}

// initBudget is the most a package of this module may allocate in its
// initialisers: map literals and sync.Once closures fit, a compiled regexp,
// a CEL environment or a table built by code does not (the smallest regexp
// the packages had, schema's simpleName, allocated 2.6 KB). Only marked
// CRDs, lint, check-update and migrate use what they build, so it is built
// on first use (sync.OnceValue), and a generation without markers — most
// runs — does not pay for it (BENCHMARKS.md, "Without markers, issue 34
// item 5").
const initBudget = 2048

// testInitialisers runs bin --version with GODEBUG=inittrace=1 and checks
// every package of this module (the root module: the runtime modules have
// their own floors and owners) against initBudget. The named cases are the
// packages that compiled regexps at init before: each must still be linked
// (else the case proves nothing) and within the budget.
func testInitialisers(t *testing.T, bin string) {
	code, _, stderr := runBinary(t, bin, t.TempDir(), []string{"GODEBUG=inittrace=1"}, "--version")
	if code != 0 {
		t.Fatalf("--version: exit %d\n%s", code, stderr)
	}
	allocated := map[string]int{} // package -> bytes its initialisers allocated
	for _, line := range strings.Split(stderr, "\n") {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		allocated[f[1]] = n
	}
	if len(allocated) == 0 {
		t.Fatalf("no inittrace lines in --version's standard error:\n%s", stderr)
	}
	for _, pkg := range []string{"lint", "crdvalidation", "placement", "migrate", "schema"} {
		t.Run(pkg, func(t *testing.T) {
			n, ok := allocated[modulePath+"/"+pkg]
			if !ok {
				t.Fatalf("%s has no initialiser in the trace", pkg)
			}
			if n > initBudget {
				t.Errorf("%s's initialisers allocate %d bytes, over %d: build it on first use", pkg, n, initBudget)
			}
		})
	}
	t.Run("every package of the module", func(t *testing.T) {
		for pkg, n := range allocated {
			if (pkg == modulePath || strings.HasPrefix(pkg, modulePath+"/")) && !strings.HasPrefix(pkg, modulePath+"/runtime") && n > initBudget {
				t.Errorf("%s's initialisers allocate %d bytes, over %d: build it on first use", pkg, n, initBudget)
			}
		}
	})
}

func TestVersionFrom(t *testing.T) {
	dep := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: replace}
	}
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"release (go install @version)",
			debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.4.0"}},
			"v0.4.0"},
		{"checkout (go build, pseudo-version from VCS)",
			debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.0.0-20261125120000-0123456789ab+dirty"}},
			"v0.0.0-20261125120000-0123456789ab+dirty"},
		{"checkout without VCS stamping",
			debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"(devel) (revision abc, modified)"},
		{"go tool in a user's module",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "(devel)"},
				Deps: []*debug.Module{dep("k8s.io/api", "v0.31.0", nil), dep(modulePath, "v0.4.0", nil)}},
			"v0.4.0"},
		{"go tool with the module replaced by a directory",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/app"},
				Deps: []*debug.Module{dep(modulePath, "v0.0.0", dep("../immutable-gen", "", nil))}},
			"v0.0.0 (replaced by ../immutable-gen)"},
		{"another program",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}},
			"(unknown)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionFrom(&tc.info); got != tc.want {
				t.Errorf("versionFrom = %q, want %q", got, tc.want)
			}
		})
	}
}
