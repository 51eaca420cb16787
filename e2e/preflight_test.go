package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
)

// parityCRDs are the CRDs of the parity test: a hand-written one with
// ordinary rules beside immutability, and the two generated CEL CRDs.
var parityCRDs = []struct {
	name, file string
	olds       int  // stored objects
	updates    int  // random updates of each
	lax        bool // store the objects under a lax CRD first (ratcheting)
}{
	{"rules", "../testdata/check-update/rules/crd.yaml", 40, 3, true},
	{"example", "../examples/config/crd/bases/cache.example.com_cacheclusters.yaml", 25, 3, true},
	// No bounds to loosen: the stored objects are valid ones.
	{"shapes", "../testdata/golden/crd/celshapes/shapes.example.com_shapes.yaml", 25, 3, false},
}

// TestPreflightParity sends random creates and updates to a real
// apiextensions-apiserver (dry run) and checks that preflight's verdict,
// every error (type, field, text) and every warning equal the server's for
// each.
//
// For ratcheting, the stored objects are created while the CRD is lax (no
// minimum, maximum, enum or pattern), then the CRD is replaced by the real
// one: stored objects may then break its bounds, as objects stored under an
// older CRD do, and an update that leaves such a value alone is allowed.
func TestPreflightParity(t *testing.T) {
	s := startServer(t)
	total, rejected := 0, 0
	seen := map[string]int{} // what the verdicts covered
	for i, pc := range parityCRDs {
		t.Run(pc.name, func(t *testing.T) {
			p := newParity(t, s, pc.file, uint64(100+i))
			ratcheted := p.storeOlds(t, pc.olds, pc.lax)
			if pc.lax {
				p.tighten(t, ratcheted)
			}
			c := p.checker(t)

			// Creates, with the real CRD.
			for j := 0; j < pc.olds; j++ {
				obj := p.object(fmt.Sprintf("create-%03d", j), p.gen.Spec())
				res, err := c.Create(obj)
				if err != nil {
					t.Fatal(err)
				}
				p.warn.take()
				_, serr := p.res.Create(context.Background(), unstr(obj), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				p.compare(t, "create", nil, obj, res, serr)
				total++
				if !res.Allowed() {
					rejected++
				}
			}
			// Updates of the stored objects.
			for _, old := range p.stored {
				for j := 0; j < pc.updates; j++ {
					spec, what := p.gen.Mutate(old.Object["spec"])
					obj := p.object(old.GetName(), spec)
					obj["metadata"].(map[string]interface{})["resourceVersion"] = old.GetResourceVersion()
					res, err := c.Update(obj, old.Object)
					if err != nil {
						t.Fatal(err)
					}
					p.warn.take()
					_, serr := p.res.Update(context.Background(), unstr(obj), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
					p.compare(t, "update ("+strings.Join(what, "; ")+")", old.Object, obj, res, serr)
					tally(seen, res)
					if res.Allowed() {
						if r, _ := c.Create(old.Object); !r.Allowed() {
							seen["allowed update of a stored object the CRD now refuses (ratcheting)"]++
						}
					}
					total++
					if !res.Allowed() {
						rejected++
					}
				}
			}
		})
	}
	t.Logf("%d requests: preflight and the API server agreed on each; %d rejected, %d allowed", total, rejected, total-rejected)
	var kinds []string
	for k, n := range seen {
		kinds = append(kinds, fmt.Sprintf("%4d %s", n, k))
	}
	sort.Strings(kinds)
	t.Logf("updates by kind of verdict:\n%s", strings.Join(kinds, "\n"))
	for _, k := range []string{"immutability", "bounds", "wrong type", "duplicate list key", "other CEL rule", "unknown field pruned"} {
		if seen[k] == 0 {
			t.Errorf("no update exercised %s", k)
		}
	}
	if seen["allowed update of a stored object the CRD now refuses (ratcheting)"] == 0 {
		t.Error("no update exercised ratcheting")
	}
	if total < 200 {
		t.Fatalf("only %d requests", total)
	}
	if rejected < total/20 || rejected > total*19/20 {
		t.Fatalf("%d of %d rejected: the generator no longer exercises both verdicts", rejected, total)
	}
}

// parity is one CRD of the parity test on one server.
type parity struct {
	s          *server
	strict     *apiextensionsv1.CustomResourceDefinition
	strictJSON []byte
	gvr        schema.GroupVersionResource
	res        dynamic.ResourceInterface
	gen        *preflighttest.Generator
	stored     []*unstructured.Unstructured
	dyn        dynamic.Interface // its warnings go to warn
	warn       *warnings
}

// warnings records the warnings of the server's answers.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// take returns the warnings recorded since the last take.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}

// warningClient returns a dynamic client whose answers' warnings are
// recorded.
func warningClient(t testing.TB, s *server) (dynamic.Interface, *warnings) {
	w := &warnings{}
	config := rest.CopyConfig(s.config)
	config.WarningHandler = w
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return dyn, w
}

func newParity(t testing.TB, s *server, file string, seed uint64) *parity {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	strict := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(js, strict); err != nil {
		t.Fatal(err)
	}
	var raw map[string]interface{}
	if err := utiljson.Unmarshal(js, &raw); err != nil {
		t.Fatal(err)
	}
	versions, _ := raw["spec"].(map[string]interface{})["versions"].([]interface{})
	openAPI := versions[0].(map[string]interface{})["schema"].(map[string]interface{})["openAPIV3Schema"].(map[string]interface{})
	p := &parity{s: s, strict: strict, strictJSON: js, gen: preflighttest.New(openAPI, seed)}
	p.dyn, p.warn = warningClient(t, s)
	p.gen.Invalid = 10
	return p
}

func (p *parity) object(name string, spec interface{}) map[string]interface{} {
	obj := map[string]interface{}{
		"apiVersion": p.strict.Spec.Group + "/" + p.strict.Spec.Versions[0].Name,
		"kind":       p.strict.Spec.Names.Kind,
		"metadata":   map[string]interface{}{"name": name, "namespace": namespace},
		"spec":       spec,
	}
	// As the server decodes JSON: integers int64, other numbers float64.
	var out map[string]interface{}
	b, _ := json.Marshal(obj)
	if err := utiljson.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

func unstr(obj map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: obj}
}

// storeOlds installs the CRD, lax if loose, and stores n random objects it
// accepts.
// It returns one the real CRD refuses, if any.
func (p *parity) storeOlds(t *testing.T, n int, loose bool) *unstructured.Unstructured {
	lax := p.strict.DeepCopy()
	for i := range lax.Spec.Versions {
		if loose {
			loosen(&lax.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties)
		}
	}
	file := filepath.Join(t.TempDir(), "lax.yaml")
	b, err := yaml.Marshal(lax)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, p.gvr = p.s.installCRD(t, file)
	p.res = p.dyn.Resource(p.gvr).Namespace(namespace)
	strictChecker := p.checker(t)
	var ratcheted *unstructured.Unstructured
	for i := 0; len(p.stored) < n && i < 50*n; i++ {
		obj := p.object(fmt.Sprintf("old-%03d", len(p.stored)), p.gen.Spec())
		created, err := p.res.Create(context.Background(), unstr(obj), metav1.CreateOptions{})
		if err != nil {
			continue // the lax CRD refuses it too: try another
		}
		p.stored = append(p.stored, created)
		if res, _ := strictChecker.Create(obj); !res.Allowed() && ratcheted == nil {
			ratcheted = created
		}
	}
	if len(p.stored) < n {
		t.Fatalf("only %d of %d random objects were stored", len(p.stored), n)
	}
	return ratcheted
}

// loosen drops minimum, maximum, enum and pattern from a schema tree, and
// the CEL rules that are not transition rules.
func loosen(props *map[string]apiextensionsv1.JSONSchemaProps) {
	for k, s := range *props {
		s.Minimum, s.Maximum, s.Enum, s.Pattern = nil, nil, nil, ""
		var keep apiextensionsv1.ValidationRules
		for _, r := range s.XValidations {
			if strings.Contains(r.Rule, "oldSelf") {
				keep = append(keep, r)
			}
		}
		s.XValidations = keep
		loosen(&s.Properties)
		if s.Items != nil && s.Items.Schema != nil {
			loosen(&s.Items.Schema.Properties)
			m := map[string]apiextensionsv1.JSONSchemaProps{"": *s.Items.Schema}
			loosen(&m)
			*s.Items.Schema = m[""]
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			m := map[string]apiextensionsv1.JSONSchemaProps{"": *s.AdditionalProperties.Schema}
			loosen(&m)
			*s.AdditionalProperties.Schema = m[""]
		}
		(*props)[k] = s
	}
}

// tighten replaces the lax CRD by the real one and waits, bounded, until
// the server refuses what only the lax one allowed; then re-reads the
// stored objects.
func (p *parity) tighten(t *testing.T, ratcheted *unstructured.Unstructured) {
	ctx := context.Background()
	crds := p.s.crds.ApiextensionsV1().CustomResourceDefinitions()
	cur, err := crds.Get(ctx, p.strict.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Spec.Versions = p.strict.Spec.Versions
	if _, err := crds.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating the CRD to the real one: %v", err)
	}
	if ratcheted == nil {
		t.Fatal("no stored object breaks the real CRD: ratcheting is not exercised")
	}
	probe := ratcheted.DeepCopy()
	probe.SetName("probe")
	probe.SetResourceVersion("")
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := p.res.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return apierrors.IsInvalid(err), nil
	})
	if err != nil {
		t.Fatalf("the server does not serve the real CRD: %v", err)
	}
	for i, o := range p.stored {
		if p.stored[i], err = p.res.Get(ctx, o.GetName(), metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// checker builds preflight's checker from the real CRD.
func (p *parity) checker(t testing.TB) *preflight.Checker {
	c, err := preflight.NewChecker([]preflight.CRD{{Source: p.strict.Name, Raw: p.strictJSON}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compare fails the test unless preflight's result and the server's answer
// agree: both allow, or both refuse with the same errors.
func (p *parity) compare(t *testing.T, what string, old, obj map[string]interface{}, res preflight.Result, serr error) {
	t.Helper()
	var got []string
	for _, e := range res.Errors {
		got = append(got, normalize(fmt.Sprintf("%s %s: %s", string(e.Type), e.Field, e.ErrorBody())))
	}
	var want []string
	if serr != nil {
		var status apierrors.APIStatus
		if !errors.As(serr, &status) || status.Status().Code != 422 {
			t.Fatalf("%s: the server answered %v\nold: %s\nnew: %s", what, serr, canon(old), canon(obj))
		}
		if d := status.Status().Details; d != nil {
			for _, c := range d.Causes {
				want = append(want, normalize(fmt.Sprintf("%s %s: %s", c.Type, c.Field, c.Message)))
			}
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s: preflight and the API server differ\nold: %s\nnew: %s\npreflight:\n  %s\nserver:\n  %s",
			what, canon(old), canon(obj), strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if p.warn == nil {
		return
	}
	gotW, wantW := append([]string(nil), res.Warnings...), p.warn.take()
	sort.Strings(gotW)
	sort.Strings(wantW)
	if strings.Join(gotW, "\n") != strings.Join(wantW, "\n") {
		t.Fatalf("%s: preflight and the API server warn differently\nold: %s\nnew: %s\npreflight:\n  %s\nserver:\n  %s",
			what, canon(old), canon(obj), strings.Join(gotW, "\n  "), strings.Join(wantW, "\n  "))
	}
}

// celDataError is the prefix of a CEL rule's error when the rule met a
// value of the wrong type. Whether a rule meets it depends on the order in
// which CEL compares map entries, which varies from run to run on a server
// as offline; the verdict and field do not.
var celDataError = regexp.MustCompile(`Invalid value: "[a-z]+": invalid data, expected [a-z0-9]+, got [a-z0-9]+ evaluating rule: `)

func normalize(s string) string {
	return celDataError.ReplaceAllString(s, "Invalid value: ")
}

// tally counts the kinds of error an update met.
func tally(seen map[string]int, res preflight.Result) {
	kinds := map[string]bool{}
	for _, e := range res.Errors {
		msg := e.ErrorBody()
		switch {
		case strings.Contains(msg, "immutable"):
			kinds["immutability"] = true
		case e.Type == "FieldValueTypeInvalid":
			kinds["wrong type"] = true
		case e.Type == "FieldValueDuplicate":
			kinds["duplicate list key"] = true
		case strings.Contains(msg, "in body should") || e.Type == "FieldValueTooLong" || e.Type == "FieldValueTooMany" || e.Type == "FieldValueNotSupported":
			kinds["bounds"] = true
		case e.Field != "<nil>":
			kinds["other CEL rule"] = true
		}
	}
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, "unknown field") {
			kinds["unknown field pruned"] = true
		}
	}
	for k := range kinds {
		seen[k]++
	}
}
