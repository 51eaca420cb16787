package runtime_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type widgetObj struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetSpec `json:"spec"`
}

type widgetSpec struct {
	Name     string            `json:"name,omitempty"`
	Replicas *int32            `json:"replicas,omitempty"`
	Ratio    float64           `json:"ratio,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Ports    []port            `json:"ports,omitempty"`
	Args     []string          `json:"args,omitempty"`
}

type port struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	Port     int32  `json:"port"`
}

func TestValidateUpdateTyped(t *testing.T) {
	c := widget(t)
	three := int32(3)
	base := widgetObj{
		TypeMeta:   metav1.TypeMeta{Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", ResourceVersion: "1"},
		Spec: widgetSpec{Name: "a", Replicas: &three, Ratio: 0.5, Tags: []string{"a", "b"}, Labels: map[string]string{"k": "v"},
			Ports: []port{{"http", "TCP", 80}, {"dns", "UDP", 53}}, Args: []string{"x"}},
	}
	changed := base
	changed.ResourceVersion = "2"
	changed.Spec.Name = "b"
	changed.Spec.Tags = []string{"b", "a"}
	changed.Spec.Labels = map[string]string{"k": "w", "j": "v"}
	changed.Spec.Ports = []port{{"dns", "UDP", 53}, {"http", "TCP", 8080}}
	changed.Spec.Args = []string{"x", "y"}
	want := []string{
		`spec.labels: Forbidden: key "j" may not be added: keys are immutable`,
		`spec.name: Invalid value: "b": field is immutable`,
		`spec.ports[1]: Invalid value: {"name":"http","port":8080,"protocol":"TCP"}: field is immutable`,
	}

	checkMessages(t, c.ValidateUpdateTyped(&changed, &base), want)
	checkMessages(t, c.ValidateUpdateTyped(changed, base), want)
	checkMessages(t, c.ValidateUpdateTyped(&base, &base), nil)
	copied := base
	checkMessages(t, c.ValidateUpdateTyped(copied, base), nil)
	checkMessages(t, c.ValidateUpdateTyped(nil, &base), nil)
	checkMessages(t, c.ValidateUpdateTyped((*widgetObj)(nil), &base), nil)

	u := &unstructured.Unstructured{Object: object(t, `spec: {name: c}`)}
	checkMessages(t, c.ValidateUpdateTyped(u, &base), []string{
		`spec.labels: Forbidden: field "labels" has immutable keys and may not be removed`,
		`spec.name: Invalid value: "c": field is immutable`,
		`spec.ratio: Forbidden: field "ratio" is immutable and may not be removed`,
		`spec.replicas: Forbidden: field "replicas" is immutable and may not be removed`,
		`spec.tags: Forbidden: field "tags" is immutable and may not be removed`,
	})
	checkMessages(t, c.ValidateUpdateTyped(u.Object, u), nil)

	type withFunc struct {
		Spec struct{ F func() } `json:"spec"`
	}
	errs := c.ValidateUpdateTyped(withFunc{}, &base)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeInternal || !strings.Contains(errs[0].Error(), "converting the new object") {
		t.Errorf("func field: got %v, want one internal error", errs)
	}
}
