package lint

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/docs"
)

// DocsURI is where each finding is documented (docs/lint.md#igNNN).
const DocsURI = "https://github.com/immutable-gen/immutable-gen/blob/main/docs/lint.md"

// SrcRoot is the SARIF uriBaseId of the paths inside the working directory,
// the one GitHub's code scanning resolves against the repository's root.
const SrcRoot = "%SRCROOT%"

// SARIFOptions are what a SARIF log says that the result does not know.
type SARIFOptions struct {
	// Version is the version of immutable-gen that linted: the log's
	// tool.driver.version.
	Version string
	// WorkDir is the absolute directory the paths of the findings are
	// relative to (the working directory of the run). Files inside it are
	// written as URIs relative to SrcRoot, whose originalUriBaseIds entry
	// is WorkDir; files outside it as absolute file URIs. Empty: every
	// path as given, relative ones as relative references without a base.
	WorkDir string
}

// sarifLevel is SARIF's word for a severity.
func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// sarifArtifact is a file as a SARIF artifactLocation.
type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// artifact places file: relative to SrcRoot inside workDir, an absolute
// file URI outside it, standard input ("-") as it is named.
func artifact(file, workDir string) sarifArtifact {
	if file == "-" || workDir == "" {
		if filepath.IsAbs(file) {
			return sarifArtifact{URI: fileURI(file)}
		}
		return sarifArtifact{URI: (&url.URL{Path: filepath.ToSlash(file)}).String()}
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workDir, file)
	}
	if rel, err := filepath.Rel(workDir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return sarifArtifact{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: SrcRoot}
	}
	return sarifArtifact{URI: fileURI(abs)}
}

// fileURI is an absolute path as a file URI (file:///dir/f.yaml,
// file:///C:/dir/f.yaml), its characters escaped as a URI needs.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// dirURI is a directory as the absolute file URI SARIF wants for a base:
// ending in a slash.
func dirURI(dir string) string {
	u := fileURI(dir)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// ruleDoc is a check's documentation as SARIF shows it: its first
// paragraph (fullDescription) and its whole section (help).
type ruleDoc struct{ summary, markdown string }

// mdLink matches a Markdown link's target.
var mdLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\]\(([^)\s]+)\)`) })

// ruleDocs are the sections "### IGNNN" of docs/lint.md, by ID, their
// relative links made absolute (the help is read outside the repository).
var ruleDocs = sync.OnceValue(func() map[diag.ID]ruleDoc {
	base, _ := url.Parse(DocsURI)
	out := map[diag.ID]ruleDoc{}
	sections := strings.Split(docs.Lint, "\n### ")
	for _, s := range sections[1:] {
		id, body, _ := strings.Cut(s, "\n")
		if end := strings.Index(body, "\n## "); end >= 0 {
			body = body[:end]
		}
		body = strings.TrimSpace(body)
		body = mdLink().ReplaceAllStringFunc(body, func(m string) string {
			target := m[2 : len(m)-1]
			u, err := url.Parse(target)
			if err != nil || u.IsAbs() {
				return m
			}
			return "](" + base.ResolveReference(u).String() + ")"
		})
		summary, _, _ := strings.Cut(body, "\n\n")
		summary = strings.Join(strings.Fields(strings.ReplaceAll(summary, "**", "")), " ")
		out[diag.ID(strings.TrimSpace(id))] = ruleDoc{summary, body}
	}
	return out
})

// SARIF renders the result as a SARIF 2.1.0 log for code-scanning tools:
// one run of immutable-gen lint (its version), a rule per check of the
// catalog (its title, the first paragraph of its documentation, the whole
// section as help, and its link), a result per finding at its file and line
// (logical location: CRD/VERSION PATH, with the fix in the message, and
// the rules it is about as a property), and the inputs that could not be
// used as tool execution notifications. Files inside opts.WorkDir are
// relative to SrcRoot.
func (r Result) SARIF(opts SARIFOptions) ([]byte, error) {
	type msg struct {
		Text string `json:"text"`
	}
	type multiformat struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	type region struct {
		StartLine int `json:"startLine"`
	}
	type physical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *region       `json:"region,omitempty"`
	}
	type logical struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	type location struct {
		PhysicalLocation physical  `json:"physicalLocation"`
		LogicalLocations []logical `json:"logicalLocations,omitempty"`
	}
	type properties struct {
		Rules []diag.RuleAt `json:"rules"`
	}
	type result struct {
		RuleID     string      `json:"ruleId"`
		RuleIndex  int         `json:"ruleIndex"`
		Level      string      `json:"level"`
		Message    msg         `json:"message"`
		Locations  []location  `json:"locations"`
		Properties *properties `json:"properties,omitempty"`
	}
	type rule struct {
		ID                   string            `json:"id"`
		ShortDescription     msg               `json:"shortDescription"`
		FullDescription      multiformat       `json:"fullDescription"`
		Help                 multiformat       `json:"help"`
		HelpURI              string            `json:"helpUri"`
		DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	}
	type notification struct {
		Level     string     `json:"level"`
		Message   msg        `json:"message"`
		Locations []location `json:"locations,omitempty"`
	}
	type invocation struct {
		ExecutionSuccessful        bool           `json:"executionSuccessful"`
		ToolExecutionNotifications []notification `json:"toolExecutionNotifications"`
	}
	catalog := Catalog()
	index := map[string]int{}
	rules := make([]rule, len(catalog))
	for i, c := range catalog {
		index[string(c.ID)] = i
		uri := DocsURI + "#" + strings.ToLower(string(c.ID))
		d := ruleDocs()[c.ID]
		if d.summary == "" {
			d.summary = c.Title // TestCatalogDocumented fails first
		}
		rules[i] = rule{
			ID: string(c.ID), ShortDescription: msg{c.Title},
			FullDescription:      multiformat{Text: d.summary},
			Help:                 multiformat{Text: d.summary + " " + uri, Markdown: d.markdown},
			HelpURI:              uri,
			DefaultConfiguration: map[string]string{"level": sarifLevel(c.Severity)},
		}
	}
	place := func(file string) sarifArtifact { return artifact(file, opts.WorkDir) }
	results := []result{}
	for _, f := range r.Findings {
		loc := location{PhysicalLocation: physical{ArtifactLocation: place(f.Pos.Filename)}}
		if f.Pos.Line > 0 {
			loc.PhysicalLocation.Region = &region{f.Pos.Line}
		}
		name := f.CRD
		if f.Version != "" {
			name += "/" + f.Version
		}
		loc.LogicalLocations = []logical{{FullyQualifiedName: name + " " + f.Path, Kind: "member"}}
		text := f.Message
		if f.Fix != "" {
			text += ". Fix: " + f.Fix
		}
		res := result{RuleID: string(f.ID), RuleIndex: index[string(f.ID)], Level: sarifLevel(f.Severity), Message: msg{text}, Locations: []location{loc}}
		if len(f.Rules) > 0 {
			res.Properties = &properties{f.Rules}
		}
		results = append(results, res)
	}
	notes := []notification{}
	for _, e := range r.Errors {
		n := notification{Level: "error", Message: msg{e.Message}}
		if e.File != "" {
			n.Locations = []location{{PhysicalLocation: physical{ArtifactLocation: place(e.File)}}}
		}
		notes = append(notes, n)
	}
	for _, h := range r.Helm {
		notes = append(notes, notification{Level: "warning", Message: msg{"a Helm template, not linted: render it first (helm template CHART | immutable-gen lint -)"},
			Locations: []location{{PhysicalLocation: physical{ArtifactLocation: place(h)}}}})
	}
	driver := map[string]any{"name": "immutable-gen lint", "informationUri": DocsURI, "rules": rules}
	if opts.Version != "" {
		driver["version"] = opts.Version
	}
	run := map[string]any{
		"tool":        map[string]any{"driver": driver},
		"invocations": []invocation{{ExecutionSuccessful: len(r.Errors) == 0, ToolExecutionNotifications: notes}},
		"results":     results,
	}
	if opts.WorkDir != "" {
		run["originalUriBaseIds"] = map[string]any{SrcRoot: map[string]string{"uri": dirURI(opts.WorkDir)}}
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs":    []any{run},
	}
	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
