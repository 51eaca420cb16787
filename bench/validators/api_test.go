package validators

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/api/operation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"

	deployv1 "github.com/immutable-gen/immutable-gen/bench/validators/apis/deploy/v1"
	widgetv1 "github.com/immutable-gen/immutable-gen/bench/validators/apis/widget/v1"
)

// api is one test API as the differential and the benchmarks see it: its
// list shapes, its CRD (for the runtime and for the schema facts the
// classification needs) and one function per validator.
type api struct {
	name   string
	crd    string
	kind   string
	shapes shapes
	// random returns a random root object.
	random func(g *gen) interface{}
	// deepCopy copies a root object.
	deepCopy func(obj interface{}) interface{}
	// validationGen calls validation-gen's Validate_<Kind> for an update.
	validationGen func(obj, old interface{}) field.ErrorList
	// typed calls the ValidateImmutableUpdate immutable-gen validators wrote.
	typed func(obj, old interface{}) field.ErrorList
}

var updateOp = operation.Operation{Type: operation.Update}

var widgetAPI = api{
	name: "Widget",
	crd:  "config/crd/bench.immutable-gen.io_widgets.yaml",
	kind: "Widget",
	shapes: shapes{
		"WidgetSpec.Zones":    {set: true},
		"WidgetSpec.Tags":     {set: true},
		"WidgetSpec.Ports":    {keys: []string{"Name"}},
		"WidgetSpec.Backends": {keys: []string{"Name"}},
		"WidgetSpec.Shards":   {keys: []string{"Name"}},
	},
	random: func(g *gen) interface{} {
		w := &widgetv1.Widget{}
		w.APIVersion, w.Kind, w.Name = "bench.immutable-gen.io/v1", "Widget", "w"
		g.fillField(reflectValue(w), structField(w, "Spec"))
		return w
	},
	deepCopy: func(obj interface{}) interface{} { return obj.(*widgetv1.Widget).DeepCopy() },
	validationGen: func(obj, old interface{}) field.ErrorList {
		return widgetv1.Validate_Widget(context.Background(), updateOp, nil, obj.(*widgetv1.Widget), old.(*widgetv1.Widget))
	},
	typed: func(obj, old interface{}) field.ErrorList {
		return obj.(*widgetv1.Widget).ValidateImmutableUpdate(old.(*widgetv1.Widget))
	},
}

var deploymentAPI = api{
	name: "Deployment",
	crd:  "config/crd/bench.immutable-gen.io_deployments.yaml",
	kind: "Deployment",
	shapes: shapes{
		"PodSpec.Volumes":          {keys: []string{"Name"}},
		"PodSpec.InitContainers":   {keys: []string{"Name"}},
		"PodSpec.Containers":       {keys: []string{"Name"}},
		"PodSpec.ImagePullSecrets": {set: true},
		"Container.Ports":          {keys: []string{"ContainerPort"}},
		"Container.Env":            {keys: []string{"Name"}},
		"Container.VolumeMounts":   {keys: []string{"MountPath"}},
	},
	random: func(g *gen) interface{} {
		d := &deployv1.Deployment{}
		d.APIVersion, d.Kind, d.Name = "bench.immutable-gen.io/v1", "Deployment", "d"
		g.fillField(reflectValue(d), structField(d, "Spec"))
		return d
	},
	deepCopy: func(obj interface{}) interface{} { return obj.(*deployv1.Deployment).DeepCopy() },
	validationGen: func(obj, old interface{}) field.ErrorList {
		return deployv1.Validate_Deployment(context.Background(), updateOp, nil, obj.(*deployv1.Deployment), old.(*deployv1.Deployment))
	},
	typed: func(obj, old interface{}) field.ErrorList {
		return obj.(*deployv1.Deployment).ValidateImmutableUpdate(old.(*deployv1.Deployment))
	},
}

// checker compiles the API's CRD (generated with
// crd:immutability=extensions) with the runtime.
func (a *api) checker(tb testing.TB) *runtime.Checker {
	tb.Helper()
	b, err := os.ReadFile(a.crd)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := runtime.CompileCRD(b, runtime.CRDOptions{Group: "bench.immutable-gen.io", Kind: a.kind})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// schema returns the openAPIV3Schema of the API's CRD as generic JSON.
func (a *api) schema(tb testing.TB) map[string]interface{} {
	tb.Helper()
	b, err := os.ReadFile(a.crd)
	if err != nil {
		tb.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema map[string]interface{} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		tb.Fatal(err)
	}
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

// unstructured is obj as a webhook or the API server reads it: its JSON
// encoding, decoded as the API server decodes unstructured content.
func unstructured(tb testing.TB, obj interface{}) map[string]interface{} {
	tb.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	var u map[string]interface{}
	if err := utiljson.Unmarshal(b, &u); err != nil {
		tb.Fatal(err)
	}
	return u
}
