package admission_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/admission"

	immutableadmission "github.com/immutable-gen/immutable-gen/runtime/admission"
)

func abs(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// exampleCEL is the path of the bundled example's CRD as immutable-gen crd
// writes it by default, with CEL rules and no extensions.
func exampleCEL(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "examples", "config", "crd", "bases", "cache.example.com_cacheclusters.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadConfiguration(t *testing.T) {
	cfg := `
apiVersion: immutable-gen.io/v1alpha1
kind: ImmutableFieldsConfiguration
resources:
- crd: ` + abs(t, "widgets-crd.yaml") + `
- group: wardle.example.com
  version: v1alpha1
  resource: flunders
  subresources: [status]
  openAPI: ` + abs(t, "wardle-openapi-v2.json") + `
  definition: com.example.wardle.v1alpha1.Flunder
`
	rs, err := immutableadmission.ReadConfiguration([]byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.String())
	}
	want := "example.com/v1, Resource=widgets (subresources: status)\nexample.com/v1beta1, Resource=widgets\nwardle.example.com/v1alpha1, Resource=flunders (subresources: status)"
	if strings.Join(got, "\n") != want {
		t.Errorf("resources:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func TestReadConfigurationErrors(t *testing.T) {
	head := "apiVersion: immutable-gen.io/v1alpha1\nkind: ImmutableFieldsConfiguration\n"
	for name, tc := range map[string]struct{ cfg, want string }{
		"wrong kind":    {"apiVersion: v1\nkind: ConfigMap\n", `want apiVersion immutable-gen.io/v1alpha1, kind ImmutableFieldsConfiguration; got apiVersion "v1", kind "ConfigMap"`},
		"unknown field": {head + "resources: [{crds: x}]\n", `unknown field "crds"`},
		"crd and more":  {head + "resources: [{crd: x, group: g}]\n", "resources[0]: crd is given"},
		"missing crd":   {head + "resources: [{crd: /nonexistent/crd.yaml}]\n", "resources[0]: open /nonexistent/crd.yaml"},
		"no resource":   {head + "resources: [{group: g, version: v1}]\n", "resources[0]: give crd, or version, resource"},
		"no openAPI":    {head + "resources: [{version: v1, resource: r}]\n", "resources[0]: openAPI and definition are required"},
		"bad definition": {head + "resources: [{version: v1, resource: r, openAPI: " + abs(t, "wardle-openapi-v2.json") + ", definition: Nope}]\n",
			`resources[0]: ` + abs(t, "wardle-openapi-v2.json") + `: OpenAPI document: no OpenAPI definition "Nope"`},
		// The default CEL output of immutable-gen crd: the API server enforces
		// it; the plugin refuses it rather than check nothing.
		"CEL CRD": {head + "resources: [{crd: " + exampleCEL(t) + "}]\n",
			`resources[0]: ` + exampleCEL(t) + `: CustomResourceDefinition cacheclusters.cache.example.com has no immutability extensions in any served version`},
		"CEL CRD fix": {head + "resources: [{crd: " + exampleCEL(t) + "}]\n", "for the runtime, give the CRD generated with crd:immutability=extensions"},
		"definition without extensions": {head + "resources: [{version: v1, resource: r, openAPI: " + abs(t, "wardle-openapi-v2.json") + ", definition: io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta}]\n",
			`resources[0]: ` + abs(t, "wardle-openapi-v2.json") + `: OpenAPI document: OpenAPI definition io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta has no immutability extensions`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := immutableadmission.ReadConfiguration([]byte(tc.cfg))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "ImmutableFields configuration: ") {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestRegister builds the plugin as the API server does, from the registry
// and the plugin's admission configuration.
func TestRegister(t *testing.T) {
	plugins := admission.NewPlugins()
	immutableadmission.Register(plugins)
	if got := plugins.Registered(); len(got) != 1 || got[0] != immutableadmission.PluginName {
		t.Fatalf("registered: %v", got)
	}
	cfg := "apiVersion: immutable-gen.io/v1alpha1\nkind: ImmutableFieldsConfiguration\nresources: [{crd: " + abs(t, "widgets-crd.yaml") + "}]\n"
	p, err := plugins.InitPlugin(immutableadmission.PluginName, bytes.NewBufferString(cfg), admission.PluginInitializers{})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := p.(admission.ValidationInterface)
	if !ok {
		t.Fatalf("%T is not a ValidationInterface", p)
	}
	if _, mutates := p.(admission.MutationInterface); mutates {
		t.Error("the plugin must not mutate")
	}
	obj := widget(map[string]interface{}{"class": "silver"}, nil)
	old := widget(map[string]interface{}{"class": "gold"}, nil)
	if err := v.Validate(context.Background(), attrs(admission.Update, "", false, obj, old), nil); !apierrors.IsInvalid(err) {
		t.Fatalf("got %v", err)
	}

	// Enabled without a configuration, it refuses to start.
	if _, err := plugins.InitPlugin(immutableadmission.PluginName, nil, admission.PluginInitializers{}); err == nil || !strings.Contains(err.Error(), "no resources configured") {
		t.Errorf("no configuration: %v", err)
	}
}

func TestRegisterWith(t *testing.T) {
	plugins := admission.NewPlugins()
	immutableadmission.RegisterWith(plugins, immutableadmission.Options{Resources: widgetResources(t)})
	p, err := plugins.InitPlugin(immutableadmission.PluginName, nil, admission.PluginInitializers{})
	if err != nil {
		t.Fatal(err)
	}
	obj := widget(map[string]interface{}{"class": "silver"}, nil)
	old := widget(map[string]interface{}{"class": "gold"}, nil)
	if err := p.(admission.ValidationInterface).Validate(context.Background(), attrs(admission.Update, "", false, obj, old), nil); !apierrors.IsInvalid(err) {
		t.Fatalf("got %v", err)
	}
	// Go options and the configuration file add up; a resource in both is an error.
	cfg := "apiVersion: immutable-gen.io/v1alpha1\nkind: ImmutableFieldsConfiguration\nresources: [{crd: " + abs(t, "widgets-crd.yaml") + "}]\n"
	if _, err := plugins.InitPlugin(immutableadmission.PluginName, bytes.NewBufferString(cfg), admission.PluginInitializers{}); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("duplicate: %v", err)
	}
}
