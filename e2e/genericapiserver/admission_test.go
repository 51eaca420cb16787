package genericapiserver

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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

const namespace = "default"

// extensionsCRD is the bundled example's CRD as immutable-gen
// crd:immutability=extensions writes it: the KEP booleans, no CEL rules.
var extensionsCRD = filepath.Join("..", "..", "examples", "config", "crd", "extensions", "cache.example.com_cacheclusters.yaml")

// writeAdmissionConfig writes the API server's admission configuration
// file, with the plugin's configuration inline.
func writeAdmissionConfig(t *testing.T) string {
	t.Helper()
	crd, err := filepath.Abs(extensionsCRD)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "admission.yaml")
	cfg := `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ImmutableFields
  configuration:
    apiVersion: immutable-gen.io/v1alpha1
    kind: ImmutableFieldsConfiguration
    resources:
    - crd: ` + crd + "\n"
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// plainCRD reads the extensions CRD and removes the immutability extensions:
// an API server does not know them (it would drop them, and strict field
// validation refuses them), so the served CRD enforces nothing itself, and
// the plugin, which reads the file with the extensions, is the only check.
func plainCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(extensionsCRD)
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]interface{}
	if err := yaml.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	stripped := strip(tree)
	if stripped == 0 {
		t.Fatal("the extensions CRD has no immutability extension")
	}
	j, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(j), "x-kubernetes-validations") {
		t.Fatal("the extensions CRD has CEL rules: the test would not show the plugin enforcing")
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(j, crd); err != nil {
		t.Fatalf("the stripped CRD: %v", err)
	}
	return crd
}

// strip removes the immutability extensions from a JSON tree and returns
// how many it removed.
func strip(v interface{}) int {
	n := 0
	switch x := v.(type) {
	case map[string]interface{}:
		for _, k := range []string{"x-kubernetes-immutable", "x-kubernetes-immutable-keys", "x-immutable-gen-immutable-once"} {
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

// installCRD creates crd and waits, bounded, until its resource answers.
func installCRD(t *testing.T, config *rest.Config, dyn dynamic.Interface, crd *apiextensionsv1.CustomResourceDefinition) schema.GroupVersionResource {
	t.Helper()
	cs, err := clientset.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict}); err != nil {
		t.Fatalf("creating CRD %s: %v", crd.Name, err)
	}
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: crd.Spec.Versions[0].Name, Resource: crd.Spec.Names.Plural}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("CRD %s not ready: %v", crd.Name, err)
	}
	return gvr
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

// refused checks that err is the plugin's 422 Invalid for the CacheCluster
// name, with one cause per wanted "field: type" (sorted).
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

func TestAdmissionPluginInGenericAPIServer(t *testing.T) {
	config := startServer(t, writeAdmissionConfig(t))
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	gvr := installCRD(t, config, dyn, plainCRD(t))
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

	t.Run("merge patch", func(t *testing.T) {
		create(t, "merge")
		_, err := res.Patch(ctx, "merge", types.MergePatchType, []byte(`{"spec": {"network": {"vpc": "vpc-2"}, "parameters": {"maxclients": "10"}}}`), metav1.PatchOptions{})
		refused(t, err, "merge", "spec.network: FieldValueInvalid", "spec.parameters: FieldValueForbidden")
	})

	t.Run("json patch", func(t *testing.T) {
		create(t, "jsonpatch")
		_, err := res.Patch(ctx, "jsonpatch", types.JSONPatchType, []byte(`[{"op": "replace", "path": "/spec/users/0/role", "value": "viewer"}, {"op": "add", "path": "/spec/storageClassName", "value": "fast"}]`), metav1.PatchOptions{})
		refused(t, err, "jsonpatch", "spec.users[0]: FieldValueInvalid", "spec.storageClassName: FieldValueForbidden")
	})

	t.Run("server-side apply", func(t *testing.T) {
		create(t, "apply")
		apply := object(t, `{apiVersion: cache.example.com/v1, kind: CacheCluster, metadata: {name: apply, namespace: default}, spec: {engine: memcached}}`)
		_, err := res.Apply(ctx, "apply", apply, metav1.ApplyOptions{FieldManager: "e2e", Force: true})
		refused(t, err, "apply", "spec.engine: FieldValueInvalid")
		// An apply that changes only mutable fields passes.
		apply = object(t, `{apiVersion: cache.example.com/v1, kind: CacheCluster, metadata: {name: apply, namespace: default}, spec: {version: "7.4"}}`)
		if _, err := res.Apply(ctx, "apply", apply, metav1.ApplyOptions{FieldManager: "e2e", Force: true}); err != nil {
			t.Fatal(err)
		}
		if got := str(get(t, "apply"), "spec", "version"); got != "7.4" {
			t.Errorf("version %q", got)
		}
	})

	t.Run("dry-run is checked and not persisted", func(t *testing.T) {
		c := create(t, "dryrun")
		forbidden := c.DeepCopy()
		_ = unstructured.SetNestedField(forbidden.Object, "vpc-2", "spec", "network", "vpc")
		_, err := res.Update(ctx, forbidden, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		refused(t, err, "dryrun", "spec.network: FieldValueInvalid")

		_, err = res.Patch(ctx, "dryrun", types.MergePatchType, []byte(`{"spec": {"engine": "memcached"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		refused(t, err, "dryrun", "spec.engine: FieldValueInvalid")

		allowed := c.DeepCopy()
		_ = unstructured.SetNestedField(allowed.Object, "7.4", "spec", "version")
		out, err := res.Update(ctx, allowed, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatalf("allowed dry-run update: %v", err)
		}
		if got := str(out, "spec", "version"); got != "7.4" {
			t.Errorf("dry-run response has version %q", got)
		}
		if got := str(get(t, "dryrun"), "spec", "version"); got != "7.2" {
			t.Errorf("a dry-run update was persisted: version %q", got)
		}
	})

	t.Run("allowed updates pass", func(t *testing.T) {
		create(t, "allowed")
		patch := `{"spec": {
			"version": "7.4",
			"shards": [{"name": "s1", "replicas": 3}, {"name": "s2", "replicas": 2}],
			"parameters": {"maxmemory": "2gb"},
			"users": [{"name": "alice", "role": "admin"}, {"name": "bob"}],
			"credentials": {"admin": {"secret": "s", "key": "k"}, "ops": {"secret": "t", "key": "k"}},
			"backup": {"bucket": "b1", "schedule": "daily"}}}`
		if _, err := res.Patch(ctx, "allowed", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("allowed patch refused: %v", err)
		}
		got := get(t, "allowed")
		if str(got, "spec", "version") != "7.4" || str(got, "spec", "backup", "bucket") != "b1" {
			t.Errorf("not persisted: %v", got.Object["spec"])
		}
		// The optional parent came with its immutable child; now the child is fixed...
		_, err := res.Patch(ctx, "allowed", types.MergePatchType, []byte(`{"spec": {"backup": {"bucket": "b2"}}}`), metav1.PatchOptions{})
		refused(t, err, "allowed", "spec.backup.bucket: FieldValueInvalid")
		// ...and the parent may go again.
		if _, err := res.Patch(ctx, "allowed", types.MergePatchType, []byte(`{"spec": {"backup": null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatalf("removing the optional parent refused: %v", err)
		}
		// The status subresource is checked too; the example's status has
		// no immutable field, so this passes.
		got = get(t, "allowed")
		_ = unstructured.SetNestedField(got.Object, int64(2), "status", "readyShards")
		if _, err := res.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("status update refused: %v", err)
		}
		if err := res.Delete(ctx, "allowed", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
	})

	t.Run("create is never checked", func(t *testing.T) {
		c := object(t, strings.Replace(cluster, "NAME", "fresh", 1))
		_ = unstructured.SetNestedField(c.Object, "memcached", "spec", "engine")
		if _, err := res.Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
