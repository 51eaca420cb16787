package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// A Checker checks creates and updates of the custom resources its CRDs
// define. It is read-only once built and safe for concurrent use.
type Checker struct {
	kinds map[schema.GroupKind]*crdKind
}

// crdKind is one CustomResourceDefinition, as a server serves it.
type crdKind struct {
	name       string // metadata.name
	source     string // where the CRD was read
	namespaced bool
	conversion apiextensionsv1.ConversionStrategyType
	versions   map[string]*crdVersion
	names      []string // version names, sorted
	storage    string   // the storage version
}

// crdVersion is what the server builds per served version.
type crdVersion struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	strategy   crStrategy
	// immutability is the runtime checker of the x-kubernetes-immutable
	// extensions of this version, nil if the version has none.
	immutability *runtime.Checker
}

// A CRD is one CustomResourceDefinition document, as read.
type CRD struct {
	// Source names where the CRD was read, e.g. "config/crd/x.yaml#2".
	Source string
	// Raw is the document as JSON, with every extension the typed
	// apiextensions API would drop.
	Raw []byte
}

// NewChecker builds a Checker from CustomResourceDefinitions
// (apiextensions.k8s.io/v1). Each CRD is defaulted and validated as the API
// server does on creation; one it would refuse is an error, and so are two
// CRDs for one group and kind.
func NewChecker(crds []CRD) (*Checker, error) {
	c := &Checker{kinds: map[schema.GroupKind]*crdKind{}}
	for _, d := range crds {
		k, err := newCRDKind(d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Source, err)
		}
		gk := schema.GroupKind{Group: k.versions[k.names[0]].gvk.Group, Kind: k.versions[k.names[0]].gvk.Kind}
		if prev, ok := c.kinds[gk]; ok {
			return nil, fmt.Errorf("%s: CustomResourceDefinition %s defines %s, as %s at %s does", d.Source, k.name, gk, prev.name, prev.source)
		}
		c.kinds[gk] = k
	}
	return c, nil
}

func newCRDKind(d CRD) (*crdKind, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(d.Raw, &head); err != nil {
		return nil, err
	}
	if head.APIVersion != "apiextensions.k8s.io/v1" {
		return nil, fmt.Errorf("CustomResourceDefinition of apiVersion %q: only apiextensions.k8s.io/v1 is served (v1beta1 was removed in Kubernetes 1.22)", head.APIVersion)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(d.Raw, crd); err != nil {
		return nil, err
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, err
	}
	if errs := apiextensionsvalidation.ValidateCustomResourceDefinition(context.Background(), internal); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		sort.Strings(msgs)
		return nil, fmt.Errorf("the API server would refuse CustomResourceDefinition %s:\n%s", crd.Name, strings.Join(msgs, "\n"))
	}

	k := &crdKind{
		name:       crd.Name,
		source:     d.Source,
		namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		versions:   map[string]*crdVersion{},
	}
	if crd.Spec.Conversion != nil {
		k.conversion = crd.Spec.Conversion.Strategy
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			k.storage = v.Name
		}
	}
	// The runtime checks the CRD when it names any immutability extension
	// (all of them: one left out would be a form check-update silently
	// allows); a CEL-only CRD is the server's alone.
	hasExtensions := slices.ContainsFunc(extension.Names(), func(name string) bool {
		return bytes.Contains(d.Raw, []byte(`"`+name+`"`))
	})
	typer := unstructuredscheme.NewUnstructuredObjectTyper()
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		// As the server's customresource_handler builds a version.
		var props *apiextensions.JSONSchemaProps
		if v.Schema != nil {
			iv := &apiextensions.CustomResourceValidation{}
			if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, iv, nil); err != nil {
				return nil, fmt.Errorf("version %s: %w", v.Name, err)
			}
			props = iv.OpenAPIV3Schema
		}
		s, err := structuralschema.NewStructural(props)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(props)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		var status *apiextensions.CustomResourceSubresourceStatus
		var scale *apiextensions.CustomResourceSubresourceScale
		if sub := v.Subresources; sub != nil {
			if sub.Status != nil {
				// The status strategy (and its validator) serve the
				// status subresource, which a check does not update.
				status = &apiextensions.CustomResourceSubresourceStatus{}
			}
			if sub.Scale != nil {
				scale = &apiextensions.CustomResourceSubresourceScale{}
				if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(sub.Scale, scale, nil); err != nil {
					return nil, fmt.Errorf("version %s: %w", v.Name, err)
				}
			}
		}
		cv := &crdVersion{
			gvk:        gvk,
			namespaced: k.namespaced,
			structural: s,
			strategy:   newCRStrategy(typer, k.namespaced, gvk, validator, s, status, scale),
		}
		if status != nil && props != nil {
			// As the server: /status validates against the status schema
			// alone.
			if st, ok := props.Properties["status"]; ok {
				sv, _, err := apiservervalidation.NewSchemaValidator(&st)
				if err != nil {
					return nil, fmt.Errorf("version %s: the status schema: %w", v.Name, err)
				}
				cv.strategy.statusValidator = sv
			}
		}
		if hasExtensions {
			checker, err := runtime.CompileCRD(d.Raw, runtime.CRDOptions{Version: v.Name})
			if err != nil {
				return nil, fmt.Errorf("version %s: %w", v.Name, err)
			}
			cv.immutability = checker
		}
		k.versions[v.Name] = cv
		k.names = append(k.names, v.Name)
	}
	if len(k.names) == 0 {
		return nil, fmt.Errorf("CustomResourceDefinition %s serves no version", crd.Name)
	}
	sort.Strings(k.names)
	return k, nil
}

// SetVersion sets the version of obj's apiVersion, as a request to that
// version of the resource would carry it: to version, or, when version is
// empty and obj has no apiVersion, to the storage version. The group is the
// one of obj's apiVersion or, when obj has none, of the only CRD defining
// its kind. An object that already has an apiVersion keeps it when version
// is empty. It is an error when no CRD, or more than one, defines the kind
// of an object without apiVersion, and when the CRD serves no such version.
func (c *Checker) SetVersion(obj map[string]interface{}, version string) error {
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	if gvk.Kind == "" || (version == "" && u.GetAPIVersion() != "") {
		return nil
	}
	var k *crdKind
	if u.GetAPIVersion() != "" {
		k = c.kinds[gvk.GroupKind()]
		if k == nil {
			return &NoCRDError{GroupKind: gvk.GroupKind()}
		}
	} else {
		var groups []string
		for gk, ck := range c.kinds {
			if gk.Kind == gvk.Kind {
				k, gvk.Group = ck, gk.Group
				groups = append(groups, gk.Group)
			}
		}
		switch len(groups) {
		case 0:
			return fmt.Errorf("the object has no apiVersion, and no CustomResourceDefinition of --schema defines the kind %s", gvk.Kind)
		case 1:
		default:
			sort.Strings(groups)
			return fmt.Errorf("the object has no apiVersion, and the kind %s is defined in several groups (%s)", gvk.Kind, strings.Join(groups, ", "))
		}
	}
	if version == "" {
		version = k.storage
	}
	if _, ok := k.versions[version]; !ok {
		return k.noVersion(version)
	}
	gvk.Version = version
	u.SetAPIVersion(gvk.GroupVersion().String())
	return nil
}

// OnlyKind returns the group, kind and storage version of the only CRD of
// the Checker, and false when it has none or several.
func (c *Checker) OnlyKind() (schema.GroupVersionKind, bool) {
	if len(c.kinds) != 1 {
		return schema.GroupVersionKind{}, false
	}
	for gk, k := range c.kinds {
		return gk.WithVersion(k.storage), true
	}
	return schema.GroupVersionKind{}, false
}
