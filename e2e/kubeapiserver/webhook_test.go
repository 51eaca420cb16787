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
	"k8s.io/client-go/rest"
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

const namespace = "default"

// extensionsCRD is the bundled example's CRD as immutable-gen
// crd:immutability=extensions writes it: the KEP booleans, no CEL rules.
var extensionsCRD = filepath.Join("..", "..", "examples", "config", "crd", "extensions", "cache.example.com_cacheclusters.yaml")

// plainCRD is the extensions CRD with the immutability extensions removed:
// kube-apiserver does not know them (strict field validation refuses them),
// and without them and without CEL rules the served CRD enforces nothing
// itself, so the webhook, which holds the schema with the extensions, is the
// only check.
func plainCRD(t *testing.T, data []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var tree map[string]interface{}
	if err := yaml.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	if strip(tree) == 0 {
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

// strip removes immutable-gen's extensions (the forms' and
// x-immutable-gen-when) from a JSON tree and returns how many it removed.
func strip(v interface{}) int {
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
			n += strip(c)
		}
	case []interface{}:
		for _, c := range x {
			n += strip(c)
		}
	}
	return n
}

func object(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const cluster = `
apiVersion: cache.example.com/v1
kind: CacheCluster
metadata: {name: NAME, namespace: default}
spec:
  engine: redis
  version: "7.2"
  network: {vpc: vpc-1, subnets: [a]}
  shards: [{name: s1, replicas: 1}, {name: s2, replicas: 2}]
  zones: [a, b]
  parameters: {maxmemory: 1gb}
  credentials: {admin: {secret: s, key: k}}
  users: [{name: alice, role: admin}]
`

// deniedBy is how kube-apiserver prefixes a webhook's denial.
const deniedBy = `admission webhook "` + webhook.DefaultWebhookName + `" denied the request: `

// refused checks that err is the webhook's 422 Invalid for the CacheCluster
// name, passed on by kube-apiserver, with one cause per wanted
// "field: type".
func refused(t *testing.T, err error, name string, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the update was accepted; want 422 Invalid for %v", want)
	}
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		t.Fatalf("want 422 Invalid, got %v", err)
	}
	st := status.Status()
	if st.Code != 422 || st.Details == nil || st.Details.Kind != "CacheCluster" || st.Details.Group != "cache.example.com" || st.Details.Name != name {
		t.Fatalf("status %+v", st)
	}
	if !strings.HasPrefix(st.Message, deniedBy+`CacheCluster.cache.example.com "`+name+`" is invalid: `) {
		t.Errorf("message %q", st.Message)
	}
	var got []string
	for _, c := range st.Details.Causes {
		got = append(got, c.Field+": "+string(c.Type))
		if !strings.Contains(c.Message, "immutable") {
			t.Errorf("cause %s: message %q does not say immutable", c.Field, c.Message)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("causes:\n%s\nwant:\n%s\n(%v)", strings.Join(got, "\n"), strings.Join(want, "\n"), err)
	}
}

func TestWebhookBehindKubeAPIServer(t *testing.T) {
	ctrllog.SetLogger(logr.Discard())
	manifest, err := os.ReadFile(extensionsCRD)
	if err != nil {
		t.Fatal(err)
	}

	// The webhook: a Handler for every served version of the CRD, from the
	// manifest with the extensions, and the configuration generated for it.
	resources, err := enforce.FromCRD(manifest)
	if err != nil {
		t.Fatal(err)
	}
	handler, err := webhook.NewHandler(resources)
	if err != nil {
		t.Fatal(err)
	}
	configuration := webhook.Configuration(webhook.ConfigurationOptions{
		Resources: handler.Resources(),
		// envtest points a service reference at its local webhook server.
		Service: &admissionregistrationv1.ServiceReference{Namespace: "system", Name: "webhook-service"},
		ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "immutable-gen.io/skip", Operator: metav1.LabelSelectorOpDoesNotExist},
		}},
	})

	start := time.Now()
	cfg, stop := serve(t, handler, configuration, plainCRD(t, manifest))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "cache.example.com", Version: "v1", Resource: "cacheclusters"}
	res := dyn.Resource(gvr).Namespace(namespace)
	ctx := context.Background()

	create := func(t *testing.T, name string) *unstructured.Unstructured {
		t.Helper()
		created, err := res.Create(ctx, object(t, strings.Replace(cluster, "NAME", name, 1)), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		return created
	}
	get := func(t *testing.T, name string) *unstructured.Unstructured {
		t.Helper()
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	str := func(u *unstructured.Unstructured, path ...string) string {
		s, _, _ := unstructured.NestedString(u.Object, path...)
		return s
	}

	// The API server picks the configuration up asynchronously: wait,
	// bounded, until a forbidden dry-run update is refused.
	create(t, "probe")
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := res.Patch(ctx, "probe", types.MergePatchType, []byte(`{"spec": {"engine": "memcached"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		return apierrors.IsInvalid(err), nil
	})
	if err != nil {
		t.Fatalf("the webhook never refused a forbidden update: %v", err)
	}
	t.Logf("webhook active %v after start", time.Since(start).Round(time.Millisecond))

	t.Run("update", func(t *testing.T) {
		c := create(t, "update")
		_ = unstructured.SetNestedField(c.Object, "memcached", "spec", "engine")
		_ = unstructured.SetNestedSlice(c.Object, []interface{}{
			map[string]interface{}{"name": "s1", "replicas": int64(1)},
			map[string]interface{}{"name": "s2", "replicas": int64(2)},
			map[string]interface{}{"name": "s3", "replicas": int64(1)},
		}, "spec", "shards")
		_, err := res.Update(ctx, c, metav1.UpdateOptions{})
		refused(t, err, "update", "spec.engine: FieldValueInvalid", "spec.shards: FieldValueForbidden")
		if got := str(get(t, "update"), "spec", "engine"); got != "redis" {
			t.Errorf("engine is %q after a refused update", got)
		}
	})

	t.Run("patch", func(t *testing.T) {
		create(t, "patch")
		_, err := res.Patch(ctx, "patch", types.MergePatchType, []byte(`{"spec": {"network": {"vpc": "vpc-2"}, "parameters": {"maxclients": "10"}}}`), metav1.PatchOptions{})
		refused(t, err, "patch", "spec.network: FieldValueInvalid", "spec.parameters: FieldValueForbidden")
		_, err = res.Patch(ctx, "patch", types.JSONPatchType, []byte(`[{"op": "replace", "path": "/spec/users/0/role", "value": "viewer"}]`), metav1.PatchOptions{})
		refused(t, err, "patch", "spec.users[0]: FieldValueInvalid")
	})

	t.Run("server-side apply", func(t *testing.T) {
		create(t, "apply")
		apply := object(t, `{apiVersion: cache.example.com/v1, kind: CacheCluster, metadata: {name: apply, namespace: default}, spec: {engine: memcached}}`)
		_, err := res.Apply(ctx, "apply", apply, metav1.ApplyOptions{FieldManager: "e2e", Force: true})
		refused(t, err, "apply", "spec.engine: FieldValueInvalid")
		apply = object(t, `{apiVersion: cache.example.com/v1, kind: CacheCluster, metadata: {name: apply, namespace: default}, spec: {version: "7.4"}}`)
		if _, err := res.Apply(ctx, "apply", apply, metav1.ApplyOptions{FieldManager: "e2e", Force: true}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("dry-run is checked and not persisted", func(t *testing.T) {
		c := create(t, "dryrun")
		forbidden := c.DeepCopy()
		_ = unstructured.SetNestedField(forbidden.Object, "vpc-2", "spec", "network", "vpc")
		_, err := res.Update(ctx, forbidden, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		refused(t, err, "dryrun", "spec.network: FieldValueInvalid")

		allowed := c.DeepCopy()
		_ = unstructured.SetNestedField(allowed.Object, "7.4", "spec", "version")
		out, err := res.Update(ctx, allowed, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatalf("allowed dry-run update: %v", err)
		}
		if got := str(out, "spec", "version"); got != "7.4" {
			t.Errorf("dry-run response has version %q", got)
		}
		got := get(t, "dryrun")
		if v := str(got, "spec", "version"); v != "7.2" {
			t.Errorf("a dry-run update was persisted: version %q", v)
		}
		if got.GetResourceVersion() != c.GetResourceVersion() {
			t.Errorf("resourceVersion moved from %s to %s by dry-run requests", c.GetResourceVersion(), got.GetResourceVersion())
		}
	})

	t.Run("allowed updates pass", func(t *testing.T) {
		create(t, "allowed")
		patch := `{"spec": {
			"version": "7.4",
			"shards": [{"name": "s1", "replicas": 3}, {"name": "s2", "replicas": 2}],
			"parameters": {"maxmemory": "2gb"},
			"users": [{"name": "alice", "role": "admin"}, {"name": "bob"}],
			"backup": {"bucket": "b1"}}}`
		if _, err := res.Patch(ctx, "allowed", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("allowed patch refused: %v", err)
		}
		got := get(t, "allowed")
		if str(got, "spec", "version") != "7.4" || str(got, "spec", "backup", "bucket") != "b1" {
			t.Errorf("not persisted: %v", got.Object["spec"])
		}
		_, err := res.Patch(ctx, "allowed", types.MergePatchType, []byte(`{"spec": {"backup": {"bucket": "b2"}}}`), metav1.PatchOptions{})
		refused(t, err, "allowed", "spec.backup.bucket: FieldValueInvalid")
		// The status subresource is routed to the webhook too; the
		// example's status has no immutable field.
		got = get(t, "allowed")
		_ = unstructured.SetNestedField(got.Object, int64(2), "status", "readyShards")
		if _, err := res.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("status update refused: %v", err)
		}
	})

	t.Run("objectSelector exempts labelled objects", func(t *testing.T) {
		c := object(t, strings.Replace(cluster, "NAME", "exempt", 1))
		c.SetLabels(map[string]string{"immutable-gen.io/skip": "true"})
		if _, err := res.Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := res.Patch(ctx, "exempt", types.MergePatchType, []byte(`{"spec": {"engine": "memcached"}}`), metav1.PatchOptions{}); err != nil {
			t.Fatalf("an object the selector exempts was checked: %v", err)
		}
	})

	t.Run("failurePolicy Fail refuses updates while the webhook is down", func(t *testing.T) {
		create(t, "down")
		stop()
		_, err := res.Patch(ctx, "down", types.MergePatchType, []byte(`{"spec": {"version": "7.4"}}`), metav1.PatchOptions{})
		if err == nil || !strings.Contains(err.Error(), `failed calling webhook "`+webhook.DefaultWebhookName+`"`) {
			t.Fatalf("want the update refused for the unreachable webhook, got %v", err)
		}
		// Creates and deletes are not routed to the webhook.
		create(t, "down2")
		if err := res.Delete(ctx, "down2", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// serve starts kube-apiserver and etcd under envtest with the CRDs and the
// webhook configuration, and a controller-runtime manager serving the
// webhook handler as an operator registers it; stop stops the manager
// (the test's cleanup does too, and stops envtest).
func serve(t *testing.T, handler *webhook.Handler, configuration *admissionregistrationv1.ValidatingWebhookConfiguration, crds ...*apiextensionsv1.CustomResourceDefinition) (cfg *rest.Config, stop func()) {
	t.Helper()
	env := &envtest.Environment{
		BinaryAssetsDirectory: binDir,
		CRDs:                  crds,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			LocalServingHost:   "127.0.0.1",
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{configuration},
		},
	}
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest (kube-apiserver and etcd from %s): %v", binDir, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	})
	t.Logf("kube-apiserver on %s, ready in %v", cfg.Host, time.Since(start).Round(time.Millisecond))
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
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			stopManager()
			if err := <-mgrDone; err != nil {
				t.Errorf("manager: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return cfg, stop
}
