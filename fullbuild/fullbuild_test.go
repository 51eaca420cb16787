package fullbuild

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/immutable-gen/immutable-gen/cache"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// The throwaway module the tests build: example.com/tiny, a main package
// whose file tagged immutablegen_full makes it say "full", with one
// dependency replaced by a local directory (so that a module graph can
// differ without the network).
var tinyFiles = map[string]string{
	"tiny/go.mod": `module example.com/tiny

go 1.26

require example.com/dep v0.0.0

replace example.com/dep => ../dep
`,
	"tiny/main.go": `package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"example.com/dep"
)

var build = "light"

func main() {
	fmt.Println(build, dep.Name, os.Args[1:])
	if len(os.Args) > 2 && os.Args[1] == "exit" {
		code, _ := strconv.Atoi(os.Args[2])
		os.Exit(code)
	}
	if len(os.Args) > 1 && os.Args[1] == "echo" {
		io.Copy(os.Stdout, os.Stdin)
	}
}
`,
	"tiny/full.go": `//go:build immutablegen_full

package main

func init() { build = "full" }
`,
	"dep/go.mod":  "module example.com/dep\n\ngo 1.26\n",
	"dep/dep.go":  "package dep\n\nconst Name = \"dep\"\n",
	"dep2/go.mod": "module example.com/dep\n\ngo 1.26\n",
	"dep2/dep.go": "package dep\n\nconst Name = \"dep2\"\n",
	// The same module, its dependency replaced by another directory.
	"other/go.mod": strings.Replace(`module example.com/tiny

go 1.26

require example.com/dep v0.0.0

replace example.com/dep => ../dep
`, "../dep", "../dep2", 1),
}

// fixture is the throwaway module and its two builds, made once.
type fixture struct {
	root        string // the directory holding tiny/, dep/, dep2/, other/
	light, full string // go build and go build -tags immutablegen_full of tiny
	lightInfo   *debug.BuildInfo
}

var (
	fix     *fixture
	fixRoot string // removed after the tests, even when the fixture failed
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if fixRoot != "" {
		os.RemoveAll(fixRoot)
	}
	os.Exit(code)
}

// goEnv keeps the go commands of a test local: no network, no toolchain
// switch, no workspace, no flags from the environment.
func goEnv(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "")
}

// unsetenv unsets key for the test.
func unsetenv(t *testing.T, key string) {
	t.Setenv(key, "")
	os.Unsetenv(key)
}

func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

func getFixture(t *testing.T) *fixture {
	t.Helper()
	if fix != nil {
		return fix
	}
	goEnv(t)
	if fixRoot != "" {
		t.Fatal("the throwaway module did not build")
	}
	root, err := os.MkdirTemp("", "fullbuild-test-")
	if err != nil {
		t.Fatal(err)
	}
	fixRoot = root
	f := &fixture{root: root, light: filepath.Join(root, exe("light")), full: filepath.Join(root, exe("full"))}
	for name, content := range tinyFiles {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"main.go", "full.go"} {
		data, err := os.ReadFile(filepath.Join(root, "tiny", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "other", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goBuild(t, filepath.Join(root, "tiny"), "-o", f.light, ".")
	goBuild(t, filepath.Join(root, "tiny"), "-tags", Tag, "-o", f.full, ".")
	if f.lightInfo, err = buildinfo.ReadFile(f.light); err != nil {
		t.Fatal(err)
	}
	fix = f
	return f
}

func goBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func TestLocateFromEnv(t *testing.T) {
	f := getFixture(t)
	text := filepath.Join(t.TempDir(), "text")
	if err := os.WriteFile(text, []byte("not a binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, env string
		wantErr   string // "" when the file is accepted
	}{
		{"full build", f.full, ""},
		{"missing file", filepath.Join(f.root, "missing"), "missing: no such file"},
		{"directory", f.root, "is not a regular file"},
		{"not a Go binary", text, "is not a Go binary with build information"},
		{"light build", f.light, "light is not a full build: it was built without -tags immutablegen_full"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvVar, tc.env)
			t.Setenv(cache.EnvVar, t.TempDir()) // must stay empty: nothing is built
			var notes bytes.Buffer
			path, cleanup, err := Locate(context.Background(), &notes)
			if cleanup == nil {
				t.Fatal("nil cleanup")
			}
			cleanup()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Locate: %v", err)
			case tc.wantErr == "" && path != tc.env:
				t.Errorf("Locate = %s, want %s", path, tc.env)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Locate error = %v, want one containing %q", err, tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), EnvVar):
				t.Errorf("Locate error = %v does not name %s", err, EnvVar)
			}
			if notes.Len() > 0 {
				t.Errorf("notes with %s set: %s", EnvVar, notes.String())
			}
			if entries, _ := os.ReadDir(os.Getenv(cache.EnvVar)); len(entries) > 0 {
				t.Errorf("the cache was written with %s set", EnvVar)
			}
		})
	}
}

func TestELFBuildIDIsGoToolBuildID(t *testing.T) {
	f := getFixture(t)
	if ef, err := elf.Open(f.light); err != nil {
		t.Skipf("not ELF: %v", err)
	} else {
		ef.Close()
	}
	out, err := exec.Command("go", "tool", "buildid", f.light).Output()
	if err != nil {
		t.Fatalf("go tool buildid: %v", err)
	}
	got, err := elfBuildID(f.light)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("elfBuildID = %q, go tool buildid = %q", got, want)
	}
}

func TestBinaryKey(t *testing.T) {
	f := getFixture(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := func(p string) string {
		k, err := binaryKey(p)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	light, full := key(f.light), key(f.full)
	a, a2, b := key(write("a", "one")), key(write("a2", "one")), key(write("b", "two"))
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"two builds have two keys", light != full},
		{"a binary's key is stable", light == key(f.light)},
		{"files without a build ID: the same contents, the same key", a == a2},
		{"files without a build ID: other contents, another key", a != b},
		{"a key is a directory name", len(light) == 32 && !strings.ContainsAny(light, `/\.`)},
	} {
		if !c.ok {
			t.Error(c.name)
		}
	}
	if _, err := binaryKey(filepath.Join(dir, "missing")); err == nil {
		t.Error("a key for a missing file")
	}
}

func TestSameBuild(t *testing.T) {
	mod := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Sum: "h1:" + path + version, Replace: replace}
	}
	light := func() *debug.BuildInfo {
		return &debug.BuildInfo{
			Path: "example.com/m/cmd/x",
			Main: debug.Module{Path: "example.com/m", Version: "v1.0.0", Sum: "h1:m"},
			Deps: []*debug.Module{
				mod("example.com/a", "v1.0.0", nil),
				mod("example.com/b", "v1.0.0", &debug.Module{Path: "../b"}),
			},
		}
	}
	cases := []struct {
		name   string
		change func(full *debug.BuildInfo)
		want   string // "" when the same
	}{
		{"same", func(*debug.BuildInfo) {}, ""},
		{"more modules in the full build", func(full *debug.BuildInfo) {
			full.Deps = append(full.Deps, mod("google.golang.org/grpc", "v1.70.0", nil))
		}, ""},
		{"another main package", func(full *debug.BuildInfo) { full.Path = "example.com/m/cmd/y" },
			"main package example.com/m/cmd/x here, example.com/m/cmd/y in the build"},
		{"another main module version", func(full *debug.BuildInfo) { full.Main.Version = "v1.0.1" },
			"main module example.com/m v1.0.0 h1:m here, example.com/m v1.0.1 h1:m in the build"},
		{"another dependency version", func(full *debug.BuildInfo) { full.Deps[0] = mod("example.com/a", "v1.1.0", nil) },
			"example.com/a v1.0.0 h1:example.com/av1.0.0 here, example.com/a v1.1.0 h1:example.com/av1.1.0 in the build"},
		{"another checksum", func(full *debug.BuildInfo) { full.Deps[0].Sum = "h1:other" },
			"example.com/a v1.0.0 h1:example.com/av1.0.0 here, example.com/a v1.0.0 h1:other in the build"},
		{"another replacement", func(full *debug.BuildInfo) { full.Deps[1].Replace = &debug.Module{Path: "../b2"} },
			"example.com/b v1.0.0 h1:example.com/bv1.0.0 => ../b here, example.com/b v1.0.0 h1:example.com/bv1.0.0 => ../b2 in the build"},
		{"a replacement dropped", func(full *debug.BuildInfo) { full.Deps[1].Replace = nil },
			"example.com/b v1.0.0 h1:example.com/bv1.0.0 => ../b here, example.com/b v1.0.0 h1:example.com/bv1.0.0 in the build"},
		{"a replacement's version", func(full *debug.BuildInfo) {
			full.Deps[1].Replace = &debug.Module{Path: "../b", Version: "v0.1.0"}
		}, "example.com/b v1.0.0 h1:example.com/bv1.0.0 => ../b here, example.com/b v1.0.0 h1:example.com/bv1.0.0 => ../b v0.1.0 in the build"},
		{"a module missing", func(full *debug.BuildInfo) { full.Deps = full.Deps[1:] },
			"example.com/a v1.0.0 h1:example.com/av1.0.0 here, missing in the build"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			full := light()
			tc.change(full)
			if got := sameBuild(light(), full); got != tc.want {
				t.Errorf("sameBuild =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// tinyBinary is the light build of the throwaway module as Locate sees a
// running binary, building in dir.
func tinyBinary(f *fixture, dir string) binary {
	return binary{exe: f.light, info: f.lightInfo, dir: dir}
}

// says runs the binary at path and returns its first output word ("light"
// or "full").
func says(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command(path).Output()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return strings.Fields(string(out))[0]
}

func TestLocateBuildsOnceAndCaches(t *testing.T) {
	f := getFixture(t)
	goEnv(t)
	unsetenv(t, EnvVar)
	dir := t.TempDir()
	t.Setenv(cache.EnvVar, dir)
	b := tinyBinary(f, filepath.Join(f.root, "tiny"))

	var notes bytes.Buffer
	path, cleanup, err := b.locate(context.Background(), &notes)
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	key, _ := binaryKey(f.light)
	if want := filepath.Join(dir, "full", key, exe("immutable-gen")); path != want {
		t.Errorf("built %s, want %s", path, want)
	}
	if got := says(t, path); got != "full" {
		t.Errorf("the build is the %s build", got)
	}
	if n := strings.Count(notes.String(), "\n"); n != 1 || !strings.Contains(notes.String(), "once per immutable-gen binary") || !strings.Contains(notes.String(), EnvVar) {
		t.Errorf("notes of the build: %d lines: %s", n, notes.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("%d files beside the build, want it alone (no temporaries left)", len(entries))
	}

	// Unused for a while: the next hit refreshes the time trimming reads.
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	notes.Reset()
	again, cleanup, err := b.locate(context.Background(), &notes)
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if again != path || notes.Len() > 0 {
		t.Errorf("second Locate = %s with notes %q; want the cached %s, nothing built", again, notes.String(), path)
	}
	if fi, err := os.Stat(path); err != nil || time.Since(fi.ModTime()) > time.Hour {
		t.Error("a cache hit did not refresh the build's time")
	}
	if _, err := os.Stat(path); err != nil {
		t.Error("cleanup removed a cached build")
	}
}

// TestLocateBuildsInItsSource: a binary built in its module's tree and run
// outside any module (go build ./cmd/immutable-gen in a clone, then the
// binary run from a temporary directory) gets its full build from that
// tree.
func TestLocateBuildsInItsSource(t *testing.T) {
	f := getFixture(t)
	goEnv(t)
	unsetenv(t, EnvVar)
	t.Setenv(cache.EnvVar, t.TempDir())
	b := tinyBinary(f, t.TempDir()) // not a module: the first attempt fails
	b.source = filepath.Join(f.root, "tiny")
	path, cleanup, err := b.locate(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if got := says(t, path); got != "full" {
		t.Errorf("the build is the %s build", got)
	}
}

func TestLocateCacheOff(t *testing.T) {
	f := getFixture(t)
	goEnv(t)
	unsetenv(t, EnvVar)
	t.Setenv(cache.EnvVar, "off")
	var notes bytes.Buffer
	path, cleanup, err := tinyBinary(f, filepath.Join(f.root, "tiny")).locate(context.Background(), &notes)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes.String(), "on every run while the cache is off") {
		t.Errorf("the note does not say that the build is not kept: %s", notes.String())
	}
	if got := says(t, path); got != "full" {
		t.Errorf("the build is the %s build", got)
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s", filepath.Dir(path))
	}
}

// TestLocateErrors checks the error when no full build can be had, in
// golden files: each attempt, why it failed, and the manual fix.
func TestLocateErrors(t *testing.T) {
	f := getFixture(t)
	cases := []struct {
		name string
		b    func() binary
	}{
		// Built in this directory from another module graph (the
		// dependency replaced by another directory): discarded; and the
		// binary is no released version, so go install is not tried.
		{"other-module-graph", func() binary { return tinyBinary(f, filepath.Join(f.root, "other")) }},
		// Not in a module: go build fails; a released version, but
		// GOPROXY=off (and -mod in GOFLAGS, which go install …@version
		// would refuse, is dropped).
		{"no-module-no-proxy", func() binary {
			b := tinyBinary(f, f.root)
			info := *f.lightInfo
			info.Main.Version = "v1.2.3"
			b.info = &info
			return b
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			goEnv(t)
			t.Setenv("GOFLAGS", "-mod=mod")
			unsetenv(t, EnvVar)
			dir := t.TempDir()
			t.Setenv(cache.EnvVar, dir)
			_, cleanup, err := tc.b().locate(context.Background(), nil)
			cleanup()
			if err == nil {
				t.Fatal("a full build from another module graph was accepted")
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "full")); len(entries) != 1 {
				t.Fatalf("the cache holds %d directories", len(entries))
			} else if left, _ := os.ReadDir(filepath.Join(dir, "full", entries[0].Name())); len(left) > 0 {
				t.Errorf("a failed build left %d files in the cache", len(left))
			}
			got := strings.ReplaceAll(err.Error()+"\n", f.root, "$ROOT")
			golden := filepath.Join("..", "testdata", "golden", "fullbuild", tc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("error text differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

func TestRun(t *testing.T) {
	f := getFixture(t)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name       string
		ctx        context.Context
		env        string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"success", context.Background(), f.full, []string{"a", "b"}, "", 0, "full dep [a b]\n", ""},
		{"exit code", context.Background(), f.full, []string{"exit", "3"}, "", 3, "full dep [exit 3]\n", ""},
		{"standard input", context.Background(), f.full, []string{"echo"}, "in\n", 0, "full dep [echo]\nin\n", ""},
		{"no full build", context.Background(), f.light, nil, "", 2, "", "immutable-gen: IMMUTABLE_GEN_FULL="},
		{"not started", canceled, f.full, nil, "", 1, "", "immutable-gen: full build "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvVar, tc.env)
			var stdout, stderr bytes.Buffer
			code := Run(tc.ctx, tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.wantCode || stdout.String() != tc.wantStdout || !strings.HasPrefix(stderr.String(), tc.wantStderr) || (tc.wantStderr == "") != (stderr.Len() == 0) {
				t.Errorf("Run = %d, stdout %q, stderr %q; want %d, %q, %q…", code, stdout.String(), stderr.String(), tc.wantCode, tc.wantStdout, tc.wantStderr)
			}
		})
	}
}

func TestWithoutModFlags(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"-mod=mod":                 "",
		"-trimpath -mod=vendor -v": "-trimpath -v",
		"--modfile=x.mod -tags=a":  "-tags=a",
		"-modcacherw -trimpath":    "-modcacherw -trimpath",
	} {
		if got := withoutModFlags(in); got != want {
			t.Errorf("withoutModFlags(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocateInstallsReleasedVersion checks the second attempt: a binary
// installed with go install …@version, run outside any module, gets its full
// build from the same version. The module comes from a proxy in a local
// directory (GOPROXY=file://…), so the test needs no network.
func TestLocateInstallsReleasedVersion(t *testing.T) {
	goEnv(t)
	unsetenv(t, EnvVar)
	root := t.TempDir()
	proxy := filepath.Join(root, "proxy")
	writeProxyModule(t, proxy, "example.com/tool", "v1.2.3", map[string]string{
		"go.mod": "module example.com/tool\n\ngo 1.26\n",
		"main.go": `package main

import "fmt"

var build = "light"

func main() { fmt.Println(build) }
`,
		"full.go": "//go:build immutablegen_full\n\npackage main\n\nfunc init() { build = \"full\" }\n",
	})
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", filepath.Join(root, "modcache"))
	t.Setenv("GOFLAGS", "-modcacherw") // so that the test can remove the module cache
	bin := filepath.Join(root, "bin")
	install := exec.Command("go", "install", "example.com/tool@v1.2.3")
	install.Dir = root
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	light := filepath.Join(bin, exe("tool"))
	info, err := buildinfo.ReadFile(light)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(cache.EnvVar, filepath.Join(root, "cache"))
	outside := filepath.Join(root, "elsewhere") // no module: the first attempt fails
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	path, cleanup, err := binary{exe: light, info: info, dir: outside}.locate(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if got := says(t, path); got != "full" {
		t.Errorf("the build is the %s build", got)
	}
	if !strings.HasPrefix(path, filepath.Join(root, "cache", "full")+string(filepath.Separator)) {
		t.Errorf("the build %s is not in the cache", path)
	}
}

// writeProxyModule writes module path@version with files into a module proxy
// directory (the GOPROXY protocol's layout).
func writeProxyModule(t *testing.T, proxy, path, version string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	for name, content := range files {
		w, err := zw.Create(path + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, content)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`),
		version + ".mod":  []byte(files["go.mod"]),
		version + ".zip":  z.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkBinaryKey measures what a cache hit costs beyond a stat: the
// running executable's build ID (read from its ELF note, not its contents).
func BenchmarkBinaryKey(b *testing.B) {
	path := os.Getenv("FULLBUILD_BENCH_EXE")
	if path == "" {
		var err error
		if path, err = os.Executable(); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := binaryKey(path); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTagsFlag(t *testing.T) {
	for _, tc := range []struct{ light, want string }{
		{"", "immutablegen_full"},
		{"netgo,osusergo", "netgo,osusergo,immutablegen_full"}, // the light build's tags are kept
		{"immutablegen_full", "immutablegen_full"},
	} {
		info := &debug.BuildInfo{}
		if tc.light != "" {
			info.Settings = []debug.BuildSetting{{Key: "-tags", Value: tc.light}}
		}
		if got := (binary{info: info}).tagsFlag(); got != tc.want {
			t.Errorf("tags %q: -tags %s, want %s", tc.light, got, tc.want)
		}
	}
}

// TestLocateStampsVCSAsTheLightBuild checks that the full build gets the
// light build's main module version when that comes from version control:
// go run and go tool do not stamp it, go build does (-buildvcs=auto), and
// the environment may say otherwise (GOFLAGS=-buildvcs=false).
func TestLocateStampsVCSAsTheLightBuild(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	goEnv(t)
	unsetenv(t, EnvVar)
	root := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":  "module example.com/vcs\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nvar build = \"light\"\n\nfunc main() { fmt.Println(build) }\n",
		"full.go": tinyFiles["tiny/full.go"],
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cases := []struct {
		name, light, goflags string
	}{
		{"built unstamped (go run), GOFLAGS would stamp", "-buildvcs=false", "-buildvcs=auto"},
		{"built stamped (go build), GOFLAGS would not stamp", "-buildvcs=true", "-buildvcs=false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(cache.EnvVar, t.TempDir())
			light := filepath.Join(t.TempDir(), exe("light"))
			goBuild(t, root, tc.light, "-o", light, ".")
			info, err := buildinfo.ReadFile(light)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("GOFLAGS", tc.goflags)
			path, cleanup, err := binary{exe: light, info: info, dir: root}.locate(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			full, err := buildinfo.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if full.Main.Version != info.Main.Version {
				t.Errorf("full build of version %s, light build of %s", full.Main.Version, info.Main.Version)
			}
		})
	}
}
