package lint

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	celcommon "github.com/google/cel-go/common"
	"github.com/google/cel-go/parser"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
	"github.com/immutable-gen/immutable-gen/schema"
)

// literal matches the string literals of a rule, which the objects'
// strings take half of the time so that the rules' conditions are met.
var literal = regexp.MustCompile(`'([^'\\]*)'`)

// TestSoundCorpus runs TestSoundByConstruction's check on the CRDs the
// lint tests hold (testdata/lint and the generated CRDs): for every field
// under spec with its own `self == oldSelf` and no presence finding at it
// or at an optional ancestor, random valid objects (preflighttest) with
// the field present are unset and re-added with another value, or the
// field set later, and the API server's validator must refuse it. Objects
// of large CRDs are seldom valid at random: the test says how many checks
// it made, and fails if it made none.
func TestSoundCorpus(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/lint/holes/*.yaml", "testdata/lint/wellknown/*.yaml", "testdata/lint/defects/IG01*.yaml", "testdata/golden/crd/*/*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.EnableOptionalSyntax(true))
	if err != nil {
		t.Fatal(err)
	}
	checks, fields := 0, 0 // fields checked; updates validated
	for _, file := range files {
		res, err := Files([]string{file})
		if err != nil {
			t.Fatal(err)
		}
		objs, err := preflight.Load(file)
		if err != nil {
			continue // not a manifest preflight reads (lint's own tests say why)
		}
		for _, obj := range objs {
			raw, err := yaml.Marshal(obj.Object)
			if err != nil {
				t.Fatal(err)
			}
			js, err := yaml.YAMLToJSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			c, err := preflight.NewChecker([]preflight.CRD{{Source: obj.Source, Raw: js}})
			if err != nil {
				continue // refused by the API server: lint reports it
			}
			var crd struct {
				Metadata struct{ Name string }
				Spec     struct {
					Group    string
					Names    struct{ Kind string }
					Versions []struct {
						Name   string
						Served bool
						Schema struct {
							OpenAPIV3Schema map[string]any
						}
					}
				}
			}
			if err := json.Unmarshal(js, &crd); err != nil {
				t.Fatal(err)
			}
			for _, v := range crd.Spec.Versions {
				if !v.Served || v.Schema.OpenAPIV3Schema == nil {
					continue
				}
				reported := func(path string) bool {
					for _, f := range res.Findings {
						if f.CRD == crd.Metadata.Name && f.Version == v.Name && f.Path == path && slices.Contains(presenceIDs, f.ID) {
							return true
						}
					}
					return false
				}
				n, k := soundCorpusVersion(t, c, p, file, crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Kind, v.Schema.OpenAPIV3Schema, reported)
				fields += n
				checks += k
			}
		}
	}
	t.Logf("%d files, %d immutable fields under spec, %d updates checked with the API server's validator", len(files), fields, checks)
	if checks == 0 {
		t.Error("no update checked: the objects generated for the corpus are never valid")
	}
}

// soundCorpusVersion checks the immutable fields of one CRD version; it
// returns how many fields and updates it checked.
func soundCorpusVersion(t *testing.T, c *preflight.Checker, p *parser.Parser, file, apiVersion, kind string, raw map[string]any, reported func(string) bool) (fields, checks int) {
	root := schema.FromExtensions(raw)
	type target struct {
		n    *schema.Node
		rule rule
	}
	var targets []target
	var words []string
	root.Walk(func(n *schema.Node) {
		for _, r := range n.Rules() {
			for _, m := range literal.FindAllStringSubmatch(r.Rule, -1) {
				words = append(words, m[1])
			}
			ast, errs := p.Parse(celcommon.NewTextSource(r.Rule))
			if errs != nil && len(errs.GetErrors()) > 0 {
				continue
			}
			if isPlainEquality(ast.Expr()) && strings.HasPrefix(n.Path(), "spec.") && !strings.Contains(n.Path(), "[") {
				msg := r.Message
				if msg == "" {
					msg = r.MessageExpression
				}
				targets = append(targets, target{n, rule{text: r.Rule, message: msg}})
			}
		}
	})
	if len(targets) == 0 {
		return 0, 0
	}
	g := preflighttest.New(raw, 31)
	g.Invalid = 0
	g.Words = words
	wrapObj := func(spec any) map[string]any {
		o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "w", "namespace": "ns"}}
		if _, ok := spec.(absentValue); !ok {
			o["spec"] = spec
		}
		return roundTripJSON(o)
	}
	o := &oracle{c: c, created: map[string]bool{}, updated: map[string]bool{}}
	var valid []map[string]any
	for i := 0; i < 60; i++ {
		if obj := wrapObj(g.Spec()); o.create(obj) {
			valid = append(valid, obj)
		}
	}
	pathOf := func(n *schema.Node) []string { return strings.Split(n.Path(), ".") }
	for _, tg := range targets {
		f := tg.n
		fields++
		fp := pathOf(f)
		// The values the field takes in valid objects.
		var values []any
		for _, obj := range valid {
			if v, ok := getAt(obj, fp); ok && !slices.ContainsFunc(values, func(x any) bool { return objectKey(map[string]any{"v": x}) == objectKey(map[string]any{"v": v}) }) {
				values = append(values, v)
			}
		}
		fail := func(what string, objs ...map[string]any) {
			var b strings.Builder
			for i, x := range objs {
				js, _ := json.Marshal(x["spec"])
				fmt.Fprintf(&b, "\n  object %d: spec %s", i+1, js)
			}
			t.Errorf("%s %s %s: lint reports no presence hole, but the API server accepts: %s%s", file, apiVersion, f.Path(), what, b.String())
		}
		// As its message asks (docs/lint.md, "Intent from the rule's
		// message"): fixed while set, it may be removed; fixed once set,
		// it may be set later.
		for a := f; !whileSet().MatchString(tg.rule.message); a = a.Parent {
			if a.Edge != schema.Property || a.AlwaysPresent() || reported(a.Path()) {
				if a.Parent == nil || a.Parent.Parent == nil {
					break
				}
				continue
			}
			ap := pathOf(a)
			for _, o1 := range valid {
				v1, ok := getAt(o1, fp)
				if !ok {
					continue
				}
				o2 := withAt(o1, ap, absentValue{})
				checks++
				if !o.create(o2) || !o.update(o1, o2) {
					continue
				}
				fail("unset in one update", o1, o2)
				for _, v2 := range values {
					if objectKey(map[string]any{"v": v2}) == objectKey(map[string]any{"v": v1}) {
						continue
					}
					sub, _ := getAt(o1, ap)
					o3 := withAt(o2, ap, sub)
					o3 = withAt(o3, fp, v2)
					checks++
					if o.create(o3) && o.update(o2, o3) {
						fail("removed and added back with another value in two updates", o1, o2, o3)
						break
					}
				}
				break
			}
			if a.Parent == nil || a.Parent.Parent == nil {
				break
			}
		}
		if f.AlwaysPresent() || reported(f.Path()) || setOnce(tg.rule) {
			continue
		}
		for _, o1 := range valid {
			if _, ok := getAt(o1, fp); ok {
				continue
			}
			if _, ok := getAt(o1, fp[:len(fp)-1]); !ok {
				continue
			}
			for _, v := range values {
				o2 := withAt(o1, fp, v)
				checks++
				if o.create(o2) && o.update(o1, o2) {
					fail("set later", o1, o2)
					break
				}
			}
		}
	}
	return fields, checks
}

func roundTripJSON(o map[string]any) map[string]any {
	b, _ := json.Marshal(o)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
