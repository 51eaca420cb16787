package kubeapiserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

// The crd generator's two outputs of one API with +immutable:when (Kueue's
// queue name and priority class while quota is reserved, JobSet's pod sets
// unless suspended): the CEL output, which kube-apiserver enforces itself,
// and the extensions output, which it serves plain while the webhook
// enforces it.
var (
	whenCELCRD        = filepath.Join("..", "..", "testdata", "golden", "crd", "when", "when.example.com_workloads.yaml")
	whenExtensionsCRD = filepath.Join("..", "..", "testdata", "golden", "crd", "when-extensions", "when.example.com_workloads.yaml")
)

// webhookGroup is the API group the extensions output is served under, so
// that both outputs are served by one kube-apiserver side by side.
const webhookGroup = "whenx.example.com"

// TestConditionalBehindKubeAPIServer: the same updates of the same objects,
// sent to kube-apiserver for the CEL output (its own validation) and for
// the extensions output (the webhook, built with enforce.FromCRD), get the
// same verdicts and name the same fields.
func TestConditionalBehindKubeAPIServer(t *testing.T) {
	ctrllog.SetLogger(logr.Discard())
	celManifest, err := os.ReadFile(whenCELCRD)
	if err != nil {
		t.Fatal(err)
	}
	extManifest, err := os.ReadFile(whenExtensionsCRD)
	if err != nil {
		t.Fatal(err)
	}
	extManifest = []byte(strings.ReplaceAll(string(extManifest), "when.example.com", webhookGroup))
	var celCRD apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(celManifest, &celCRD); err != nil {
		t.Fatal(err)
	}
	resources, err := enforce.FromCRD(extManifest)
	if err != nil {
		t.Fatal(err)
	}
	handler, err := webhook.NewHandler(resources)
	if err != nil {
		t.Fatal(err)
	}
	configuration := webhook.Configuration(webhook.ConfigurationOptions{
		Resources: handler.Resources(),
		Service:   &admissionregistrationv1.ServiceReference{Namespace: "system", Name: "webhook-service"},
	})
	cfg, _ := serve(t, handler, configuration, &celCRD, plainCRD(t, extManifest))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	outputs := []struct {
		name string
		res  dynamic.ResourceInterface
	}{
		{"CEL output", dyn.Resource(schema.GroupVersionResource{Group: "when.example.com", Version: "v1", Resource: "workloads"}).Namespace(namespace)},
		{"extensions output and the webhook", dyn.Resource(schema.GroupVersionResource{Group: webhookGroup, Version: "v1", Resource: "workloads"}).Namespace(namespace)},
	}
	workload := func(group, name, spec, reserved string) *unstructured.Unstructured {
		return object(t, `{apiVersion: `+group+`/v1, kind: Workload, metadata: {name: `+name+`, namespace: default}, spec: `+spec+`,
status: {conditions: [{type: QuotaReserved, status: "`+reserved+`", reason: Test, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`)
	}

	// The webhook is picked up asynchronously: wait, bounded, until it
	// refuses a forbidden dry-run update.
	probe := workload(webhookGroup, "probe", `{queueName: a}`, "True")
	if _, err := outputs[1].res.Create(ctx, probe, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := outputs[1].res.Patch(ctx, "probe", types.MergePatchType, []byte(`{"spec": {"queueName": "b"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		return apierrors.IsInvalid(err), nil
	})
	if err != nil {
		t.Fatalf("the webhook never refused a forbidden update: %v", err)
	}

	for _, tc := range []struct {
		name           string
		spec, reserved string // the stored object
		patch          string // a merge patch
		want           string // the fields refused, or "" for allowed
	}{
		{"queue changed while quota is reserved", `{queueName: a}`, "True", `{"spec": {"queueName": "b"}}`, "spec.queueName"},
		{"queue changed without quota", `{queueName: a}`, "False", `{"spec": {"queueName": "b"}}`, ""},
		{"queue removed while quota is reserved", `{queueName: a}`, "True", `{"spec": {"queueName": null}}`, "spec.queueName"},
		{"queue changed as quota is released", `{queueName: a}`, "True",
			`{"spec": {"queueName": "b"}, "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Test", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}`, "spec.queueName"},
		{"priority changed while quota is reserved", `{priorityClassName: p1}`, "True", `{"spec": {"priorityClassName": "p2"}}`, "spec.priorityClassName"},
		{"priority removed while quota is reserved", `{priorityClassName: p1}`, "True", `{"spec": {"priorityClassName": null}}`, ""},
		{"pod sets changed while running", `{podSets: [{name: a, count: 1}]}`, "False", `{"spec": {"podSets": [{"name": "a", "count": 2}]}}`, "spec.podSets"},
		{"pod sets changed while suspended", `{suspend: true, podSets: [{name: a, count: 1}]}`, "False", `{"spec": {"podSets": [{"name": "a", "count": 2}]}}`, ""},
		{"pod sets changed as it resumes", `{suspend: true, podSets: [{name: a, count: 1}]}`, "False", `{"spec": {"suspend": false, "podSets": [{"name": "a", "count": 2}]}}`, ""},
		{"pod sets changed as it suspends", `{suspend: false, podSets: [{name: a, count: 1}]}`, "False", `{"spec": {"suspend": true, "podSets": [{"name": "a", "count": 2}]}}`, "spec.podSets"},
		{"a label while quota is reserved", `{queueName: a}`, "True", `{"metadata": {"labels": {"team": "x"}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.NewReplacer(" ", "-", "'", "").Replace(tc.name)
			for i, out := range outputs {
				group := "when.example.com"
				if i == 1 {
					group = webhookGroup
				}
				if _, err := out.res.Create(ctx, workload(group, name, tc.spec, tc.reserved), metav1.CreateOptions{}); err != nil {
					t.Fatalf("%s: create: %v", out.name, err)
				}
				_, err := out.res.Patch(ctx, name, types.MergePatchType, []byte(tc.patch), metav1.PatchOptions{})
				if got := refusedFields(t, err); got != tc.want {
					t.Errorf("%s: refused %q, want %q (%v)", out.name, got, tc.want, err)
				}
			}
		})
	}
}

// refusedFields is "" for a nil err, else the fields of a 422 Invalid's
// causes, sorted and joined by ",".
func refusedFields(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		t.Fatalf("want 422 Invalid, got %v", err)
	}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		fields = append(fields, c.Field)
	}
	sort.Strings(fields)
	return strings.Join(fields, ",")
}
