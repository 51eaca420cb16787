package lint

import (
	"encoding/json"
	"go/token"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/diag"
)

// TestSARIFLocations: files inside the working directory are URIs
// relative to %SRCROOT% (which originalUriBaseIds resolves to the
// directory), files outside it absolute file URIs, escaped as URIs need
// (issue 31: an absolute input path was a file URI no code scanning could
// map to the repository).
func TestSARIFLocations(t *testing.T) {
	wd := filepath.FromSlash("/work/repo")
	for _, tc := range []struct {
		name, file string
		uri, base  string
	}{
		{"relative, inside", "config/crd/w.yaml", "config/crd/w.yaml", SrcRoot},
		{"absolute, inside", filepath.Join(wd, "config", "crd", "w.yaml"), "config/crd/w.yaml", SrcRoot},
		{"relative, outside", "../other/w.yaml", "file:///work/other/w.yaml", ""},
		{"absolute, outside", filepath.FromSlash("/tmp/crds/w.yaml"), "file:///tmp/crds/w.yaml", ""},
		{"a name with a space and a '#'", "crds/my w#1.yaml", "crds/my%20w%231.yaml", SrcRoot},
		{"a directory named like a scheme", "a:b/w.yaml", "./a:b/w.yaml", SrcRoot},
		{"the working directory's sibling with its name as prefix", filepath.FromSlash("/work/repo2/w.yaml"), "file:///work/repo2/w.yaml", ""},
		{"standard input", "-", "-", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Result{Findings: []diag.Diagnostic{{Pos: token.Position{Filename: tc.file, Line: 3}, CRD: "w.example.com", Version: "v1", Path: "spec", ID: IDOptionalAncestor, Severity: Warning, Message: "m", Fix: "f"}}}
			b, err := res.SARIF(SARIFOptions{Version: "v1.2.3", WorkDir: wd})
			if err != nil {
				t.Fatal(err)
			}
			var log struct {
				Runs []struct {
					OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
					Results            []struct {
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct {
									URI       string `json:"uri"`
									URIBaseID string `json:"uriBaseId"`
								}
							}
						}
					}
				}
			}
			if err := json.Unmarshal(b, &log); err != nil {
				t.Fatal(err)
			}
			got := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation
			if got.URI != tc.uri || got.URIBaseID != tc.base {
				t.Errorf("uri %q base %q, want %q %q", got.URI, got.URIBaseID, tc.uri, tc.base)
			}
			if _, err := url.Parse(got.URI); err != nil {
				t.Errorf("not a URI reference: %v", err)
			}
			if base := log.Runs[0].OriginalURIBaseIDs[SrcRoot].URI; base != "file:///work/repo/" {
				t.Errorf("originalUriBaseIds %s = %q, want file:///work/repo/", SrcRoot, base)
			}
		})
	}
}

// TestSARIFRequired checks a log of every kind of output (findings with
// and without a line, with rules, an unusable input, a Helm template)
// against the required properties and enumerations of the SARIF 2.1.0
// schema (sarif-schema-2.1.0.json), object by object. It is no validation
// against the schema itself: the schema cannot be had through the Go
// module proxy, so the test states what the schema requires of each
// object this log holds; and the driver's version and each rule's
// fullDescription and help, from docs/lint.md.
func TestSARIFRequired(t *testing.T) {
	res := Result{
		Findings: []diag.Diagnostic{
			{Pos: token.Position{Filename: "crds/w.yaml", Line: 9}, CRD: "w.example.com", Version: "v1", Path: "spec", ID: IDOptionalAncestor, Severity: Warning, Message: "m", Fix: "f",
				Rules: []diag.RuleAt{{Path: "spec.a", Rule: "self == oldSelf"}}},
			{Pos: token.Position{Filename: "/elsewhere/w.yaml"}, CRD: "w.example.com", Path: "<crd>.spec.names", ID: IDRefused, Severity: Error, Message: "m"},
			{Pos: token.Position{Filename: "crds/w.yaml", Line: 12}, CRD: "w.example.com", Version: "v1", Path: "spec.a", ID: IDDescribedOnly, Severity: Info, Message: "m", Fix: "f"},
		},
		Errors: []InputError{{File: "bad.yaml", Message: "bad.yaml: invalid YAML"}, {Message: "no such directory"}},
		Helm:   []string{"chart/templates/crd.yaml"},
	}
	b, err := res.SARIF(SARIFOptions{Version: "v1.2.3", WorkDir: filepath.FromSlash("/work/repo")})
	if err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	// need reports a property the schema requires of the object at path.
	need := func(obj any, path string, keys ...string) map[string]any {
		t.Helper()
		m, ok := obj.(map[string]any)
		if !ok {
			t.Fatalf("%s is not an object: %v", path, obj)
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no %q, which SARIF 2.1.0 requires", path, k)
			}
		}
		return m
	}
	list := func(v any, path string) []any {
		t.Helper()
		l, ok := v.([]any)
		if !ok {
			t.Fatalf("%s is not an array: %v", path, v)
		}
		return l
	}
	text := func(v any, path string) {
		t.Helper()
		if s, _ := need(v, path, "text")["text"].(string); s == "" {
			t.Errorf("%s.text is empty", path)
		}
	}
	levels := map[any]bool{"none": true, "note": true, "warning": true, "error": true}
	artifactLocation := func(v any, path string) {
		t.Helper()
		m := need(v, path)
		uri, _ := m["uri"].(string)
		if _, err := url.Parse(uri); err != nil || uri == "" {
			t.Errorf("%s.uri %q is not a URI reference", path, uri)
		}
		if base, ok := m["uriBaseId"]; ok && base != SrcRoot {
			t.Errorf("%s.uriBaseId %v", path, base)
		}
	}
	location := func(v any, path string) {
		t.Helper()
		phys := need(need(v, path)["physicalLocation"], path+".physicalLocation", "artifactLocation")
		artifactLocation(phys["artifactLocation"], path+".physicalLocation.artifactLocation")
		if r, ok := phys["region"]; ok {
			if line, _ := need(r, path+".region", "startLine")["startLine"].(float64); line < 1 {
				t.Errorf("%s.region.startLine %v < 1", path, line)
			}
		}
	}
	if log["version"] != "2.1.0" {
		t.Errorf("version %v", log["version"])
	}
	need(log, "sarifLog", "version", "runs")
	runs := list(log["runs"], "runs")
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	run := need(runs[0], "run", "tool")
	driver := need(need(run["tool"], "tool", "driver")["driver"], "driver", "name")
	if driver["version"] != "v1.2.3" {
		t.Errorf("driver.version %v, want v1.2.3", driver["version"])
	}
	rules := list(driver["rules"], "driver.rules")
	if len(rules) != len(Catalog()) {
		t.Errorf("%d rules, %d checks", len(rules), len(Catalog()))
	}
	for i, r := range rules {
		m := need(r, "rule", "id", "shortDescription", "fullDescription", "help", "helpUri")
		id, _ := m["id"].(string)
		for _, k := range []string{"shortDescription", "fullDescription", "help"} {
			text(m[k], id+"."+k)
		}
		if id != string(Catalog()[i].ID) {
			t.Errorf("rule %d is %s, want %s", i, id, Catalog()[i].ID)
		}
		full := m["fullDescription"].(map[string]any)["text"].(string)
		if strings.Contains(full, "**") || full == m["shortDescription"].(map[string]any)["text"] {
			t.Errorf("%s.fullDescription %q: want the first paragraph of docs/lint.md's section, as text", id, full)
		}
		md, _ := m["help"].(map[string]any)["markdown"].(string)
		if !strings.HasPrefix(md, "**") || strings.Contains(md, "](semantics.md") || strings.Contains(md, "\n### ") {
			t.Errorf("%s.help.markdown: want docs/lint.md's section ### %s, its links absolute: %.200q", id, id, md)
		}
		if level := need(m["defaultConfiguration"], id+".defaultConfiguration")["level"]; !levels[level] {
			t.Errorf("%s: level %v", id, level)
		}
	}
	for name, base := range need(run["originalUriBaseIds"], "originalUriBaseIds") {
		artifactLocation(base, "originalUriBaseIds."+name)
		if uri, _ := base.(map[string]any)["uri"].(string); !strings.HasPrefix(uri, "file:///") || !strings.HasSuffix(uri, "/") {
			t.Errorf("originalUriBaseIds.%s %q: want an absolute file URI ending in /", name, uri)
		}
	}
	results := list(run["results"], "results")
	if len(results) != len(res.Findings) {
		t.Fatalf("%d results, %d findings", len(results), len(res.Findings))
	}
	for i, r := range results {
		m := need(r, "result", "message", "ruleId", "ruleIndex", "level", "locations")
		text(m["message"], "result.message")
		if !levels[m["level"]] {
			t.Errorf("result %d: level %v", i, m["level"])
		}
		if idx, _ := m["ruleIndex"].(float64); int(idx) >= len(rules) || rules[int(idx)].(map[string]any)["id"] != m["ruleId"] {
			t.Errorf("result %d: ruleIndex %v does not name %v", i, m["ruleIndex"], m["ruleId"])
		}
		for _, l := range list(m["locations"], "result.locations") {
			location(l, "result.location")
		}
		if props, ok := m["properties"]; ok {
			if got := list(need(props, "result.properties", "rules")["rules"], "properties.rules"); len(got) != len(res.Findings[i].Rules) {
				t.Errorf("result %d: %d rules, want %d", i, len(got), len(res.Findings[i].Rules))
			}
		} else if len(res.Findings[i].Rules) > 0 {
			t.Errorf("result %d: no rules", i)
		}
	}
	invocations := list(run["invocations"], "invocations")
	inv := need(invocations[0], "invocation", "executionSuccessful")
	if inv["executionSuccessful"] != false {
		t.Errorf("executionSuccessful %v with unusable inputs", inv["executionSuccessful"])
	}
	notes := list(inv["toolExecutionNotifications"], "toolExecutionNotifications")
	if len(notes) != len(res.Errors)+len(res.Helm) {
		t.Errorf("%d notifications", len(notes))
	}
	for _, n := range notes {
		m := need(n, "notification", "message")
		text(m["message"], "notification.message")
		if !levels[m["level"]] {
			t.Errorf("notification level %v", m["level"])
		}
		if locs, ok := m["locations"]; ok {
			for _, l := range list(locs, "notification.locations") {
				location(l, "notification.location")
			}
		}
	}
}
