package lint

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/parser"
	"golang.org/x/sync/errgroup"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/runtime/manifest"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Files lints the manifests at paths: files of any name, and directories,
// searched recursively for *.yaml, *.yml and *.json (directories whose names
// start with "." are left out). Files are linted in parallel, results are
// reported in input order. The error joins every input that could not be
// used — a file that cannot be read, YAML that does not parse, a CRD that
// cannot be decoded — each with its file (and document); the Result holds
// the findings of everything else.
func Files(paths []string) (Result, error) {
	return FilesWithOptions(paths, Options{})
}

// FilesWithOptions is Files with options: findings a config file
// silences.
func FilesWithOptions(paths []string, opts Options) (Result, error) {
	l, err := newLinter()
	if err != nil {
		return Result{}, err
	}
	l.opts = opts
	// One job per file, or per path that cannot be expanded.
	type job struct {
		file string
		res  Result
		err  error
	}
	var jobs []*job
	var skipped []string
	for _, p := range paths {
		if p == "-" {
			jobs = append(jobs, &job{file: "-"})
			continue
		}
		files, err := expand(p)
		if err != nil {
			jobs = append(jobs, &job{err: err})
			continue
		}
		if len(files) == 0 {
			skipped = append(skipped, fmt.Sprintf("%s: no *.yaml, *.yml or *.json files", p))
		}
		for _, f := range files {
			jobs = append(jobs, &job{file: f})
		}
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range jobs {
		if j.err != nil {
			continue
		}
		g.Go(func() error {
			var data []byte
			var err error
			if j.file == "-" {
				data, err = io.ReadAll(os.Stdin)
			} else {
				data, err = os.ReadFile(j.file)
			}
			if err != nil {
				j.err = err
				return nil
			}
			j.err = l.manifest(&j.res, j.file, data)
			return nil
		})
	}
	g.Wait() // the errors are the jobs'

	res := Result{Skipped: skipped}
	var errs []error
	for _, j := range jobs {
		res.Findings = append(res.Findings, j.res.Findings...)
		res.Skipped = append(res.Skipped, j.res.Skipped...)
		res.Partial += j.res.Partial
		res.Helm = append(res.Helm, j.res.Helm...)
		res.CRDs += j.res.CRDs
		if j.err != nil {
			errs = append(errs, j.err)
			for _, e := range unjoin(j.err) {
				res.Errors = append(res.Errors, InputError{File: j.file, Message: e.Error()})
			}
		}
	}
	res.Silenced = int(l.silenced.Load())
	return res, errors.Join(errs...)
}

// Manifest lints the manifest data, named file in findings and errors.
func Manifest(file string, data []byte) (Result, error) {
	l, err := newLinter()
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = l.manifest(&res, file, data)
	res.Silenced = int(l.silenced.Load())
	return res, err
}

// expand returns path itself if it is a file, or the manifests below it if
// it is a directory.
func expand(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// linter holds what is reused across manifests; it is safe for concurrent
// use.
type linter struct {
	parser *parser.Parser
	opts   Options
	// silenced counts the findings silenced by annotations and opts.
	silenced atomic.Int64
}

func newLinter() (*linter, error) {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.EnableOptionalSyntax(true))
	if err != nil {
		return nil, fmt.Errorf("CEL parser: %w", err)
	}
	return &linter{parser: p}, nil
}

// manifest lints every document of one file into res.
func (l *linter) manifest(res *Result, file string, data []byte) error {
	var errs []error
	if helmTemplate(file, data) {
		res.Helm = append(res.Helm, file)
		return nil
	}
	for doc := range manifest.Documents(data) {
		n, raw, line := doc.Number, doc.JSON, doc.Line
		if doc.Err != nil {
			errs = append(errs, fmt.Errorf("%s: document %d: %s", file, n, syntaxError(doc.Err)))
			continue
		}
		var h header
		if err := json.Unmarshal(raw, &h); err != nil {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: document %d is not an object", file, n))
			continue
		}
		before := len(res.Findings)
		if err := l.object(res, file, fmt.Sprintf("document %d", n), raw, h); err != nil {
			errs = append(errs, err)
		}
		// Place the document's findings in its YAML.
		if len(res.Findings) > before {
			var lines []yline
			if doc.YAML != nil {
				lines = yamlLines(doc.YAML, line)
			}
			for i := before; i < len(res.Findings); i++ {
				f := &res.Findings[i]
				f.Pos.Line = line
				if lines != nil {
					f.Pos.Line = schemaLine(lines, f.CRD, f.Version, f.Path)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// syntaxError words a document that does not parse as lint always has:
// "invalid YAML: …" or "invalid JSON: …".
func syntaxError(err error) string {
	var se *manifest.SyntaxError
	if errors.As(err, &se) {
		return "invalid " + se.Format + ": " + se.Err.Error()
	}
	return err.Error()
}

// unjoin returns the errors joined in err.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// object lints one document, or the items of a List.
func (l *linter) object(res *Result, file, where string, raw []byte, h header) error {
	apiVersion, kind, name := h.APIVersion, h.Kind, h.Metadata.Name
	if kind == "CustomResourceDefinition" && strings.HasPrefix(apiVersion, "apiextensions.k8s.io/") {
		if missing := h.partial(); missing != nil {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s (%s CustomResourceDefinition %q) is a partial CustomResourceDefinition, a kustomize patch: it has no %s", file, where, apiVersion, name, strings.Join(missing, ", ")))
			res.Partial++
			return nil
		}
	}
	switch {
	case kind == "CustomResourceDefinition" && apiVersion == "apiextensions.k8s.io/v1":
		findings, err := l.crd(file, raw, name)
		res.CRDs++
		if err != nil {
			return fmt.Errorf("%s: %s: %w", file, where, err)
		}
		res.Findings = append(res.Findings, findings...)
		return nil
	case kind == "CustomResourceDefinition" && strings.HasPrefix(apiVersion, "apiextensions.k8s.io/"):
		return fmt.Errorf("%s: %s: %s CustomResourceDefinitions are not supported (API servers serve only apiextensions.k8s.io/v1 since Kubernetes 1.22): convert it to apiextensions.k8s.io/v1", file, where, apiVersion)
	case strings.HasSuffix(kind, "List") && apiVersion == "v1":
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		json.Unmarshal(raw, &list) // the items that are not objects are left out below
		var errs []error
		for i, item := range list.Items {
			var ih header
			if json.Unmarshal(item, &ih) != nil {
				continue
			}
			if err := l.object(res, file, fmt.Sprintf("%s item %d", where, i), item, ih); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	what := strings.TrimSpace(apiVersion + " " + kind)
	switch base := strings.ToLower(filepath.Base(file)); {
	case what == "" && (base == "kustomization.yaml" || base == "kustomization.yml"):
		what = "a kustomization"
	case what == "":
		what = "no apiVersion and kind"
	}
	res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s (%s) is not a CustomResourceDefinition", file, where, what))
	return nil
}

// header is what lint reads of every document before it knows it is a
// CRD: its type, name, and which of spec's fields it has.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group      hasField `json:"group"`
		Names      hasField `json:"names"`
		Versions   hasField `json:"versions"`
		Version    hasField `json:"version"`
		Validation hasField `json:"validation"`
	} `json:"spec"`
}

// hasField notes that a field is there, without keeping its value.
type hasField bool

func (p *hasField) UnmarshalJSON([]byte) error { *p = true; return nil }

// partial returns what a CustomResourceDefinition document lacks of
// spec.group, spec.names and spec.versions (spec.version or
// spec.validation in v1beta1) when it lacks two of them or more: such a
// document is not a CRD but a patch of one, as kustomize projects keep
// next to their CRDs (config/crd/patches/webhook_in_*.yaml,
// cainjection_in_*.yaml). It returns nil for a whole CRD, and for a CRD
// that lacks only one of them (a broken CRD, which the API server's
// validation reports).
func (h header) partial() []string {
	var missing []string
	if !h.Spec.Group {
		missing = append(missing, "spec.group")
	}
	if !h.Spec.Names {
		missing = append(missing, "spec.names")
	}
	if !h.Spec.Versions && !h.Spec.Version && !h.Spec.Validation {
		missing = append(missing, "spec.versions")
	}
	if len(missing) < 2 {
		return nil
	}
	return missing
}

// crd lints one apiextensions.k8s.io/v1 CRD given as JSON and as its
// generic tree.
func (l *linter) crd(file string, raw []byte, name string) ([]diag.Diagnostic, error) {
	c := &crdLint{linter: l, file: file, name: name, models: map[string]*schema.Node{}, immutable: map[string]map[string]string{}, immutableRules: map[string]map[string]string{}}
	// The API server's validation first, on the typed CRD, which is
	// released before the generic tree and the models are built.
	var annotations map[string]string
	stub, errs, ok, err := func() (*apiextensions.CustomResourceDefinition, []crdvalidation.ServerError, bool, error) {
		var crd apiextv1.CustomResourceDefinition
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &crd); err != nil {
			return nil, nil, false, fmt.Errorf("CustomResourceDefinition %q cannot be decoded: %v", name, err)
		}
		c.name, annotations = crd.Name, crd.Annotations
		stub, errs, ok := c.apiServer(&crd)
		return stub, errs, ok, nil
	}()
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %q cannot be decoded: %v", name, err)
	}
	spec, _ := obj["spec"].(map[string]any)
	c.group, _ = spec["group"].(string)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		name, _ := vm["name"].(string)
		c.order = append(c.order, name)
		sch, _ := vm["schema"].(map[string]any)
		rawSchema, ok := sch["openAPIV3Schema"].(map[string]any)
		if !ok || name == "" || c.models[name] != nil {
			continue // the API server's validation reports it
		}
		root := schema.FromExtensions(rawSchema)
		c.models[name] = root
		c.version = name
		c.extensions(root)
		// Only served versions can be written through: the holes of the
		// others cannot be used.
		if served, _ := vm["served"].(bool); served {
			c.served = append(c.served, name)
			before := len(c.findings)
			c.cel(root)
			c.ownRules(c.findings[before:])
			c.transitions(root)
		}
	}
	c.version = ""
	c.versionSkew()
	if ok {
		c.apiServerFindings(stub, errs)
	}
	findings := c.sorted()
	if ids := annotationIgnores(annotations); ids != nil {
		kept := findings[:0]
		for _, f := range findings {
			if ids[f.ID] {
				l.silenced.Add(1)
				continue
			}
			kept = append(kept, f)
		}
		findings = kept
	}
	if len(l.opts.Ignore) > 0 {
		kept := findings[:0]
		for _, f := range findings {
			if l.opts.silenced(f) {
				l.silenced.Add(1)
				continue
			}
			kept = append(kept, f)
		}
		findings = kept
	}
	return findings, nil
}

// ownRules puts first in the Rules of each IG010 and IG011 of the
// current version the immutability rule its message names, the field's
// own (the rules below it that its removal goes around follow it).
func (c *crdLint) ownRules(findings []diag.Diagnostic) {
	for i := range findings {
		f := &findings[i]
		if f.ID != IDPresence && f.ID != IDOnceSet || !strings.HasPrefix(f.Message, "immutable") {
			continue // a finding of crdLint.presence opens with "immutable by the rule" or "immutable once set"
		}
		r, ok := c.immutableRules[c.version][f.Path]
		if !ok || slices.ContainsFunc(f.Rules, func(x diag.RuleAt) bool { return x.Path == f.Path && x.Rule == r }) {
			continue
		}
		f.Rules = append([]diag.RuleAt{{Path: f.Path, Rule: r}}, f.Rules...)
	}
}

// crdLint collects the findings of one CRD.
type crdLint struct {
	*linter
	file, name string
	// group is the CRD's API group (spec.group).
	group string
	// models maps version names to their models; order lists the
	// versions as in the manifest.
	models map[string]*schema.Node
	order  []string
	// served lists the served versions; immutable maps each to the paths
	// made immutable there, and how.
	served    []string
	immutable map[string]map[string]string
	// immutableRules maps each served version to the immutability rules'
	// text by path (not the extensions).
	immutableRules map[string]map[string]string
	// version is the version being linted.
	version  string
	findings []diag.Diagnostic
}

func (c *crdLint) report(version, path string, id diag.ID, fix, format string, args ...any) {
	sev := Error
	for _, ch := range Catalog() {
		if ch.ID == id {
			sev = ch.Severity
		}
	}
	c.findings = append(c.findings, diag.Diagnostic{
		Pos: token.Position{Filename: c.file}, CRD: c.name, Version: version, Path: path,
		ID: id, Severity: sev, Message: fmt.Sprintf(format, args...), Fix: fix,
	})
}

// sorted returns the findings by version (manifest order), path, ID and
// message, without duplicates.
func (c *crdLint) sorted() []diag.Diagnostic {
	rank := func(v string) int {
		if i := slices.Index(c.order, v); i >= 0 {
			return i + 1
		}
		return 0 // the CRD itself first
	}
	out := slices.Clone(c.findings)
	slices.SortStableFunc(out, func(a, b diag.Diagnostic) int {
		return cmp.Or(
			cmp.Compare(rank(a.Version), rank(b.Version)),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.ID, b.ID),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return slices.CompactFunc(out, func(a, b diag.Diagnostic) bool { return Format(a) == Format(b) })
}

// helmAction matches the Go template actions of a Helm chart where YAML
// cannot hold them as text: a line (or a comment) that opens with a
// control action or an include ({{- if …}}, {{ include … }}, {{- end }}),
// or a value that is one ('{{ .Release.Name }}'). Templates shown in a
// description ("e.g. {{ .Release.Name }}-suffix") are neither.
var helmAction = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:#[^\n]*)?\{\{-?\s*(?:if|else|end|range|with|define|include|template|toYaml|tpl)\b|:\s*['"]?\{\{-?\s*(?:include|template|tpl|\.Values|\.Release|\.Chart)\b`)
})

// helmTemplate reports whether the file is a Helm template, to be
// rendered before it is linted: it holds Helm's template actions, or it
// sits in the templates directory of a chart and holds "{{".
func helmTemplate(file string, data []byte) bool {
	// Only the lines holding "{{" are matched: a large CRD may show a
	// template in a description or two.
	for rest := data; ; {
		i := bytes.Index(rest, []byte("{{"))
		if i < 0 {
			break
		}
		start := bytes.LastIndexByte(rest[:i], '\n') + 1
		end := len(rest)
		if j := bytes.IndexByte(rest[i:], '\n'); j >= 0 {
			end = i + j
		}
		if helmAction().Match(rest[start:end]) {
			return true
		}
		rest = rest[end:]
	}
	if !bytes.Contains(data, []byte("{{")) {
		return false
	}
	dir := filepath.Dir(file)
	if filepath.Base(dir) == "templates" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "Chart.yaml")); err == nil {
			return true
		}
	}
	return false
}
