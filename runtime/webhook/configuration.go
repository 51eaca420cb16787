package webhook

import (
	"sort"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
)

// Defaults of ConfigurationOptions.
const (
	DefaultName           = "immutable-fields"
	DefaultWebhookName    = "immutable-fields.immutable-gen.io"
	DefaultTimeoutSeconds = 5
)

// ConfigurationOptions describe the ValidatingWebhookConfiguration.
type ConfigurationOptions struct {
	// Name of the configuration object; DefaultName if empty.
	Name string
	// WebhookName is the name of its one webhook, a DNS name with at least
	// three labels; DefaultWebhookName if empty.
	WebhookName string
	// Resources whose updates are routed to the webhook, with their
	// subresources: one rule each. Usually Handler.Resources().
	Resources []enforce.Resource

	// Service is the in-cluster service serving the webhook; its Path
	// defaults to Path. Give Service or URL.
	Service *admissionregistrationv1.ServiceReference
	// URL is the webhook's address outside the cluster,
	// https://HOST:PORT/validate-immutable-fields.
	URL string
	// CABundle is the PEM bundle that verifies the webhook's serving
	// certificate (often injected by cert-manager instead).
	CABundle []byte

	// FailurePolicy applies when the webhook cannot be reached or fails:
	// Fail (the default) refuses the update, Ignore lets it through
	// unchecked.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// TimeoutSeconds, 1 to 30; DefaultTimeoutSeconds if 0.
	TimeoutSeconds int32
	// ObjectSelector limits the webhook to objects whose labels match; nil
	// matches every object.
	ObjectSelector *metav1.LabelSelector
	// NamespaceSelector limits the webhook to namespaced objects in
	// namespaces whose labels match; nil matches every namespace.
	NamespaceSelector *metav1.LabelSelector
}

// Configuration returns the ValidatingWebhookConfiguration that sends the
// updates of opts.Resources to the webhook: admissionReviewVersions v1,
// sideEffects None (the check has none, so the API server calls it for
// dry-run requests too instead of refusing them), matchPolicy Equivalent
// (a request through another version of a resource is converted to the
// version of the rule, whose schema the Handler holds), operations UPDATE
// only (patch and server-side apply are UPDATE in admission), and one rule
// per resource covering the resource and its subresources.
func Configuration(opts ConfigurationOptions) *admissionregistrationv1.ValidatingWebhookConfiguration {
	name := opts.Name
	if name == "" {
		name = DefaultName
	}
	webhookName := opts.WebhookName
	if webhookName == "" {
		webhookName = DefaultWebhookName
	}
	failurePolicy := opts.FailurePolicy
	if failurePolicy == "" {
		failurePolicy = admissionregistrationv1.Fail
	}
	timeout := opts.TimeoutSeconds
	if timeout == 0 {
		timeout = DefaultTimeoutSeconds
	}
	sideEffects := admissionregistrationv1.SideEffectClassNone
	matchPolicy := admissionregistrationv1.Equivalent

	clientConfig := admissionregistrationv1.WebhookClientConfig{CABundle: opts.CABundle}
	switch {
	case opts.Service != nil:
		svc := *opts.Service
		if svc.Path == nil {
			p := Path
			svc.Path = &p
		}
		clientConfig.Service = &svc
	case opts.URL != "":
		u := opts.URL
		clientConfig.URL = &u
	}

	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    webhookName,
			ClientConfig:            clientConfig,
			Rules:                   rules(opts.Resources),
			FailurePolicy:           &failurePolicy,
			MatchPolicy:             &matchPolicy,
			NamespaceSelector:       opts.NamespaceSelector,
			ObjectSelector:          opts.ObjectSelector,
			SideEffects:             &sideEffects,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// rules returns one UPDATE rule per resource, naming the resource and its
// subresources, ordered by group, version and resource.
func rules(resources []enforce.Resource) []admissionregistrationv1.RuleWithOperations {
	sorted := append([]enforce.Resource(nil), resources...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].Resource, sorted[j].Resource
		return a.Group+"\x00"+a.Version+"\x00"+a.Resource < b.Group+"\x00"+b.Version+"\x00"+b.Resource
	})
	var out []admissionregistrationv1.RuleWithOperations
	for _, r := range sorted {
		subs := append([]string(nil), r.Subresources...)
		sort.Strings(subs)
		names := []string{r.Resource.Resource}
		for i, sub := range subs {
			if i == 0 || sub != subs[i-1] {
				names = append(names, r.Resource.Resource+"/"+sub)
			}
		}
		scope := admissionregistrationv1.AllScopes
		out = append(out, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups:   []string{r.Resource.Group},
				APIVersions: []string{r.Resource.Version},
				Resources:   names,
				Scope:       &scope,
			},
		})
	}
	return out
}
