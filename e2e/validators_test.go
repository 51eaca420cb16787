package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidatorsGatewayAPI tries `immutable-gen validators` on a real
// project's Go types: Gateway API's apis/v1 from the Go module proxy at the
// pinned version, copied with immutability markers added where the project
// documents fields as immutable or keyed. It generates the typed validators,
// the deep-copy code and the CRDs with the extensions into the copy, then
// runs a test inside it: random valid updates of each kind's spec (from the
// CRD schema, package preflighttest), decoded into the typed objects; the
// typed verdicts and errors must be the runtime's on the JSON of the same
// objects.
func TestValidatorsGatewayAPI(t *testing.T) {
	src := filepath.Join(moduleDir(t, gatewayAPI), "apis", "v1")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	api := filepath.Join(dir, "apis", "v1")
	if err := os.MkdirAll(api, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "zz_generated.deepcopy.go" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, m := range gatewayMarkers[name] {
			if !strings.Contains(text, m.before) {
				t.Fatalf("%s: %q not found: the pinned Gateway API changed", name, m.before)
			}
			text = strings.Replace(text, m.before, m.marker+"\n"+m.before, 1)
		}
		if err := os.WriteFile(filepath.Join(api, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goMod := "module example.com/gatewayvalidators\n\ngo 1.26.0\n\n" +
		"require github.com/immutable-gen/immutable-gen v0.0.0\n\n" +
		"replace github.com/immutable-gen/immutable-gen => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	// The main module's go.sum has every module the copy needs.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(api, "validators_e2e_test.go"), []byte(gatewayCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "immutable-gen")
	runIn(t, root, "go", "build", "-o", bin, "./cmd/immutable-gen")
	// The test file imports packages the API does not: tidy first.
	runIn(t, dir, "go", "mod", "tidy")
	runIn(t, dir, bin, "object", "validators", "crd:immutability=extensions", "paths=./...", "output:crd:dir=crds")
	for _, f := range []string{"zz_generated.immutable.go", "zz_generated.deepcopy.go"} {
		if _, err := os.Stat(filepath.Join(api, f)); err != nil {
			t.Fatal(err)
		}
	}
	out := runIn(t, dir, "go", "test", "-count=1", "-v", "./...")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "updates,") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

// runIn runs a command in dir and returns its output; a failure ends the test.
func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

type insertion struct{ before, marker string }

// gatewayMarkers are the markers added to the copy, per file: before the
// given line. Gateway API documents (and enforces by hand-written CEL
// rules or webhooks) that a GatewayClass's controller never changes; the
// others exercise each form on its types.
var gatewayMarkers = map[string][]insertion{
	"gatewayclass_types.go": {
		{"\tControllerName GatewayController `json:\"controllerName\"`", "\t// +immutable"},
	},
	"gateway_types.go": {
		{"\tGatewayClassName ObjectName `json:\"gatewayClassName\"`", "\t// +immutable"},
		{"\tListeners []Listener `json:\"listeners\"`", "\t// +immutable=keys"},
		{"\tName SectionName `json:\"name\"`", "\t// +immutable"},
		{"\tAddresses []GatewayAddress `json:\"addresses,omitempty\"`", "\t// +immutable"},
	},
	"httproute_types.go": {
		{"\tHostnames []Hostname `json:\"hostnames,omitempty\"`", "\t// +immutable=once"},
	},
}

// gatewayCheck is the test written into the copy's apis/v1.
const gatewayCheck = `package v1_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
	"github.com/immutable-gen/immutable-gen/runtime"

	v1 "example.com/gatewayvalidators/apis/v1"
)

type validated[T any] interface {
	*T
	ValidateImmutableUpdate(old *T) field.ErrorList
}

func describe(l field.ErrorList) string {
	var b strings.Builder
	for _, e := range l {
		fmt.Fprintf(&b, "%s | %s | %s | %s\n", e.Type, e.Field, e.Detail, e.Origin)
	}
	return b.String()
}

func check[T any, PT validated[T]](t *testing.T, kind, crdFile string) {
	manifest, err := os.ReadFile(filepath.Join("..", "..", "crds", crdFile))
	if err != nil {
		t.Fatal(err)
	}
	c, err := runtime.CompileCRD(manifest, runtime.CRDOptions{Kind: kind, Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string
				Schema struct{ OpenAPIV3Schema map[string]any }
			}
		}
	}
	if err := yaml.Unmarshal(manifest, &crd); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1" {
			schema = v.Schema.OpenAPIV3Schema
		}
	}
	typed := func(spec any) (PT, map[string]any, bool) {
		obj := map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": "x"}, "spec": spec}
		data, _ := json.Marshal(obj)
		var x T
		if err := json.Unmarshal(data, &x); err != nil {
			return nil, nil, false
		}
		// The JSON of the typed object, as the server would store it.
		data, err := json.Marshal(&x)
		if err != nil {
			return nil, nil, false
		}
		var m map[string]any
		if err := utiljson.Unmarshal(data, &m); err != nil {
			return nil, nil, false
		}
		return PT(&x), m, true
	}
	updates, rejected, skipped := 0, 0, 0
	for seed := range uint64(400) {
		g := preflighttest.New(schema, seed)
		g.Invalid = 0
		spec := g.Spec()
		newSpec, _ := g.Mutate(spec)
		old, om, ok1 := typed(spec)
		obj, nm, ok2 := typed(newSpec)
		if !ok1 || !ok2 {
			skipped++
			continue
		}
		updates++
		want := describe(c.ValidateUpdate(nm, om))
		got := describe(obj.ValidateImmutableUpdate((*T)(old)))
		if want != "" {
			rejected++
		}
		if got != want {
			t.Errorf("%s seed %d: typed:\n%sruntime:\n%s", kind, seed, got, want)
		}
	}
	fmt.Printf("%s: %d updates, %d rejected, %d not decodable\n", kind, updates, rejected, skipped)
	if rejected == 0 {
		t.Errorf("%s: no update was rejected: the check checks nothing", kind)
	}
}

func TestGatewayClass(t *testing.T) {
	check[v1.GatewayClass](t, "GatewayClass", "gateway.networking.k8s.io_gatewayclasses.yaml")
}

func TestGateway(t *testing.T) {
	check[v1.Gateway](t, "Gateway", "gateway.networking.k8s.io_gateways.yaml")
}

func TestHTTPRoute(t *testing.T) {
	check[v1.HTTPRoute](t, "HTTPRoute", "gateway.networking.k8s.io_httproutes.yaml")
}
`
