package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
)

// gatewayAPI is the third-party API the preflight is tried on, from the Go
// module proxy at a pinned version.
const gatewayAPI = "sigs.k8s.io/gateway-api@v1.2.1"

// TestPreflightGatewayAPI tries preflight as a new user would, on a real
// project's CRDs and objects: the standard channel CRDs of Gateway API and
// its examples. Each example object is created on the API server (dry run)
// and checked by preflight as a create; then random updates of each are
// sent (dry run) and checked as updates. Every verdict and error must be
// the server's.
func TestPreflightGatewayAPI(t *testing.T) {
	dir := moduleDir(t, gatewayAPI)
	crdDir := filepath.Join(dir, "config", "crd", "standard")
	s := startServer(t)

	crdObjs, err := preflight.Load(crdDir)
	if err != nil {
		t.Fatal(err)
	}
	var crds []preflight.CRD
	gvrs := map[schema.GroupKind]string{} // plural of each kind
	for _, o := range crdObjs {
		js, err := json.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		crds = append(crds, preflight.CRD{Source: o.Source, Raw: js})
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(js, crd); err != nil {
			t.Fatal(err)
		}
		installAnyCRD(t, s, crd)
		gvrs[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd.Spec.Names.Plural
	}
	c, err := preflight.NewChecker(crds)
	if err != nil {
		t.Fatal(err)
	}

	var files []string
	err = filepath.WalkDir(filepath.Join(dir, "examples", "standard"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	p := &parity{}
	dyn, w := warningClient(t, s)
	p.warn = w
	ctx := context.Background()
	creates, updates, rejected, seq := 0, 0, 0, 0
	for _, f := range files {
		objs, err := preflight.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			key := preflight.KeyOf(o.Object)
			plural, ok := gvrs[schema.FromAPIVersionAndKind(key.APIVersion, key.Kind).GroupKind()]
			if !ok {
				continue // a Namespace, a Service: no CRD
			}
			gv, _ := schema.ParseGroupVersion(key.APIVersion)
			ns := key.Namespace
			if ns == "" {
				ns = preflight.DefaultNamespace
			}
			res := dyn.Resource(gv.WithResource(plural)).Namespace(ns)
			if key.Kind == "GatewayClass" {
				res = dyn.Resource(gv.WithResource(plural))
			}
			what := fmt.Sprintf("%s: %s", o.Source[len(dir)+1:], key)

			// The example, as a create.
			got, err := c.Create(o.Object)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			w.take()
			_, serr := res.Create(ctx, unstr(deepCopy(o.Object)), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			p.compare(t, "create "+what, nil, o.Object, got, serr)
			creates++
			if !got.Allowed() {
				rejected++
				continue
			}

			// Random updates of it, stored under a name of its own.
			seq++
			old := unstr(deepCopy(o.Object))
			old.SetName(fmt.Sprintf("%s-%03d", old.GetName(), seq))
			stored, err := res.Create(ctx, old, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s: storing it: %v", what, err)
			}
			var raw map[string]interface{}
			if err := utiljson.Unmarshal(crdSchemaJSON(t, crds, key.Kind), &raw); err != nil {
				t.Fatal(err)
			}
			g := preflighttest.New(raw, uint64(seq))
			g.Invalid = 10
			for j := 0; j < 4; j++ {
				spec, changes := g.Mutate(stored.Object["spec"])
				obj := deepCopy(stored.Object)
				obj["spec"] = spec
				obj = roundTripJSON(t, obj)
				got, err := c.Update(obj, stored.Object)
				if err != nil {
					t.Fatal(err)
				}
				w.take()
				_, serr := res.Update(ctx, unstr(obj), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
				p.compare(t, "update "+what+" ("+strings.Join(changes, "; ")+")", stored.Object, obj, got, serr)
				updates++
				if !got.Allowed() {
					rejected++
				}
			}
		}
	}
	t.Logf("%s: %d CRDs; %d example objects created and %d random updates of them: preflight agreed with the API server on each (%d rejected)",
		gatewayAPI, len(crds), creates, updates, rejected)
	if creates < 20 || updates < 50 {
		t.Fatalf("only %d creates and %d updates: the examples were not found", creates, updates)
	}
}

// moduleDir downloads a module through the Go module proxy and returns its
// directory.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", module, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s: %s %v", module, m.Error, err)
	}
	return m.Dir
}

// installAnyCRD creates a CRD of any number of versions and waits, bounded,
// until every served version answers.
func installAnyCRD(t *testing.T, s *server, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the API server refused CRD %s: %v", crd.Name, err)
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := s.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				return false, nil
			}
			return err == nil, err
		})
		if err != nil {
			t.Fatalf("CRD %s version %s not served: %v", crd.Name, v.Name, err)
		}
	}
}

// crdSchemaJSON returns the openAPIV3Schema of the storage version of the
// CRD of a kind.
func crdSchemaJSON(t *testing.T, crds []preflight.CRD, kind string) []byte {
	for _, c := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(c.Raw, crd); err != nil {
			t.Fatal(err)
		}
		if crd.Spec.Names.Kind != kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				b, err := json.Marshal(v.Schema.OpenAPIV3Schema)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
	}
	t.Fatalf("no CRD for %s", kind)
	return nil
}

func roundTripJSON(t *testing.T, obj map[string]interface{}) map[string]interface{} {
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]interface{}
	if err := utiljson.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
