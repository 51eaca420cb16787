package manifest

import (
	"encoding/json"
	"strings"
)

// CRD is the part of a CustomResourceDefinition (apiextensions.k8s.io v1
// or v1beta1) that immutable-gen's readers use. Its schemas stay raw JSON,
// so that extensions the typed apiextensions types would drop survive.
type CRD struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Version      string        `json:"version"`      // v1beta1: the one version
		Validation   *Validation   `json:"validation"`   // v1beta1: the schema of every version
		Subresources *Subresources `json:"subresources"` // v1beta1: the subresources of every version
		Versions     []Version     `json:"versions"`
	} `json:"spec"`
}

// Version is one version of a CRD.
type Version struct {
	Name         string        `json:"name"`
	Served       bool          `json:"served"`
	Storage      bool          `json:"storage"`
	Schema       *Validation   `json:"schema"`
	Subresources *Subresources `json:"subresources"`
}

// Validation holds a version's schema, raw.
type Validation struct {
	OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
}

// Subresources are a version's subresources; only their presence is read.
type Subresources struct {
	Status *json.RawMessage `json:"status"`
}

// ParseCRD returns the CustomResourceDefinition obj is, or nil when it is
// another kind of object. An error means obj is not a JSON object of the
// shape a CRD has.
func ParseCRD(obj []byte) (*CRD, error) {
	var c CRD
	if err := json.Unmarshal(obj, &c); err != nil {
		return nil, err
	}
	if c.Kind != "CustomResourceDefinition" || !strings.HasPrefix(c.APIVersion, "apiextensions.k8s.io/") {
		return nil, nil
	}
	return &c, nil
}

// AllVersions returns the CRD's versions; a v1beta1 CRD with only
// spec.version has that one, served and the storage version.
func (c *CRD) AllVersions() []Version {
	if len(c.Spec.Versions) == 0 && c.Spec.Version != "" {
		return []Version{{Name: c.Spec.Version, Served: true, Storage: true}}
	}
	return c.Spec.Versions
}
