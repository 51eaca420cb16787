package webhook_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

// The configuration docs/enforcement.md shows, for the bundled example CRD.
const wantConfiguration = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: immutable-fields
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /validate-immutable-fields
  failurePolicy: Fail
  matchPolicy: Equivalent
  name: immutable-fields.immutable-gen.io
  objectSelector:
    matchExpressions:
    - key: immutable-gen.io/skip
      operator: DoesNotExist
  rules:
  - apiGroups:
    - cache.example.com
    apiVersions:
    - v1
    operations:
    - UPDATE
    resources:
    - cacheclusters
    - cacheclusters/status
    scope: '*'
  sideEffects: None
  timeoutSeconds: 5
`

func TestConfiguration(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join("..", "..", "examples", "config", "crd", "extensions", "cache.example.com_cacheclusters.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	resources, err := enforce.FromCRD(manifest)
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		t.Fatal(err)
	}
	cfg := webhook.Configuration(webhook.ConfigurationOptions{
		Resources: h.Resources(),
		Service:   &admissionregistrationv1.ServiceReference{Namespace: "system", Name: "webhook-service"},
		ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "immutable-gen.io/skip", Operator: metav1.LabelSelectorOpDoesNotExist},
		}},
	})
	got, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// apimachinery before v0.34 (this module's floor is v0.31) writes the
	// zero creation time as null; later versions leave it out.
	got = bytes.Replace(got, []byte("  creationTimestamp: null\n"), nil, 1)
	if string(got) != wantConfiguration {
		t.Errorf("configuration:\n%s\nwant:\n%s", got, wantConfiguration)
	}
}

func TestConfigurationOptions(t *testing.T) {
	c := webhook.Configuration(webhook.ConfigurationOptions{
		Name:           "my-immutable-fields",
		WebhookName:    "immutable.cache.example.com",
		URL:            "https://127.0.0.1:9443/validate-immutable-fields",
		CABundle:       []byte("PEM"),
		FailurePolicy:  admissionregistrationv1.Ignore,
		TimeoutSeconds: 2,
		Resources: []enforce.Resource{
			{Resource: schema.GroupVersionResource{Group: "b.example.com", Version: "v1", Resource: "bs"}, Subresources: []string{"status", "status"}},
			{Resource: schema.GroupVersionResource{Group: "a.example.com", Version: "v1", Resource: "as"}},
		},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
	})
	w := c.Webhooks[0]
	switch {
	case c.Name != "my-immutable-fields" || w.Name != "immutable.cache.example.com":
		t.Errorf("names %s %s", c.Name, w.Name)
	case w.ClientConfig.URL == nil || *w.ClientConfig.URL != "https://127.0.0.1:9443/validate-immutable-fields" || w.ClientConfig.Service != nil || string(w.ClientConfig.CABundle) != "PEM":
		t.Errorf("client config %+v", w.ClientConfig)
	case *w.FailurePolicy != admissionregistrationv1.Ignore || *w.TimeoutSeconds != 2 || w.NamespaceSelector.MatchLabels["team"] != "a" || w.ObjectSelector != nil:
		t.Errorf("policy %+v", w)
	case len(w.Rules) != 2 || w.Rules[0].APIGroups[0] != "a.example.com" || len(w.Rules[1].Resources) != 2 || w.Rules[1].Resources[1] != "bs/status":
		t.Errorf("rules %+v", w.Rules)
	}

	// A service path of one's own is kept.
	p := "/custom"
	c = webhook.Configuration(webhook.ConfigurationOptions{Service: &admissionregistrationv1.ServiceReference{Namespace: "n", Name: "s", Path: &p}})
	if got := *c.Webhooks[0].ClientConfig.Service.Path; got != "/custom" {
		t.Errorf("path %s", got)
	}
}
