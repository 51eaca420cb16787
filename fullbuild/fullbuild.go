// Package fullbuild finds, or builds once and caches, the full build of the
// running immutable-gen binary, and runs it.
//
// immutable-gen comes in two builds of the same main package. The default,
// light build has controller-gen's generators and the immutability
// compilation; it does not link the API server's CRD validation
// (apiextensions-apiserver's, which brings gRPC, OpenTelemetry and client-go
// with it), so that generating an API without markers costs what
// controller-gen costs. The full build, go build -tags immutablegen_full,
// links lint, check-update and that validation in process. When the light
// build needs them, it runs the full build as a child process: Run for a
// whole subcommand, CRDValidator (a validation.Server; ServeCRDValidation
// in the child) for the CRD validation of the CRDs with markers a
// generation run writes.
//
// The full build of a binary is, in this order: the file $IMMUTABLE_GEN_FULL
// names (it must be a full build); the one cached for this binary, keyed by
// its Go build ID, under full/ in immutable-gen's cache directory (package
// cache; trimmed with the cache's entries when unused for five days); or one
// built now, once per binary: go build -tags immutablegen_full in the
// current directory's module (go run, go tool, go:generate, a Makefile, this
// repository), else the same in the source tree the binary was built from
// (go build ./cmd/immutable-gen in a clone, the binary run anywhere), else
// go install -tags immutablegen_full …@VERSION of the released version the
// binary was installed from; on a terminal, a one-line note says so first
// (OnTerminal). A build is kept only when
// its build information has the same main module and the same module
// versions as the running binary; else the error says what was tried and how
// to build one by hand.
package fullbuild

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/immutable-gen/immutable-gen/cache"
)

// Tag is the build tag that selects the full build.
const Tag = "immutablegen_full"

// EnvVar names the environment variable that names a full build to use;
// nothing is built or cached when it is set (empty is unset).
const EnvVar = "IMMUTABLE_GEN_FULL"

// cacheSubdir is the subdirectory of the cache directory that holds the full
// builds, one directory per binary; package cache trims it.
const cacheSubdir = "full"

// Locate returns the path of a full build of the running binary:
// $IMMUTABLE_GEN_FULL when set; else the one cached for this binary; else one
// built now, after a line on notes saying what is built and why, that this
// happens once per immutable-gen binary, and how IMMUTABLE_GEN_FULL avoids
// it. notes may be nil. cleanup removes a build that could not be cached
// (the cache is off or cannot be written); it is never nil, and is to be
// called once the build has run.
func Locate(ctx context.Context, notes io.Writer) (path string, cleanup func(), err error) {
	self, err := running()
	if err != nil {
		return "", func() {}, err
	}
	return self.locate(ctx, notes)
}

// Run runs the full build of the running binary (Locate, its note on
// stderr when that is a terminal: OnTerminal)
// with args, the given standard streams and the inherited environment, and
// returns its exit code. When there is no full build, it prints why on
// stderr and returns 2. When the full build cannot be started, or is ended
// by a signal (ctx done, say), it prints the error on stderr and returns 1.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	path, cleanup, err := Locate(ctx, OnTerminal(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "immutable-gen: %v\n", err)
		return 2
	}
	defer cleanup()
	return run(ctx, path, args, stdin, stdout, stderr)
}

// OnTerminal returns w when it is a terminal (a character device), else
// io.Discard: Locate's one-line note about building the full build is for
// a person watching the run, not for the output a script or a test reads
// (lint's and check-update's stderr are part of their contract).
func OnTerminal(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return w
		}
	}
	return io.Discard
}

func run(ctx context.Context, path string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	default:
		fmt.Fprintf(stderr, "immutable-gen: full build %s: %v\n", path, err)
		return 1
	}
}

// binary is what Locate needs to know of the light binary: its executable
// (keying the cache) and its build information (what the full build is
// built from and must match). Tests point it at throwaway modules.
type binary struct {
	exe  string
	info *debug.BuildInfo
	// dir is where the first build attempt runs: the current directory
	// when empty.
	dir string
	// source is the root of the source tree the binary was built from
	// (sourceTree), where the second attempt runs; "" when unknown.
	source string
}

// running returns the running binary.
func running() (binary, error) {
	exe, err := os.Executable()
	if err != nil {
		return binary{}, fmt.Errorf("no full build: cannot find the running executable: %v", err)
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return binary{}, fmt.Errorf("no full build: the running executable %s has no build information; set %s to a full build (go build -tags %s)", exe, EnvVar, Tag)
	}
	return binary{exe: exe, info: info, source: sourceTree()}, nil
}

func (b binary) locate(ctx context.Context, notes io.Writer) (string, func(), error) {
	nop := func() {}
	if env := os.Getenv(EnvVar); env != "" { // empty is unset, as for GOFLAGS
		path, err := fromEnv(env)
		return path, nop, err
	}
	if notes == nil {
		notes = io.Discard
	}
	name := "immutable-gen"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var final string // the cached build's path; "" when there is no cache
	if dir, ok := cache.Dir(); ok {
		if key, err := binaryKey(b.exe); err == nil {
			final = filepath.Join(dir, cacheSubdir, key, name)
			if fi, err := os.Stat(final); err == nil && fi.Mode().IsRegular() {
				cache.Touch(final)
				return final, nop, nil
			}
		}
	}

	// Built into a fresh directory beside the final path and renamed into
	// place, so that concurrent runs (make -j) never run a partial binary;
	// each may build, the last rename wins. Without a usable cache, the
	// build stays in a temporary directory that cleanup removes.
	var tmp string
	if final != "" {
		if err := os.MkdirAll(filepath.Dir(final), 0o755); err == nil {
			tmp, _ = os.MkdirTemp(filepath.Dir(final), ".tmp-")
		}
	}
	if tmp == "" {
		final = ""
		var err error
		if tmp, err = os.MkdirTemp("", "immutable-gen-full-"); err != nil {
			return "", nop, fmt.Errorf("no full build: %v", err)
		}
	}
	cleanup := func() { os.RemoveAll(tmp) }
	how := "once per immutable-gen binary, then cached"
	if final == "" {
		how = "on every run while the cache is off or cannot be written (" + cache.EnvVar + ")"
	}
	fmt.Fprintf(notes, "immutable-gen: building the full build of this binary (go build -tags %s %s), which lint, check-update and the API server's CRD validation run in: %s; set %s to a full build to skip this\n", Tag, b.info.Path, how, EnvVar)

	built, err := b.build(ctx, tmp, name)
	if err != nil {
		cleanup()
		return "", nop, err
	}
	if final == "" {
		return built, cleanup, nil
	}
	defer cleanup()
	if err := os.Rename(built, final); err != nil {
		if fi, serr := os.Stat(final); serr != nil || !fi.Mode().IsRegular() {
			return "", nop, fmt.Errorf("no full build: %v", err)
		}
		// A concurrent run's build is in place.
	}
	cache.Trim()
	return final, nop, nil
}

// fromEnv checks the full build $IMMUTABLE_GEN_FULL names.
func fromEnv(env string) (string, error) {
	path, err := filepath.Abs(env)
	if err != nil {
		return "", fmt.Errorf("%s=%s: %v", EnvVar, env, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s=%s: no such file", EnvVar, env)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s=%s is not a regular file; it names a full build of immutable-gen (go build -tags %s)", EnvVar, env, Tag)
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s=%s is not a Go binary with build information (%v); it names a full build of immutable-gen (go build -tags %s)", EnvVar, env, err, Tag)
	}
	if !hasTag(info) {
		return "", fmt.Errorf("%s=%s is not a full build: it was built without -tags %s (go build -tags %s)", EnvVar, env, Tag, Tag)
	}
	return path, nil
}

// tags returns the build tags info was built with.
func tags(info *debug.BuildInfo) []string {
	for _, s := range info.Settings {
		if s.Key == "-tags" && s.Value != "" {
			return strings.Split(s.Value, ",")
		}
	}
	return nil
}

// hasTag reports whether info is a full build's.
func hasTag(info *debug.BuildInfo) bool {
	for _, t := range tags(info) {
		if t == Tag {
			return true
		}
	}
	return false
}
