package kubeapiserver

import (
	"context"
	"encoding/json"
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
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
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
	env := &envtest.Environment{
		BinaryAssetsDirectory: binDir,
		CRDs:                  []*apiextensionsv1.CustomResourceDefinition{&celCRD, plainWhenCRD(t, extManifest)},
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			LocalServingHost:   "127.0.0.1",
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{configuration},
		},
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest (kube-apiserver and etcd from %s): %v", binDir, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	})
	wio := env.WebhookInstallOptions
	mgr, err := manager.New(cfg, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{
			Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir,
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	mgr.GetWebhookServer().Register(webhook.Path, handler.Webhook())
	mgrCtx, stopManager := context.WithCancel(context.Background())
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stopManager()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

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

// plainWhenCRD is the extensions output without any of immutable-gen's
// extensions (the boolean forms and x-immutable-gen-when), which
// kube-apiserver does not know: served so, it enforces nothing itself.
func plainWhenCRD(t *testing.T, data []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var tree map[string]interface{}
	if err := yaml.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	if stripAll(tree) == 0 {
		t.Fatal("the extensions CRD has no immutability extension")
	}
	j, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(j), "x-kubernetes-validations") {
		t.Fatal("the extensions CRD has CEL rules: the test would not show the webhook enforcing")
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(j, crd); err != nil {
		t.Fatalf("the stripped CRD: %v", err)
	}
	return crd
}

func stripAll(v interface{}) int {
	n := 0
	switch x := v.(type) {
	case map[string]interface{}:
		for _, k := range append(extension.Names(), extension.When) {
			if _, ok := x[k]; ok {
				delete(x, k)
				n++
			}
		}
		for _, c := range x {
			n += stripAll(c)
		}
	case []interface{}:
		for _, c := range x {
			n += stripAll(c)
		}
	}
	return n
}
