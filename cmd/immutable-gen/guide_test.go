package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// The guide holds its contents between these lines.
const (
	contentsBegin = "<!-- contents: every ## and ### heading; TestGuideContents keeps it equal (go test ./cmd/immutable-gen -update rewrites it) -->\n"
	contentsEnd   = "<!-- end of the contents -->\n"
)

// guideContents is the contents of a Markdown document: a link to every
// ## and ### heading outside fenced code, by GitHub's anchors.
func guideContents(doc string) string {
	var b strings.Builder
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		indent := ""
		title, ok := strings.CutPrefix(line, "## ")
		if !ok {
			if title, ok = strings.CutPrefix(line, "### "); !ok {
				continue
			}
			indent = "  "
		}
		anchor := githubAnchor(title)
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		fmt.Fprintf(&b, "%s- [%s](#%s)\n", indent, title, anchor)
	}
	return b.String()
}

// notInAnchor is what GitHub leaves out of a heading's anchor.
var notInAnchor = regexp.MustCompile(`[^\p{L}\p{N} _-]`)

// githubAnchor is the anchor GitHub gives a heading: lower case,
// punctuation but - and _ dropped, spaces as -.
func githubAnchor(title string) string {
	return strings.ReplaceAll(notInAnchor.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
}

// TestGuideContents: the guide's contents link every ## and ### section;
// -update rewrites them.
func TestGuideContents(t *testing.T) {
	path := filepath.Join(moduleRoot(t), "docs", "guide.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, contentsBegin), strings.Index(doc, contentsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no contents between %q and %q", path, contentsBegin, contentsEnd)
	}
	got, want := doc[i+len(contentsBegin):j], guideContents(doc[j:])
	if !strings.Contains(want, "- [Immutable once set](#immutable-once-set)\n") {
		t.Errorf("contents without Immutable once set:\n%s", want)
	}
	if got == want {
		return
	}
	if golden.Updating() {
		if err := os.WriteFile(path, []byte(doc[:i+len(contentsBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the guide's contents differ from its headings (go test ./cmd/immutable-gen -update):\n%s", golden.Diff(want, got))
}

// TestGithubAnchor: headings become GitHub's anchors, which the contents
// link to.
func TestGithubAnchor(t *testing.T) {
	for title, want := range map[string]string{
		"In CI: `--fail-on`, `-q`, `--check`":                    "in-ci---fail-on--q---check",
		"Immutable once set":                                     "immutable-once-set",
		"Typed validators: `immutable-gen validators`":           "typed-validators-immutable-gen-validators",
		"`=keys` on a map or a list map":                         "keys-on-a-map-or-a-list-map",
		"Migrating from hand-written rules and `+k8s:immutable`": "migrating-from-hand-written-rules-and-k8simmutable",
		"CEL (the default) or extensions and a runtime check":    "cel-the-default-or-extensions-and-a-runtime-check",
	} {
		if got := githubAnchor(title); got != want {
			t.Errorf("%q: %q, want %q", title, got, want)
		}
	}
}

// TestGuideVerdicts: the verdicts the guide's tables ("What immutable
// means") show are what the default output, the CEL CRD, gives: each
// update runs through check-update (the API server's validation) on the
// CRD generated from testdata/apis/guide, and the guide holds each message
// as check-update prints it.
func TestGuideVerdicts(t *testing.T) {
	crds := outDir(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"crd", "paths=../../testdata/apis/guide/...", "output:crd:dir=" + crds, "-q"}, &stdout, &stderr); code != 0 {
		t.Fatalf("crd: exit %d\n%s", code, &stderr)
	}
	guide, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		old, new string // spec, YAML flow
		want     string // check-update's line; "" allowed
	}{
		{"change an immutable optional field", `{engine: redis, storageClassName: fast}`, `{engine: redis, storageClassName: slow}`,
			`spec.storageClassName: Invalid value: "slow": field is immutable`},
		{"remove it", `{engine: redis, storageClassName: fast}`, `{engine: redis}`,
			`spec.storageClassName: Forbidden: storageClassName is an immutable field: it may not be added or removed after creation`},
		{"add it", `{engine: redis}`, `{engine: redis, storageClassName: fast}`,
			`spec.storageClassName: Forbidden: storageClassName is an immutable field: it may not be added or removed after creation`},
		{"leave it absent", `{engine: redis}`, `{engine: redis}`, ""},
		{"change a mutable field of an optional parent", `{engine: redis, backup: {bucket: a, schedule: daily}}`, `{engine: redis, backup: {bucket: a, schedule: hourly}}`, ""},
		{"change an immutable field of an optional parent", `{engine: redis, backup: {bucket: a}}`, `{engine: redis, backup: {bucket: b}}`,
			`spec.backup.bucket: Invalid value: "b": field is immutable`},
		{"remove the optional parent", `{engine: redis, backup: {bucket: a}}`, `{engine: redis}`, ""},
		{"add the optional parent", `{engine: redis}`, `{engine: redis, backup: {bucket: b}}`, ""},
		{"change a value under =keys", `{engine: redis, parameters: {a: "1"}}`, `{engine: redis, parameters: {a: "2"}}`, ""},
		{"add a key under =keys", `{engine: redis, parameters: {a: "1"}}`, `{engine: redis, parameters: {a: "1", b: "2"}}`,
			`spec.parameters: Forbidden: keys are immutable: entries may not be added or removed`},
		{"change an item of a list map under =keys", `{engine: redis, shards: [{name: s1, replicas: 1}]}`, `{engine: redis, shards: [{name: s1, replicas: 3}]}`, ""},
		{"add an item to a list map under =keys", `{engine: redis, shards: [{name: s1}]}`, `{engine: redis, shards: [{name: s1}, {name: s2}]}`,
			`spec.shards: Forbidden: keys are immutable: entries may not be added or removed`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			object := func(name, spec string) string {
				p := filepath.Join(dir, name)
				doc := "apiVersion: cache.example.com/v1\nkind: CacheCluster\nmetadata: {name: c, namespace: d}\nspec: " + spec + "\n"
				if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"check-update", "--schema", crds, "--old", object("old.yaml", tc.old), "--new", object("new.yaml", tc.new)}, &stdout, &stderr)
			wantCode, wantOut := 0, ""
			if tc.want != "" {
				wantCode, wantOut = 1, tc.want+"\n"
			}
			if code != wantCode || stdout.String() != wantOut {
				t.Fatalf("exit %d, stdout %q; want %d, %q\n%s", code, &stdout, wantCode, wantOut, &stderr)
			}
			if tc.want != "" && !bytes.Contains(guide, []byte("`"+tc.want+"`")) {
				t.Errorf("docs/guide.md does not show the message `%s`", tc.want)
			}
		})
	}
}
