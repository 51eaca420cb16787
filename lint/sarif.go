package lint

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// DocsURI is where each finding is documented (docs/lint.md#igNNN).
const DocsURI = "https://github.com/immutable-gen/immutable-gen/blob/main/docs/lint.md"

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

// sarifURI is a file as a SARIF artifact location: relative paths as
// URI references, absolute ones as file URIs.
func sarifURI(file string) string {
	p := filepath.ToSlash(file)
	if filepath.IsAbs(file) {
		return "file://" + p
	}
	return p
}

// SARIF renders the result as a SARIF 2.1.0 log for code-scanning tools:
// one run of immutable-gen lint, a rule per check of the catalog, a result
// per finding at its file and line (logical location: CRD/VERSION PATH,
// with the fix in the message), and the inputs that could not be used as
// tool execution notifications.
func (r Result) SARIF() ([]byte, error) {
	type msg struct {
		Text string `json:"text"`
	}
	type region struct {
		StartLine int `json:"startLine"`
	}
	type artifact struct {
		URI string `json:"uri"`
	}
	type physical struct {
		ArtifactLocation artifact `json:"artifactLocation"`
		Region           *region  `json:"region,omitempty"`
	}
	type logical struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	type location struct {
		PhysicalLocation physical  `json:"physicalLocation"`
		LogicalLocations []logical `json:"logicalLocations,omitempty"`
	}
	type result struct {
		RuleID    string     `json:"ruleId"`
		RuleIndex int        `json:"ruleIndex"`
		Level     string     `json:"level"`
		Message   msg        `json:"message"`
		Locations []location `json:"locations"`
	}
	type rule struct {
		ID                   string            `json:"id"`
		ShortDescription     msg               `json:"shortDescription"`
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
		rules[i] = rule{
			ID: string(c.ID), ShortDescription: msg{c.Title},
			HelpURI:              DocsURI + "#" + strings.ToLower(string(c.ID)),
			DefaultConfiguration: map[string]string{"level": sarifLevel(c.Severity)},
		}
	}
	results := []result{}
	for _, f := range r.Findings {
		loc := location{PhysicalLocation: physical{ArtifactLocation: artifact{sarifURI(f.Pos.Filename)}}}
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
		results = append(results, result{RuleID: string(f.ID), RuleIndex: index[string(f.ID)], Level: sarifLevel(f.Severity), Message: msg{text}, Locations: []location{loc}})
	}
	notes := []notification{}
	for _, e := range r.Errors {
		n := notification{Level: "error", Message: msg{e.Message}}
		if e.File != "" {
			n.Locations = []location{{PhysicalLocation: physical{ArtifactLocation: artifact{sarifURI(e.File)}}}}
		}
		notes = append(notes, n)
	}
	for _, h := range r.Helm {
		notes = append(notes, notification{Level: "warning", Message: msg{"a Helm template, not linted: render it first (helm template CHART | immutable-gen lint -)"},
			Locations: []location{{PhysicalLocation: physical{ArtifactLocation: artifact{sarifURI(h)}}}}})
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool": map[string]any{"driver": map[string]any{
				"name": "immutable-gen lint", "informationUri": DocsURI, "rules": rules,
			}},
			"invocations": []invocation{{ExecutionSuccessful: len(r.Errors) == 0, ToolExecutionNotifications: notes}},
			"results":     results,
		}},
	}
	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
