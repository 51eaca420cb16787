// Package admission is a k8s.io/apiserver validating admission plugin that
// enforces the immutability extensions (x-kubernetes-immutable,
// x-kubernetes-immutable-keys) on the updates of configured resources, for
// aggregated API servers and any other server built on k8s.io/apiserver's
// generic API server.
//
// The plugin validates only: the API server runs it after every mutating
// admission plugin and webhook, on the object as it would be stored. It
// checks UPDATE requests only — update, patch and server-side apply are all
// UPDATE in admission, dry-run ones included — and never CREATE, DELETE or
// CONNECT. It checks the main resource and the subresources configured for
// it (the status subresource of a CRD that has one). A violation is
// refused with 422 Invalid, one cause per field, as the API server's own
// field validation does.
//
// Register it with Register (configured by its admission configuration
// file) or RegisterWith (configured in Go), and place PluginName in the
// server's plugin order with PluginOrder. See docs/enforcement.md.
package admission

import (
	"context"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
)

// PluginName is the name the plugin registers under.
const PluginName = "ImmutableFields"

// Options configure the plugin in Go.
type Options struct {
	// Resources are the resources whose updates are checked.
	Resources []enforce.Resource
}

// Plugin is the admission plugin. It is read-only once built and safe for
// concurrent use.
type Plugin struct {
	*admission.Handler
	set *enforce.Set
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns a plugin checking opts.Resources. It fails when a resource is
// misconfigured (see enforce.NewSet), when there is none, and with an
// *enforce.NoExtensionsError on a resource whose Checkers check nothing: an
// enabled plugin that enforces nothing would be a silent hole.
func New(opts Options) (*Plugin, error) {
	set, err := enforce.NewSet(opts.Resources)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	if set.Len() == 0 {
		return nil, fmt.Errorf("%s: no resources configured", PluginName)
	}
	return &Plugin{Handler: admission.NewHandler(admission.Update), set: set}, nil
}

// Register registers the plugin under PluginName, configured by its
// admission configuration file (see ReadConfiguration). Enabling it without
// a configuration is an error.
func Register(plugins *admission.Plugins) {
	RegisterWith(plugins, Options{})
}

// RegisterWith registers the plugin under PluginName with the resources of
// opts, plus those of its admission configuration file, if any.
func RegisterWith(plugins *admission.Plugins, opts Options) {
	plugins.Register(PluginName, Factory(opts))
}

// Factory returns the admission.Factory of the plugin: the resources of opts
// plus those of the configuration the API server passes (nil when there is
// none).
func Factory(opts Options) admission.Factory {
	return func(config io.Reader) (admission.Interface, error) {
		resources := append([]enforce.Resource(nil), opts.Resources...)
		if config != nil {
			data, err := io.ReadAll(config)
			if err != nil {
				return nil, fmt.Errorf("%s: reading the configuration: %w", PluginName, err)
			}
			if len(data) > 0 {
				fromFile, err := ReadConfiguration(data)
				if err != nil {
					return nil, err
				}
				resources = append(resources, fromFile...)
			}
		}
		return New(Options{Resources: resources})
	}
}

// PluginOrder returns a copy of order, a server's plugin order (such as
// options.AdmissionOptions.RecommendedPluginOrder), with PluginName inserted
// before the first built-in validating plugin (ValidatingAdmissionPolicy,
// ValidatingAdmissionWebhook), or at the end. Every plugin mutates before
// any validates, so the plugin sees the object after all mutation either
// way; this order makes immutability refuse an update before validating
// policies and webhooks are consulted, as the KEP places it. An order that
// already names the plugin is returned unchanged.
func PluginOrder(order []string) []string {
	for _, name := range order {
		if name == PluginName {
			return append([]string(nil), order...)
		}
	}
	out := make([]string, 0, len(order)+1)
	inserted := false
	for _, name := range order {
		if !inserted && (name == "ValidatingAdmissionPolicy" || name == "ValidatingAdmissionWebhook") {
			out = append(out, PluginName)
			inserted = true
		}
		out = append(out, name)
	}
	if !inserted {
		out = append(out, PluginName)
	}
	return out
}

// Validate checks an update of a configured resource and refuses a
// violation with 422 Invalid, one cause per violation. Other operations and
// resources pass. An object it cannot read is refused with 500, so that a
// misconfiguration never silently lets changes through.
func (p *Plugin) Validate(_ context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetOperation() != admission.Update {
		return nil
	}
	c := p.set.Checker(a.GetResource(), a.GetSubresource())
	if c == nil {
		return nil
	}
	gvk := a.GetKind()
	obj, err := unstructuredContent(a.GetObject(), a.GetResource().GroupVersion(), o)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("%s: the new %s %q: %w", PluginName, gvk.Kind, a.GetName(), err))
	}
	old, err := unstructuredContent(a.GetOldObject(), a.GetResource().GroupVersion(), o)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("%s: the old %s %q: %w", PluginName, gvk.Kind, a.GetName(), err))
	}
	if errs := c.ValidateUpdate(obj, old); len(errs) > 0 {
		return apierrors.NewInvalid(gvk.GroupKind(), a.GetName(), errs)
	}
	return nil
}

// unstructuredContent returns the JSON content of obj in version gv, the
// version the resource's schema describes. An unstructured object (a custom
// resource) is used as it is. A typed object is, in a generic API server,
// of the internal version, which has no JSON form: it is converted to gv
// with the server's converter first.
func unstructuredContent(obj k8sruntime.Object, gv schema.GroupVersion, o admission.ObjectInterfaces) (map[string]interface{}, error) {
	if obj == nil {
		return nil, nil
	}
	if u, ok := obj.(k8sruntime.Unstructured); ok {
		return u.UnstructuredContent(), nil
	}
	if o != nil && o.GetObjectConvertor() != nil {
		versioned, err := o.GetObjectConvertor().ConvertToVersion(obj, gv)
		if err != nil {
			return nil, fmt.Errorf("converting %T to %s: %w", obj, gv, err)
		}
		obj = versioned
	}
	content, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T to unstructured content: %w", obj, err)
	}
	return content, nil
}
