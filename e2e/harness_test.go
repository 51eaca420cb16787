package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// namespace holds every test object. The apiextensions-apiserver alone
// serves no namespaces, and needs none to exist.
const namespace = "e2e"

// fieldManager owns the server-side applied objects.
const fieldManager = "immutable-gen-e2e"

// kind is one CRD under test, with the object every case starts from.
type kind struct {
	name    string // subtest name
	crdFile string // the generated CRD, relative to this directory
	base    string // YAML of a valid object's spec, every field set
	// The reference verdicts: the same API in crd:immutability=extensions
	// mode, from extensionsFile, or else generated in generateIn.
	extensionsFile, generateIn string
	gvr                        schema.GroupVersionResource
	apiGroup                   string // apiVersion of objects
	kindName                   string
}

// cause is one status cause the server must report for a forbidden update.
type cause struct {
	Type  metav1.CauseType // metav1.CauseTypeFieldValueInvalid or metav1.CauseTypeForbidden
	Field string           // e.g. spec.engine
	Msg   string           // a substring of the cause's message
}

func invalid(field string) cause {
	return cause{metav1.CauseTypeFieldValueInvalid, field, "field is immutable"}
}

func forbidden(field, msg string) cause {
	return cause{metav1.CauseTypeForbidden, field, msg}
}

// update is one update of a case's old object.
type update struct {
	name string
	// patch is a JSON merge patch (RFC 7386), written in YAML, that turns
	// the old object into the new one. The merge-patch path sends it as is;
	// the other paths send the whole new object.
	patch string
	// want is nil for an update that must succeed, else every cause the
	// 422 Invalid answer must carry (compared as a set).
	want []cause
	// paths restricts the update to some paths (default: all four).
	paths []path
	// effective, if set, is the merge patch the server effectively
	// applies, when the path turns the update into another one; the
	// reference verdict is computed for it.
	effective string
}

// tcase is one marker shape: an old object and updates of it.
type tcase struct {
	name string
	// from is a JSON merge patch (YAML) applied to the kind's base spec to
	// get the old object of every update; empty for the base itself.
	from    string
	updates []update
}

// path is a way to send an update.
type path string

const (
	pathUpdate path = "update"      // PUT of the whole new object
	pathMerge  path = "merge-patch" // PATCH application/merge-patch+json
	pathApply  path = "apply"       // PATCH application/apply-patch+yaml, forced, one field manager
	pathDryRun path = "dry-run"     // PUT with ?dryRun=All
)

var allPaths = []path{pathUpdate, pathMerge, pathApply, pathDryRun}

// runner runs the updates of one kind against one server.
type runner struct {
	s    *server
	k    *kind
	res  dynamic.ResourceInterface
	seq  int
	base map[string]interface{} // spec
	ref  *runtime.Checker
}

func newRunner(t *testing.T, s *server, k *kind) *runner {
	r := &runner{s: s, k: k, res: s.dyn.Resource(k.gvr).Namespace(namespace)}
	r.base = yamlMap(t, k.base)
	r.ref = compileReference(t, k)
	return r
}

// run checks every update of c on every path, each on a fresh object.
func (r *runner) run(t *testing.T, c tcase) {
	old := r.base
	if c.from != "" {
		old = mergePatch(t, r.base, c.from)
	}
	for _, u := range c.updates {
		verdict := "allowed"
		if u.want != nil {
			verdict = "forbidden"
		}
		t.Run(verdict+": "+u.name, func(t *testing.T) {
			newSpec := mergePatch(t, old, u.patch)
			// The table's verdict and causes must be the reference's.
			effective := newSpec
			if u.effective != "" {
				effective = mergePatch(t, old, u.effective)
			}
			if msg := sameAsReference(referenceVerdict(r.ref, old, effective), u.want); msg != "" {
				t.Fatalf("the test case disagrees with the runtime (the reference semantics): %s\nold spec: %s\nnew spec: %s",
					msg, canon(old), canon(effective))
			}
			paths := u.paths
			if paths == nil {
				paths = allPaths
			}
			for _, p := range paths {
				t.Run(string(p), func(t *testing.T) {
					r.check(t, p, old, newSpec, u)
				})
			}
		})
	}
}

func (r *runner) object(name string, spec map[string]interface{}) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": r.k.apiGroup,
		"kind":       r.k.kindName,
		"metadata":   map[string]interface{}{"name": name, "namespace": namespace},
	}}
	if spec != nil {
		o.Object["spec"] = deepCopy(spec)
	}
	return o
}

// check creates an object with spec old, sends the update to newSpec on
// path p and checks the server's answer and what it stored.
func (r *runner) check(t *testing.T, p path, old, newSpec map[string]interface{}, u update) {
	ctx := context.Background()
	r.seq++
	name := fmt.Sprintf("%s-%04d", strings.ToLower(r.k.kindName), r.seq)

	// Create. On the apply path the field manager creates the object by
	// applying it, so that it owns every field and a later apply can also
	// remove fields.
	var created *unstructured.Unstructured
	var err error
	if p == pathApply {
		created, err = r.apply(ctx, r.object(name, old))
	} else {
		created, err = r.res.Create(ctx, r.object(name, old), metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
	}
	if err != nil {
		t.Fatalf("create (the old object): %v\nold spec: %s", err, canon(old))
	}
	if got := specOf(created); canon(got) != canon(old) {
		t.Fatalf("created object differs from the intended old object:\n got %s\nwant %s", canon(got), canon(old))
	}

	// Update.
	var result *unstructured.Unstructured
	switch p {
	case pathUpdate, pathDryRun:
		obj := r.object(name, newSpec)
		obj.SetResourceVersion(created.GetResourceVersion())
		opts := metav1.UpdateOptions{FieldValidation: metav1.FieldValidationStrict}
		if p == pathDryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		result, err = r.res.Update(ctx, obj, opts)
	case pathMerge:
		patch := yamlToJSON(t, u.patch)
		result, err = r.res.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldValidation: metav1.FieldValidationStrict})
	case pathApply:
		result, err = r.apply(ctx, r.object(name, newSpec))
	default:
		t.Fatalf("unknown path %q", p)
	}

	request := fmt.Sprintf("old spec: %s\nnew spec: %s", canon(old), canon(newSpec))
	if p == pathMerge {
		request += fmt.Sprintf("\nmerge patch: %s", yamlToJSON(t, u.patch))
	}

	if u.want == nil {
		if err != nil {
			t.Fatalf("allowed update refused: %v\n%s", describe(err), request)
		}
		if got := specOf(result); canon(got) != canon(newSpec) {
			t.Fatalf("the update succeeded but the server's result is not the new object:\n got %s\n%s", canon(got), request)
		}
	} else {
		if err == nil {
			t.Fatalf("forbidden update accepted (docs/semantics.md 2.3 violated by the CEL lowering)\n%s\nserver stored: %s\nwant 422 with causes %v",
				request, canon(specOf(result)), u.want)
		}
		checkInvalid(t, err, u.want, request)
	}

	// What is stored now: the new object after an allowed update, the old
	// one after a dry run or a refused update.
	stored, err := r.res.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("re-read: %v", err)
	}
	want := newSpec
	if p == pathDryRun || u.want != nil {
		want = old
		if stored.GetResourceVersion() != created.GetResourceVersion() {
			t.Errorf("resourceVersion changed from %s to %s although nothing may have been persisted", created.GetResourceVersion(), stored.GetResourceVersion())
		}
	}
	if got := specOf(stored); canon(got) != canon(want) {
		t.Errorf("stored spec after the update:\n got %s\nwant %s\n%s", canon(got), canon(want), request)
	}
}

// apply sends obj as a forced server-side apply: YAML, content type
// application/apply-patch+yaml, field manager fieldManager.
func (r *runner) apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	body, err := yaml.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	force := true
	return r.res.Patch(ctx, obj.GetName(), types.ApplyYAMLPatchType, body, metav1.PatchOptions{
		FieldManager:    fieldManager,
		Force:           &force,
		FieldValidation: metav1.FieldValidationStrict,
	})
}

// checkInvalid checks that err is a 422 Invalid whose causes are exactly
// want (type and field), each message containing the wanted text.
func checkInvalid(t *testing.T, err error, want []cause, request string) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("want a 422 Invalid status, got %T: %v\n%s", err, err, request)
	}
	st := status.Status()
	if st.Code != http.StatusUnprocessableEntity || st.Reason != metav1.StatusReasonInvalid {
		t.Fatalf("want 422 Invalid, got %d %s: %s\n%s", st.Code, st.Reason, st.Message, request)
	}
	var got []metav1.StatusCause
	if st.Details != nil {
		got = append(got, st.Details.Causes...)
	}
	sort.Slice(got, func(i, j int) bool {
		if got[i].Field != got[j].Field {
			return got[i].Field < got[j].Field
		}
		return got[i].Type < got[j].Type
	})
	w := append([]cause(nil), want...)
	sort.Slice(w, func(i, j int) bool {
		if w[i].Field != w[j].Field {
			return w[i].Field < w[j].Field
		}
		return w[i].Type < w[j].Type
	})
	ok := len(got) == len(w)
	for i := 0; ok && i < len(w); i++ {
		ok = got[i].Type == w[i].Type && got[i].Field == w[i].Field && strings.Contains(got[i].Message, w[i].Msg)
	}
	if !ok {
		var b strings.Builder
		for _, c := range got {
			fmt.Fprintf(&b, "\n  %s %s: %s", c.Type, c.Field, c.Message)
		}
		var wb strings.Builder
		for _, c := range w {
			fmt.Fprintf(&wb, "\n  %s %s: …%s…", c.Type, c.Field, c.Msg)
		}
		t.Fatalf("422 Invalid with the wrong causes\n got:%s\nwant:%s\nstatus message: %s\n%s", b.String(), wb.String(), st.Message, request)
	}
}

func describe(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err.Error()
	}
	st := status.Status()
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s: %s", st.Code, st.Reason, st.Message)
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			fmt.Fprintf(&b, "\n  cause %s %s: %s", c.Type, c.Field, c.Message)
		}
	}
	return b.String()
}

func specOf(o *unstructured.Unstructured) map[string]interface{} {
	if o == nil {
		return nil
	}
	spec, _ := o.Object["spec"].(map[string]interface{})
	return spec
}

// canon is the canonical JSON of v (keys sorted, numbers as JSON numbers),
// so that an int64 from the server and a float64 from YAML compare equal
// exactly when the JSON values are equal.
func canon(v interface{}) string {
	if m, ok := v.(map[string]interface{}); ok && m == nil {
		return "<absent>"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

func yamlToJSON(t *testing.T, y string) []byte {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("bad YAML in test case: %v\n%s", err, y)
	}
	return j
}

func yamlMap(t *testing.T, y string) map[string]interface{} {
	t.Helper()
	m := map[string]interface{}{}
	if err := json.Unmarshal(yamlToJSON(t, y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// mergePatch applies the merge patch patchYAML, written against the whole
// object ({spec: …}), to an object whose spec is spec, and returns the new
// spec (nil if the patch removes it).
func mergePatch(t *testing.T, spec map[string]interface{}, patchYAML string) map[string]interface{} {
	t.Helper()
	doc, err := json.Marshal(map[string]interface{}{"spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonpatch.MergePatch(doc, yamlToJSON(t, patchYAML))
	if err != nil {
		t.Fatalf("bad merge patch in test case: %v\n%s", err, patchYAML)
	}
	var obj map[string]interface{}
	d := json.NewDecoder(bytes.NewReader(out))
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	for k := range obj {
		if k != "spec" {
			t.Fatalf("test case patch touches %q: patch only spec", k)
		}
	}
	s, _ := obj["spec"].(map[string]interface{})
	return s
}

// deepCopy copies a JSON value through JSON.
func deepCopy(m map[string]interface{}) map[string]interface{} {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	var out map[string]interface{}
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
