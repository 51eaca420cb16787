// Package output makes a generator run all-or-nothing. It stands in for
// controller-tools' output rules while the generators run, keeps every
// artifact in memory, and writes them only when the whole run succeeded:
// each one to a temporary file beside its destination, then all renamed into
// place. A failing run leaves every existing file untouched. Stale compares
// them with the files on disk instead of writing (--check).
package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
)

// Artifact is one file a generator produced.
type Artifact struct {
	// Rule is the output rule the generator was given.
	Rule genall.OutputRule
	// Pkg is the package for generated code, nil for config.
	Pkg *loader.Package
	// Path is the artifact's path as the generator named it.
	Path string
	// Data is the content.
	Data []byte
}

// Buffer collects artifacts in the order they are closed.
type Buffer struct {
	Artifacts []*Artifact
	// Stdout receives artifacts for output:stdout at Commit.
	Stdout io.Writer
}

// Rule returns an output rule that records into b what rule would write.
func (b *Buffer) Rule(rule genall.OutputRule) genall.OutputRule {
	return bufferedRule{buf: b, rule: rule}
}

type bufferedRule struct {
	buf  *Buffer
	rule genall.OutputRule
}

func (r bufferedRule) Open(pkg *loader.Package, path string) (io.WriteCloser, error) {
	return &pending{buf: r.buf, a: &Artifact{Rule: r.rule, Pkg: pkg, Path: path}}, nil
}

type pending struct {
	bytes.Buffer
	buf *Buffer
	a   *Artifact
}

func (p *pending) Close() error {
	p.a.Data = bytes.Clone(p.Bytes())
	p.buf.Artifacts = append(p.buf.Artifacts, p.a)
	return nil
}

// Destination resolves where rule writes path: a file path, "-" for
// standard output, or "" for nowhere.
func Destination(rule genall.OutputRule, pkg *loader.Package, path string) (string, error) {
	switch r := rule.(type) {
	case genall.OutputToDirectory:
		return filepath.Join(string(r), path), nil
	case genall.OutputArtifacts:
		if pkg == nil {
			return filepath.Join(string(r.Config), path), nil
		}
		if r.Code != "" {
			return filepath.Join(string(r.Code), path), nil
		}
		if len(pkg.CompiledGoFiles) == 0 {
			return "", fmt.Errorf("cannot output to a package with no path on disk")
		}
		return filepath.Join(filepath.Dir(pkg.CompiledGoFiles[0]), path), nil
	case nil:
		return "", nil
	}
	switch rule {
	case genall.OutputToNothing:
		return "", nil
	case genall.OutputToStdout:
		return "-", nil
	}
	return "", fmt.Errorf("unsupported output rule %T", rule)
}

// Commit writes every artifact: first all to temporary files beside their
// destinations, then renames them into place. If anything fails before the
// renames, the temporary files are removed and no destination is touched.
func (b *Buffer) Commit() error {
	type staged struct{ tmp, dst string }
	var stagedFiles []staged
	var stdout bytes.Buffer
	cleanup := func() {
		for _, s := range stagedFiles {
			os.Remove(s.tmp)
		}
	}
	for _, a := range b.Artifacts {
		dst, err := Destination(a.Rule, a.Pkg, a.Path)
		if err != nil {
			cleanup()
			return err
		}
		switch dst {
		case "":
			continue
		case "-":
			stdout.Write(a.Data)
			continue
		}
		tmp, err := stage(dst, a.Data)
		if err != nil {
			cleanup()
			return err
		}
		stagedFiles = append(stagedFiles, staged{tmp, dst})
	}
	var errs []error
	for _, s := range stagedFiles {
		if err := os.Rename(s.tmp, s.dst); err != nil {
			os.Remove(s.tmp)
			errs = append(errs, err)
		}
	}
	if stdout.Len() > 0 && b.Stdout != nil {
		if _, err := b.Stdout.Write(stdout.Bytes()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Stale returns the destinations, in the order of the artifacts, whose
// content on disk is not the artifact's (or that do not exist): what
// Commit would change. Artifacts for standard output or for nowhere have
// no file to compare and are left out. It writes nothing (--check).
func (b *Buffer) Stale() ([]string, error) {
	var stale []string
	for _, a := range b.Artifacts {
		dst, err := Destination(a.Rule, a.Pkg, a.Path)
		if err != nil {
			return nil, err
		}
		if dst == "" || dst == "-" {
			continue
		}
		have, err := os.ReadFile(dst)
		if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Equal(have, a.Data) {
			stale = append(stale, dst)
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// stage writes data to a new temporary file in dst's directory, with the
// mode dst has (0644 for a new file), and returns its name.
func stage(dst string, data []byte) (string, error) {
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(dst); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), mode)); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing %s: %w", dst, err)
	}
	return f.Name(), nil
}

// Header is the header text a generator's headerFile and year options ask
// for, as controller-gen's generators read it: the file read through the
// run (relative to where it runs), with " YEAR" replaced by " "+year. It is
// "" when file is "".
func Header(ctx *genall.GenerationContext, file, year string) (string, error) {
	if file == "" {
		return "", nil
	}
	b, err := ctx.ReadFile(file)
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(string(b), " YEAR", " "+year), nil
}

// HeaderHelp is the help of the headerFile and year options, worded as
// controller-gen's object generator words it.
func HeaderHelp() map[string]markers.DetailedHelp {
	return map[string]markers.DetailedHelp{
		"HeaderFile": {Summary: "specifies the header text (e.g. license) to prepend to generated files."},
		"Year":       {Summary: "specifies the year to substitute for \" YEAR\" in the header file."},
	}
}

// GoFileHead is the start of every Go file a generator writes, as
// controller-gen starts its own: the build constraint that keeps it out of
// `-tags ignore_autogenerated` builds, the user's boilerplate header (when
// not empty), and the line that marks the file generated.
func GoFileHead(header string) string {
	head := "//go:build !ignore_autogenerated\n\n"
	if header != "" {
		head += header + "\n\n"
	}
	return head + "// Code generated by immutable-gen. DO NOT EDIT.\n\n"
}
