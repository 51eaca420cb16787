package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/immutable"
)

// jobSet is the third-party API the runtime's one-pass check is tried on,
// from the Go module proxy at a pinned version.
const jobSet = "sigs.k8s.io/jobset@v0.10.1"

// TestRuntimeOnJobSet tries the check the webhook runs on a real API whose
// immutable values are large: JobSet's CRD, with spec.replicatedJobs (a
// list map of whole Job templates, each with its pod template) marked
// x-kubernetes-immutable as +immutable on ReplicatedJobs marks it. From
// the two documents, in the bytes the API server writes (keys sorted, no
// white space) and in other bytes (indented, keys in reverse order), an
// update of mutable fields is allowed, and a changed image is one
// violation at spec.replicatedJobs, reported by its JSON type because the
// list is longer than immutable.MaxQuotedValue; DecodeObject with
// ValidateUpdate, and ValidateUpdate on the objects decoded in full, say
// the same. (The webhook's rendering of denials from the bytes,
// ValidateUpdateMarshaled, is internal to the runtime's modules, and
// tested there on the same spellings.)
func TestRuntimeOnJobSet(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches a module")
	}
	raw, err := os.ReadFile(filepath.Join(moduleDir(t, jobSet), "config", "components", "crd", "bases", "jobset.x-k8s.io_jobsets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd map[string]interface{}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	rj, ok := lookup(crd, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties", "replicatedJobs").(map[string]interface{})
	if !ok || rj["x-kubernetes-list-type"] != "map" {
		t.Fatalf("%s: spec.replicatedJobs is not the list map it was: %v", jobSet, rj["x-kubernetes-list-type"])
	}
	rj["x-kubernetes-immutable"] = true
	manifest, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	c, err := runtime.CompileCRD(manifest, runtime.CRDOptions{})
	if err != nil {
		t.Fatal(err)
	}

	old := jobSetObject("registry.example/trainer:v1", 3, false)
	relabeled := jobSetObject("registry.example/trainer:v1", 3, true)
	changed := jobSetObject("registry.example/trainer:v2", 3, false)
	if text, _ := json.Marshal(changed["spec"].(map[string]interface{})["replicatedJobs"]); len(text) <= immutable.MaxQuotedValue {
		t.Fatalf("replicatedJobs is %d bytes of JSON, want more than %d", len(text), immutable.MaxQuotedValue)
	}
	spellings := map[string]func(map[string]interface{}) []byte{
		"the API server's bytes": func(v map[string]interface{}) []byte { b, _ := json.Marshal(v); return b },
		"indented":               func(v map[string]interface{}) []byte { b, _ := json.MarshalIndent(v, "", "  "); return b },
		"keys reversed":          func(v map[string]interface{}) []byte { return reversedKeys(v) },
	}
	wantDenied := []string{`spec.replicatedJobs: Invalid value: "array": field is immutable`}
	for _, tc := range []struct {
		name     string
		obj, old map[string]interface{}
		want     []string
	}{
		{"unchanged", old, old, nil},
		{"a label and suspend changed", relabeled, old, nil},
		{"an image changed", changed, old, wantDenied},
	} {
		full := messagesOf(c.ValidateUpdate(tc.obj, tc.old))
		if strings.Join(full, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s, decoded in full: %q, want %q", tc.name, full, tc.want)
		}
		for sname, spell := range spellings {
			for oname, ospell := range spellings {
				obj, err := c.DecodeObject(spell(tc.obj))
				if err != nil {
					t.Fatal(err)
				}
				o, err := c.DecodeOldObject(ospell(tc.old), obj)
				if err != nil {
					t.Fatal(err)
				}
				if got := messagesOf(c.ValidateUpdate(obj, o)); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("%s, new %s, old %s: %q, want %q", tc.name, sname, oname, got, tc.want)
				}
			}
		}
	}
}

// jobSetObject is a JobSet of two replicated jobs (a driver and workers),
// each a Job template with a pod template of three containers, as a
// training job writes them; relabeled changes only what may change: a
// label and spec.suspend.
func jobSetObject(image string, envs int, relabeled bool) map[string]interface{} {
	container := func(name string) map[string]interface{} {
		var env []interface{}
		for i := 0; i < envs; i++ {
			env = append(env, map[string]interface{}{"name": fmt.Sprintf("SETTING_%d", i), "value": fmt.Sprintf("value-%d", i)})
		}
		return map[string]interface{}{
			"name":      name,
			"image":     image,
			"command":   []interface{}{"python", "-m", "train", "--epochs=10"},
			"env":       env,
			"resources": map[string]interface{}{"limits": map[string]interface{}{"cpu": "4", "memory": "16Gi"}},
		}
	}
	job := func(name string, replicas int64) map[string]interface{} {
		return map[string]interface{}{
			"name":     name,
			"replicas": replicas,
			"template": map[string]interface{}{
				"spec": map[string]interface{}{
					"parallelism":  int64(2),
					"completions":  int64(2),
					"backoffLimit": int64(0),
					"template": map[string]interface{}{
						"metadata": map[string]interface{}{"labels": map[string]interface{}{"role": name}},
						"spec": map[string]interface{}{
							"restartPolicy": "Never",
							"containers":    []interface{}{container("main"), container("sidecar"), container("metrics")},
						},
					},
				},
			},
		}
	}
	labels := map[string]interface{}{"team": "ml"}
	suspend := false
	if relabeled {
		labels["run"] = "2"
		suspend = true
	}
	return map[string]interface{}{
		"apiVersion": "jobset.x-k8s.io/v1alpha2",
		"kind":       "JobSet",
		"metadata":   map[string]interface{}{"name": "train", "namespace": "ml", "labels": labels, "resourceVersion": "42"},
		"spec": map[string]interface{}{
			"suspend":        suspend,
			"replicatedJobs": []interface{}{job("driver", 1), job("workers", 4)},
		},
	}
}

// reversedKeys writes v as JSON with every object's keys in reverse order.
func reversedKeys(v interface{}) []byte {
	var b bytes.Buffer
	var write func(v interface{})
	write = func(v interface{}) {
		switch x := v.(type) {
		case map[string]interface{}:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Sort(sort.Reverse(sort.StringSlice(keys)))
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				b.Write(kb)
				b.WriteByte(':')
				write(x[k])
			}
			b.WriteByte('}')
		case []interface{}:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		default:
			vb, _ := json.Marshal(x)
			b.Write(vb)
		}
	}
	write(v)
	return b.Bytes()
}

// lookup follows keys (strings) and indexes (ints) through decoded YAML.
func lookup(v interface{}, path ...interface{}) interface{} {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]interface{})
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]interface{})
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// messagesOf renders errs as field.Error renders them.
func messagesOf(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
