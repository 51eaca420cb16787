package admission

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
)

// The apiVersion and kind of the plugin's configuration.
const (
	ConfigAPIVersion = "immutable-gen.io/v1alpha1"
	ConfigKind       = "ImmutableFieldsConfiguration"
)

// Configuration is the plugin's configuration, as the API server's
// admission configuration file gives it (a file named by path:, or inline
// under configuration:), in YAML or JSON:
//
//	apiVersion: immutable-gen.io/v1alpha1
//	kind: ImmutableFieldsConfiguration
//	resources:
//	# every served version of every CRD in a manifest with the extensions
//	# (immutable-gen crd:immutability=extensions), with its status subresource
//	- crd: /etc/immutable-fields/cache.example.com_cacheclusters.yaml
//	# one resource, its schema a definition of an OpenAPI v2 or v3 document
//	- group: wardle.example.com
//	  version: v1alpha1
//	  resource: flunders
//	  subresources: [status]
//	  openAPI: /etc/immutable-fields/wardle-openapi.json
//	  definition: com.example.wardle.v1alpha1.Flunder
//
// Relative paths are relative to the API server's working directory.
type Configuration struct {
	APIVersion string                  `json:"apiVersion"`
	Kind       string                  `json:"kind"`
	Resources  []ResourceConfiguration `json:"resources"`
}

// ResourceConfiguration is one entry of Configuration.Resources: either CRD
// alone, or Group, Version, Resource, OpenAPI and Definition (Subresources
// optional).
type ResourceConfiguration struct {
	// CRD is the path of a CustomResourceDefinition manifest carrying the
	// immutability extensions (crd:immutability=extensions); a CRD without
	// them, such as the default CEL output, is refused: see enforce.FromCRD.
	CRD string `json:"crd,omitempty"`

	// Group, Version and Resource name the resource (Group empty for the
	// core group).
	Group    string `json:"group,omitempty"`
	Version  string `json:"version,omitempty"`
	Resource string `json:"resource,omitempty"`
	// Subresources are checked besides the main resource, e.g. status.
	Subresources []string `json:"subresources,omitempty"`
	// OpenAPI is the path of an OpenAPI v2 or v3 document (JSON or YAML),
	// Definition the name of the resource's schema in it.
	OpenAPI    string `json:"openAPI,omitempty"`
	Definition string `json:"definition,omitempty"`
}

// ReadConfiguration decodes a Configuration (strictly: unknown fields are
// errors) and compiles the schemas it names. Errors name the entry.
func ReadConfiguration(data []byte) ([]enforce.Resource, error) {
	var cfg Configuration
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s configuration: %w", PluginName, err)
	}
	if cfg.APIVersion != ConfigAPIVersion || cfg.Kind != ConfigKind {
		return nil, fmt.Errorf("%s configuration: want apiVersion %s, kind %s; got apiVersion %q, kind %q", PluginName, ConfigAPIVersion, ConfigKind, cfg.APIVersion, cfg.Kind)
	}
	var out []enforce.Resource
	var errs []error
	for i, rc := range cfg.Resources {
		rs, err := rc.resources()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s configuration: resources[%d]: %w", PluginName, i, err))
			continue
		}
		out = append(out, rs...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func (rc ResourceConfiguration) resources() ([]enforce.Resource, error) {
	if rc.CRD != "" {
		if rc.Group != "" || rc.Version != "" || rc.Resource != "" || rc.Subresources != nil || rc.OpenAPI != "" || rc.Definition != "" {
			return nil, errors.New("crd is given: the resources, versions and subresources come from the CRD; give no other field")
		}
		data, err := os.ReadFile(rc.CRD)
		if err != nil {
			return nil, err
		}
		rs, err := enforce.FromCRD(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rc.CRD, err)
		}
		return rs, nil
	}
	switch {
	case rc.Version == "" || rc.Resource == "":
		return nil, errors.New("give crd, or version, resource (and group), openAPI and definition")
	case rc.OpenAPI == "" || rc.Definition == "":
		return nil, errors.New("openAPI and definition are required with group, version and resource")
	}
	data, err := os.ReadFile(rc.OpenAPI)
	if err != nil {
		return nil, err
	}
	checker, err := enforce.CheckerFromOpenAPI(data, rc.Definition)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rc.OpenAPI, err)
	}
	return []enforce.Resource{{
		Resource:     schema.GroupVersionResource{Group: rc.Group, Version: rc.Version, Resource: rc.Resource},
		Subresources: rc.Subresources,
		Checker:      checker,
	}}, nil
}
