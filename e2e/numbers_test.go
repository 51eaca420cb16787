package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// numberCase changes one integer of the Shapes base object (old value 1)
// to a number literal. Go's encoders never write 1.0, so the requests carry
// the literal as text: the update and dry-run bodies are the old object's
// JSON with one text replaced, the merge patch is written by hand, and the
// apply body is the old object's YAML with one text replaced.
type numberCase struct {
	name    string
	literal string   // the new number, as sent
	want    []cause  // nil: allowed
	field   string   // the changed integer, e.g. spec.count
	keys    []string // its keys below spec
	// Texts holding the old value 1 in the JSON and the YAML of the object;
	// "%s" stands for the number.
	jsonText, yamlText string
}

// checkNumbers: docs/semantics.md 2.3 says 1 equals 1.0 (both are stored as 1).
//
// The JSON decoder of the API server keeps 1.0 as a float64 (only 1 becomes
// an int64), and the server's CEL value conversion refuses a float64 in an
// integer node ("invalid data, expected int, got float64",
// k8s.io/apiserver/pkg/cel/common/valuesunstructured.go), so every rule that
// reads the field fails, whether the field is immutable itself (count) or
// sits in an immutable value (frozen[f1].b). The updates the runtime allows
// below are therefore refused on update, merge patch and dry run — by the
// API server's value conversion, not by the rules (no rule text can avoid
// it: has() fails too) — and allowed through server-side apply, whose YAML
// body the server decodes to 1. This is a documented limit of CEL mode
// (docs/semantics.md, "CEL lowering"); the test pins the server's
// behaviour so that a change in it is noticed. Go clients and kubectl never
// send 1.0; the runtime (extensions mode, admission plugin, webhook)
// allows these updates.
func checkNumbers(t *testing.T, s *server) {
	r := newRunner(t, s, shapes)
	count := func(name, literal string, want []cause) numberCase {
		return numberCase{name: name, literal: literal, want: want, field: "spec.count", keys: []string{"count"},
			jsonText: `"count":%s,`, yamlText: "\n  count: %s\n"}
	}
	frozenB := func(name, literal string, want []cause) numberCase {
		return numberCase{name: name, literal: literal, want: want, field: "spec.frozen[f1]", keys: []string{"frozen", "f1", "b"},
			jsonText: `"f1":{"a":"x","b":%s}`, yamlText: "\n    f1:\n      a: x\n      b: %s\n"}
	}
	for _, tc := range []numberCase{
		count("allowed: count (immutable) 1 to 1.0 (equal numbers)", "1.0", nil),
		count("allowed: count (immutable) 1 to 1e0 (equal numbers)", "1e0", nil),
		count("forbidden: count (immutable) 1 to 2.0", "2.0", []cause{invalid("spec.count")}),
		count("forbidden: count (immutable) 1 to 2", "2", []cause{invalid("spec.count")}),
		frozenB("allowed: frozen[f1].b (in an immutable value) 1 to 1.0 (equal numbers)", "1.0", nil),
		frozenB("forbidden: frozen[f1].b (in an immutable value) 1 to 2", "2", []cause{invalid("spec.frozen[f1]")}),
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.checkNumber(t, tc)
		})
	}
}

func (r *runner) checkNumber(t *testing.T, tc numberCase) {
	var n json.Number = json.Number(tc.literal)
	var value interface{} = n
	if i, err := n.Int64(); err == nil {
		value = i
	} else if f, err := n.Float64(); err == nil {
		value = f
	}
	newSpec := deepCopy(r.base)
	m := newSpec
	for _, k := range tc.keys[:len(tc.keys)-1] {
		m = m[k].(map[string]interface{})
	}
	m[tc.keys[len(tc.keys)-1]] = value
	if msg := sameAsReference(referenceVerdict(r.ref, r.base, newSpec), tc.want); msg != "" {
		t.Fatalf("the test case disagrees with the runtime (the reference semantics): %s", msg)
	}
	var merge interface{} = json.RawMessage(tc.literal)
	for i := len(tc.keys) - 1; i >= 0; i-- {
		merge = map[string]interface{}{tc.keys[i]: merge}
	}
	mergePatch, err := json.Marshal(map[string]interface{}{"spec": merge})
	if err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	for _, p := range allPaths {
		t.Run(string(p), func(t *testing.T) {
			r.seq++
			name := fmt.Sprintf("numbers-%04d", r.seq)
			var created *unstructured.Unstructured
			var err error
			if p == pathApply {
				created, err = r.apply(ctx, r.object(name, r.base))
			} else {
				created, err = r.res.Create(ctx, r.object(name, r.base), metav1.CreateOptions{})
			}
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			rv := created.GetResourceVersion()

			obj := r.object(name, r.base)
			obj.SetResourceVersion(rv)
			var body []byte
			var patchType types.PatchType
			switch p {
			case pathUpdate, pathDryRun:
				body, err = obj.MarshalJSON()
				body = replaceOnce(t, body, fmt.Sprintf(tc.jsonText, "1"), fmt.Sprintf(tc.jsonText, tc.literal))
			case pathMerge:
				body, patchType = mergePatch, types.MergePatchType
			case pathApply:
				body, err = yaml.Marshal(obj.Object)
				body = replaceOnce(t, body, fmt.Sprintf(tc.yamlText, "1"), fmt.Sprintf(tc.yamlText, tc.literal))
				patchType = types.ApplyYAMLPatchType
			}
			if err != nil {
				t.Fatal(err)
			}

			// The REST client sends the body as is.
			rc := r.s.crds.Discovery().RESTClient()
			gvr := r.k.gvr
			resource := "/apis/" + gvr.Group + "/" + gvr.Version + "/namespaces/" + namespace + "/" + gvr.Resource + "/" + name
			var res []byte
			switch p {
			case pathUpdate, pathDryRun:
				req := rc.Put().AbsPath(resource).SetHeader("Content-Type", "application/json").Body(body)
				if p == pathDryRun {
					req = req.Param("dryRun", metav1.DryRunAll)
				}
				res, err = req.DoRaw(ctx)
			case pathMerge, pathApply:
				req := rc.Patch(patchType).AbsPath(resource).Body(body)
				if p == pathApply {
					req = req.Param("fieldManager", fieldManager).Param("force", "true")
				}
				res, err = req.DoRaw(ctx)
			}
			if err != nil {
				// DoRaw does not decode the Status of an error.
				var st metav1.Status
				if json.Unmarshal(res, &st) == nil && st.Kind == "Status" {
					err = &apierrors.StatusError{ErrStatus: st}
				}
			}
			request := fmt.Sprintf("body: %s", body)
			if tc.want == nil && p != pathApply && strings.ContainsAny(tc.literal, ".eE") {
				// The known limit above: refused with the conversion error.
				if err == nil || !strings.Contains(err.Error(), "expected int, got float64") {
					t.Fatalf("the API server's CEL conversion of an integer sent as %s changed (it refused it with \"expected int, got float64\" in Kubernetes 1.37): update docs/semantics.md\nserver: %v\n%s", tc.literal, describe(err), request)
				}
			} else if tc.want == nil {
				if err != nil {
					t.Fatalf("allowed update refused: DISAGREEMENT WITH docs/semantics.md 2.3 (1 and %s are equal numbers; the runtime allows this update)\nserver: %v\n%s",
						tc.literal, describe(err), request)
				}
			} else {
				if err == nil {
					t.Fatalf("forbidden update accepted (docs/semantics.md 2.3 violated by the CEL lowering)\n%s\nserver result: %s", request, res)
				}
				// The verdict is the reference's; with a float literal the
				// causes are the conversion errors above rather than the
				// rule's message: only the verdict and the field are
				// checked here.
				checkRefusedNaming(t, err, tc.field, request)
			}

			// Stored: 1, as an integer, in every case (1.0 is stored as 1).
			stored, err := r.res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := unstructured.NestedFieldNoCopy(stored.Object, append([]string{"spec"}, tc.keys...)...)
			if got != int64(1) {
				t.Errorf("stored %s is %#v, want int64 1", tc.field, got)
			}
			if (p == pathDryRun || tc.want != nil) && stored.GetResourceVersion() != rv {
				t.Errorf("the resourceVersion changed from %s to %s although nothing may have been persisted", rv, stored.GetResourceVersion())
			}
		})
	}
}

// checkRefusedNaming checks that err is a 422 Invalid with a cause on field.
func checkRefusedNaming(t *testing.T, err error, field, request string) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("want a 422 Invalid status, got %T: %v\n%s", err, err, request)
	}
	st := status.Status()
	if st.Code != http.StatusUnprocessableEntity || st.Reason != metav1.StatusReasonInvalid {
		t.Fatalf("want 422 Invalid, got %s\n%s", describe(err), request)
	}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if c.Field == field {
				return
			}
		}
	}
	t.Fatalf("422 Invalid without a cause on %s: %s\n%s", field, describe(err), request)
}

func replaceOnce(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%q occurs %d times in %s", old, n, b)
	}
	return []byte(strings.Replace(string(b), old, new, 1))
}
