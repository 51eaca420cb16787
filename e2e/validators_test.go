package e2e

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
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
	t.Parallel() // after the tests that serve an API server or set variables, beside the other long ones
	src := filepath.Join(moduleDir(t, gatewayAPI), "apis", "v1")
	validatorsOnCopy(t, src, gatewayMarkers, 400)
}

// TestValidatorsBuiltinSpecs does the same on the main module's
// testdata/apis/bench: 24 kinds wrapping the specs and statuses of
// Kubernetes' built-in kinds (Pod, Deployment, StatefulSet, CronJob, …) with
// immutable copies of whole specs (a PodTemplateSpec with its ObjectMeta and
// managed fields, quantities, int-or-strings, list maps and sets of
// k8s.io/api), sets and =keys maps.
func TestValidatorsBuiltinSpecs(t *testing.T) {
	t.Parallel() // after the tests that serve an API server or set variables, beside the other long ones
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	validatorsOnCopy(t, filepath.Join(root, "testdata", "apis", "bench", "v1"), nil, 120)
}

// validatorsOnCopy copies the API package in src into a temporary module
// (with the markers added), generates its deep-copy code, typed validators
// and extensions CRDs there, and runs a test in it: for every CRD kind,
// random valid objects and updates from the CRD schema (package
// preflighttest, whole objects but metadata) decoded into the typed
// objects, perKind of them; the typed errors must be the runtime's on the
// JSON of the same objects, and some update must be rejected.
func validatorsOnCopy(t *testing.T, src string, markers map[string][]insertion, perKind int) {
	validatorsCopy(t, typedCopy{src: src, markers: markers, perKind: perKind})
}

// typedCopy is what validatorsCopy copies and checks.
type typedCopy struct {
	// src is the API package's directory; markers are inserted into its
	// files.
	src     string
	markers map[string][]insertion
	// perKind is the number of random updates per kind.
	perKind int
	// requires are module requirements of the copy ("path version")
	// beside immutable-gen's: the modules the API package imports, pinned.
	requires []string
	// tests are more test files written beside the generated check, by
	// name; "PKG" in them is the API package's name.
	tests map[string]string
}

// validatorsCopy is validatorsOnCopy, with requirements and tests of its
// own: it returns the output of the copy's tests.
func validatorsCopy(t *testing.T, c typedCopy) string {
	src, markers, perKind := c.src, c.markers, c.perKind
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
	pkgName := ""
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated.") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if f, err := parser.ParseFile(token.NewFileSet(), name, data, parser.PackageClauseOnly); err == nil {
			pkgName = f.Name.Name
		}
		for _, m := range markers[name] {
			if !strings.Contains(text, m.before) {
				t.Fatalf("%s: %q not found: the pinned source changed", name, m.before)
			}
			text = strings.Replace(text, m.before, m.marker+"\n"+m.before, 1)
		}
		if err := os.WriteFile(filepath.Join(api, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goMod := "module example.com/typedcopy\n\ngo 1.26.0\n\n" +
		"require (\n\tgithub.com/immutable-gen/immutable-gen v0.0.0\n\tgithub.com/immutable-gen/immutable-gen/runtime v0.0.0\n" +
		requireLines(c.requires) + ")\n\n" +
		"replace github.com/immutable-gen/immutable-gen => " + root + "\n\n" +
		"replace github.com/immutable-gen/immutable-gen/runtime => " + filepath.Join(root, "runtime") + "\n"
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
	// Built in the copy's module, as `go run`/`go tool` would build it
	// there, and run with a cache of its own, as a user's first run is.
	bin := filepath.Join(dir, "bin", "immutable-gen")
	runIn(t, dir, "go", "build", "-o", bin, "github.com/immutable-gen/immutable-gen/cmd/immutable-gen")
	runInEnv(t, dir, []string{"IMMUTABLE_GEN_CACHE=" + t.TempDir()}, bin, "object", "validators", "crd:immutability=extensions", "paths=./...", "output:crd:dir=crds")
	for _, f := range []string{"zz_generated.immutable.go", "zz_generated.deepcopy.go"} {
		if _, err := os.Stat(filepath.Join(api, f)); err != nil {
			t.Fatal(err)
		}
	}
	// One check per kind, by the CRDs written.
	crds, err := os.ReadDir(filepath.Join(dir, "crds"))
	if err != nil {
		t.Fatal(err)
	}
	var checks strings.Builder
	for _, c := range crds {
		data, err := os.ReadFile(filepath.Join(dir, "crds", c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct{ Names struct{ Kind string } }
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&checks, "\tt.Run(%q, func(t *testing.T) { check[v1.%s](t, %q, %q, %d) })\n", crd.Spec.Names.Kind, crd.Spec.Names.Kind, crd.Spec.Names.Kind, c.Name(), perKind)
	}
	test := strings.Replace(typedCheck, "package v1_test", "package "+pkgName+"_test", 1) + "\nfunc TestKinds(t *testing.T) {\n" + checks.String() + "}\n"
	if err := os.WriteFile(filepath.Join(api, "validators_e2e_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range c.tests {
		if err := os.WriteFile(filepath.Join(api, name), []byte(strings.ReplaceAll(text, "PKG", pkgName)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The test file imports packages the API does not: tidy first.
	runIn(t, dir, "go", "mod", "tidy")
	out := runIn(t, dir, "go", "test", "-count=1", "-v", "./...")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "updates,") {
			t.Log(strings.TrimSpace(line))
		}
	}
	return out
}

// requireLines renders module requirements as lines of a require block.
func requireLines(requires []string) string {
	var b strings.Builder
	for _, r := range requires {
		b.WriteString("\t" + r + "\n")
	}
	return b.String()
}

// runIn runs a command in dir and returns its output; a failure ends the test.
func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	return runInEnv(t, dir, nil, name, args...)
}

// runInEnv is runIn with env added to the command's environment (a test
// that runs in parallel cannot set its own).
func runInEnv(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod"), env...)
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

// typedCheck is the test written into the copy's apis/v1, before the list
// of kinds.
const typedCheck = `package v1_test

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

	v1 "example.com/typedcopy/apis/v1"
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

func check[T any, PT validated[T]](t *testing.T, kind, crdFile string, n int) {
	manifest, err := os.ReadFile(filepath.Join("..", "..", "crds", crdFile))
	if err != nil {
		t.Fatal(err)
	}
	c, err := runtime.CompileCRD(manifest, runtime.CRDOptions{Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Group    string
			Versions []struct {
				Name    string
				Storage bool
				Schema  struct{ OpenAPIV3Schema map[string]any }
			}
		}
	}
	if err := yaml.Unmarshal(manifest, &crd); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	var version string
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			schema, version = v.Schema.OpenAPIV3Schema, v.Name
		}
	}
	// Whole objects but metadata: the root's properties as the generator's
	// "spec".
	props := map[string]any{}
	for k, v := range schema["properties"].(map[string]any) {
		if k != "metadata" && k != "apiVersion" && k != "kind" {
			props[k] = v
		}
	}
	wrapped := map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": props}}}
	typed := func(content any) (PT, map[string]any, bool) {
		obj := map[string]any{}
		for k, v := range content.(map[string]any) {
			obj[k] = v
		}
		obj["apiVersion"], obj["kind"], obj["metadata"] = crd.Spec.Group+"/"+version, kind, map[string]any{"name": "x"}
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
	for seed := range uint64(n) {
		g := preflighttest.New(wrapped, seed)
		g.Invalid = 0
		content := g.Spec()
		if _, ok := content.(map[string]any); !ok {
			skipped++
			continue
		}
		changed, _ := g.Mutate(content)
		if _, ok := changed.(map[string]any); !ok {
			skipped++
			continue
		}
		old, om, ok1 := typed(content)
		obj, nm, ok2 := typed(changed)
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
	if updates == 0 {
		t.Errorf("%s: no update could be decoded", kind)
	}
}
`
