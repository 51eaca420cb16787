package fullbuild

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// stderrLines is how many of the go command's last lines of error output an
// error quotes.
const stderrLines = 5

// failure is why one build attempt gave no full build.
type failure struct {
	command string   // the go command, as a person would type it
	dir     string   // where it ran; "" when it did not depend on it
	why     string   // one line
	stderr  []string // the go command's last lines of error output
}

// build builds the full build of b into dir, trying the module graph of the
// current directory, then the source tree b was built from, then the
// released version b was installed from, and returns its path.
func (b binary) build(ctx context.Context, dir, name string) (string, error) {
	var failures []failure
	for _, attempt := range []func() (string, *failure){
		func() (string, *failure) { return b.buildHere(ctx, dir, name) },
		func() (string, *failure) { return b.buildInSource(ctx, dir, name) },
		func() (string, *failure) { return b.install(ctx, dir) },
	} {
		path, f := attempt()
		if f == nil {
			return path, nil
		}
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("no full build: %w", err)
		}
		failures = append(failures, *f)
	}
	return "", b.noBuild(failures)
}

// tagsFlag is the -tags value of the full build: the light build's tags and Tag.
func (b binary) tagsFlag() string {
	t := tags(b.info)
	if !hasTag(b.info) {
		t = append(t, Tag)
	}
	return strings.Join(t, ",")
}

// buildHere builds b's main package in the module graph of the current
// directory (b.dir): a user's module requiring immutable-gen (run by go
// run, by a go:generate line or by a Makefile), or immutable-gen's own.
func (b binary) buildHere(ctx context.Context, dir, name string) (string, *failure) {
	where := b.dir
	if where == "" {
		where, _ = os.Getwd()
	}
	return b.buildIn(ctx, where, dir, name)
}

// buildInSource builds b's main package in the source tree it was built
// from, when the binary records one that is still there: a binary built in
// a clone of immutable-gen (go build ./cmd/immutable-gen) and run anywhere
// else. The product must still match the binary (check): a tree changed
// since gives no full build.
func (b binary) buildInSource(ctx context.Context, dir, name string) (string, *failure) {
	where := b.dir
	if where == "" {
		where, _ = os.Getwd()
	}
	switch {
	case b.source == "":
		return "", &failure{command: fmt.Sprintf("go build -tags %s -o FILE %s", b.tagsFlag(), b.info.Path),
			why: "not tried: the binary records no source tree of its own (built with -trimpath, or the tree is gone)"}
	case filepath.Clean(b.source) == filepath.Clean(where):
		return "", &failure{command: fmt.Sprintf("go build -tags %s -o FILE %s", b.tagsFlag(), b.info.Path), dir: b.source,
			why: "not tried again: it is the current directory"}
	}
	return b.buildIn(ctx, b.source, dir, name)
}

// buildIn builds b's main package with go build in the module graph of
// the directory where, into dir.
func (b binary) buildIn(ctx context.Context, where, dir, name string) (string, *failure) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", b.tagsFlag(), b.buildVCS(), "-o", out, b.info.Path)
	cmd.Dir = where
	cmd.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	f := &failure{command: fmt.Sprintf("go build -tags %s -o FILE %s", b.tagsFlag(), b.info.Path), dir: where}
	if why, stderr := b.runGo(cmd, out); why != "" {
		f.why, f.stderr = why, stderr
		return "", f
	}
	return out, nil
}

// sourceTree returns the root of the module tree this package was compiled
// from, as the binary records it (the file names in its symbol table), when
// it is an absolute path that still holds a go.mod: "" when built with
// -trimpath or when the tree is gone. The root is the parent of this
// package's directory (fullbuild/ is at the root of immutable-gen's module).
func sourceTree() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	root := filepath.Dir(filepath.Dir(file))
	if fi, err := os.Stat(filepath.Join(root, "go.mod")); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return root
}

// buildVCS is the -buildvcs flag that stamps the full build with version
// control information as the light build is stamped: the main module's
// version is derived from it, and go run and go tool do not stamp where go
// build does.
func (b binary) buildVCS() string {
	for _, s := range b.info.Settings {
		if s.Key == "vcs" {
			return "-buildvcs=true"
		}
	}
	return "-buildvcs=false"
}

// install builds b's main package at the version of its module that b was
// built from (go install …@version), outside any module: for binaries
// installed that way and run anywhere.
func (b binary) install(ctx context.Context, dir string) (string, *failure) {
	m := b.info.Main
	f := &failure{command: fmt.Sprintf("go install -tags %s %s@%s", b.tagsFlag(), b.info.Path, m.Version)}
	switch {
	case !within(b.info.Path, m.Path):
		f.why = fmt.Sprintf("not tried: the binary's package %s is not in its main module %s", b.info.Path, m.Path)
		return "", f
	case m.Version == "" || m.Version == "(devel)":
		f.why = fmt.Sprintf("not tried: the binary was built in its module's own tree (version %q), not installed from a released version", m.Version)
		f.command = fmt.Sprintf("go install -tags %s %s@VERSION", b.tagsFlag(), b.info.Path)
		return "", f
	}
	gobin, err := os.MkdirTemp(dir, "gobin-")
	if err != nil {
		f.why = err.Error()
		return "", f
	}
	outside, err := os.MkdirTemp("", "immutable-gen-install-")
	if err != nil {
		f.why = err.Error()
		return "", f
	}
	defer os.RemoveAll(outside)
	cmd := exec.CommandContext(ctx, "go", "install", "-tags", b.tagsFlag(), b.info.Path+"@"+m.Version)
	cmd.Dir = outside
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOWORK=off", "GOFLAGS="+withoutModFlags(os.Getenv("GOFLAGS")),
		"GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if out, err := cmd.Output(); err != nil {
		f.why, f.stderr = goError(err, out)
		return "", f
	}
	// The one file go install wrote, named after the package path's last
	// element (before a major version suffix).
	entries, err := os.ReadDir(gobin)
	if err != nil || len(entries) != 1 {
		f.why = fmt.Sprintf("go install left %d files in GOBIN, want 1", len(entries))
		return "", f
	}
	out := filepath.Join(gobin, entries[0].Name())
	if why := b.check(out); why != "" {
		f.why = why
		return "", f
	}
	return out, nil
}

// runGo runs a go build writing out and checks the product; it returns why
// there is no full build, "" when out is one.
func (b binary) runGo(cmd *exec.Cmd, out string) (string, []string) {
	if output, err := cmd.Output(); err != nil {
		return goError(err, output)
	}
	if why := b.check(out); why != "" {
		os.Remove(out)
		return why, nil
	}
	return "", nil
}

// goError describes a go command that failed: one line and the last lines
// of its error output.
func goError(err error, stdout []byte) (string, []string) {
	var stderr []byte
	if exit, ok := err.(*exec.ExitError); ok {
		stderr = exit.Stderr
	}
	lines := strings.Split(strings.TrimSpace(string(bytes.Join([][]byte{stderr, stdout}, nil))), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	if len(lines) > stderrLines {
		lines = lines[len(lines)-stderrLines:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…"
		}
	}
	return "failed: " + err.Error(), lines
}

// check returns why the binary at path is not a full build of b, "" when it is.
func (b binary) check(path string) string {
	got, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("the product has no build information: %v", err)
	}
	if !hasTag(got) {
		return fmt.Sprintf("the product was built without -tags %s", Tag)
	}
	if why := sameBuild(b.info, got); why != "" {
		return "the build does not match this binary (another module graph or version), discarded: " + why
	}
	return ""
}

// sameBuild returns how the full build full differs from the light build
// light, "" when it does not: the same main package and main module, and
// every module of the light build in the same version, checksum and
// replacement. The full build links more modules than the light one (the
// API server's); those it has in addition are not compared.
func sameBuild(light, full *debug.BuildInfo) string {
	if light.Path != full.Path {
		return fmt.Sprintf("main package %s here, %s in the build", light.Path, full.Path)
	}
	if !sameModule(&light.Main, &full.Main) {
		return fmt.Sprintf("main module %s here, %s in the build", module(&light.Main), module(&full.Main))
	}
	deps := make(map[string]*debug.Module, len(full.Deps))
	for _, d := range full.Deps {
		deps[d.Path] = d
	}
	for _, d := range light.Deps {
		got, ok := deps[d.Path]
		if !ok {
			return fmt.Sprintf("%s here, missing in the build", module(d))
		}
		if !sameModule(d, got) {
			return fmt.Sprintf("%s here, %s in the build", module(d), module(got))
		}
	}
	return ""
}

func sameModule(a, b *debug.Module) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Path == b.Path && a.Version == b.Version && a.Sum == b.Sum && sameModule(a.Replace, b.Replace)
}

// module formats m as go version -m does: path version [sum] [=> replacement].
func module(m *debug.Module) string {
	s := m.Path
	if m.Version != "" {
		s += " " + m.Version
	}
	if m.Sum != "" {
		s += " " + m.Sum
	}
	if m.Replace != nil {
		s += " => " + module(m.Replace)
	}
	return s
}

// within reports whether package pkg is in the module mod (by path).
func within(pkg, mod string) bool {
	return mod != "" && (pkg == mod || strings.HasPrefix(pkg, mod+"/"))
}

// withoutModFlags returns goflags without -mod and -modfile, which go
// install pkg@version refuses.
func withoutModFlags(goflags string) string {
	var kept []string
	for _, f := range strings.Fields(goflags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name == "mod" || name == "modfile" {
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " ")
}

// noBuild is the error when no attempt gave a full build: each attempt and
// why it failed, and how to build one by hand.
func (b binary) noBuild(failures []failure) error {
	var s strings.Builder
	m := b.info.Main
	fmt.Fprintf(&s, "no full build of this immutable-gen binary (%s, module %s %s) to run lint, check-update and the API server's CRD validation in:", b.info.Path, m.Path, m.Version)
	for _, f := range failures {
		fmt.Fprintf(&s, "\n  %s", f.command)
		if f.dir != "" {
			fmt.Fprintf(&s, " (in %s)", f.dir)
		}
		fmt.Fprintf(&s, ": %s", f.why)
		for _, l := range f.stderr {
			fmt.Fprintf(&s, "\n      %s", l)
		}
	}
	fmt.Fprintf(&s, "\nbuild one and name it in %s:", EnvVar)
	fmt.Fprintf(&s, "\n  go build -tags %s -o FILE %s   (in the module this binary was built in)", Tag, b.info.Path)
	if within(b.info.Path, m.Path) && m.Version != "" && m.Version != "(devel)" {
		fmt.Fprintf(&s, "\n  or: GOBIN=DIR go install -tags %s %s@%s   (FILE is then in DIR)", Tag, b.info.Path, m.Version)
	}
	fmt.Fprintf(&s, "\n  %s=FILE", EnvVar)
	return fmt.Errorf("%s", s.String())
}
