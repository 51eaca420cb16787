package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/manifest"
)

// CRDOptions selects one CustomResourceDefinition of a manifest, and one of
// its versions. The zero value selects the only CRD of the manifest and its
// storage version.
type CRDOptions struct {
	// Name selects the CRD by metadata.name.
	Name string
	// Group and Kind select the CRD by spec.group and spec.names.kind, as
	// read from the apiVersion and kind of an object.
	Group, Kind string
	// Version selects the version by name. Empty selects the storage
	// version, or the only version.
	Version string
}

// CompileCRD compiles the schema of one version of a CustomResourceDefinition
// (apiextensions.k8s.io/v1 or v1beta1) in a YAML or JSON manifest. The
// manifest may hold several documents and List objects; opts selects the
// CRD and the version.
//
// The openAPIV3Schema is decoded straight into a spec.Schema, so that the
// x-kubernetes-immutable extensions, which the typed apiextensions
// JSONSchemaProps would drop, survive. Schema errors name their path from the
// CRD, e.g. spec.versions[0].schema.openAPIV3Schema.properties[spec].
func CompileCRD(manifest []byte, opts CRDOptions) (*Checker, error) {
	raw, path, err := selectCRDSchema(manifest, opts)
	if err != nil {
		return nil, err
	}
	s := &spec.Schema{}
	if err := s.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return compileRoot(s, s.Definitions, path)
}

// selectCRDSchema returns the raw openAPIV3Schema that opts selects, with its
// path in the CRD.
func selectCRDSchema(data []byte, opts CRDOptions) (json.RawMessage, string, error) {
	docs, err := manifest.Objects(data)
	if err != nil {
		return nil, "", err
	}
	var matches []*manifest.CRD
	for i, doc := range docs {
		c, err := manifest.ParseCRD(doc)
		if err != nil {
			return nil, "", fmt.Errorf("document %d: %w", i+1, err)
		}
		if c == nil {
			continue
		}
		if (opts.Name == "" || opts.Name == c.Metadata.Name) &&
			(opts.Group == "" || opts.Group == c.Spec.Group) &&
			(opts.Kind == "" || opts.Kind == c.Spec.Names.Kind) {
			matches = append(matches, c)
		}
	}
	switch len(matches) {
	case 0:
		return nil, "", fmt.Errorf("no CustomResourceDefinition%s in the manifest", describeSelection(opts))
	case 1:
	default:
		var names []string
		for _, m := range matches {
			names = append(names, m.Metadata.Name)
		}
		return nil, "", fmt.Errorf("%d CustomResourceDefinitions%s in the manifest (%s): select one by name, or by group and kind", len(matches), describeSelection(opts), strings.Join(names, ", "))
	}
	return versionSchema(matches[0], opts.Version)
}

// versionSchema returns the raw schema of a version of c.
func versionSchema(c *manifest.CRD, version string) (json.RawMessage, string, error) {
	name := c.Metadata.Name
	var global json.RawMessage
	if c.Spec.Validation != nil {
		global = c.Spec.Validation.OpenAPIV3Schema
	}
	versions := c.AllVersions()
	var names []string
	for _, v := range versions {
		names = append(names, v.Name)
	}
	sort.Strings(names)

	idx := -1
	for i, v := range versions {
		if (version != "" && v.Name == version) || (version == "" && v.Storage) {
			idx = i
			break
		}
	}
	if idx < 0 && version == "" && len(versions) == 1 {
		idx = 0
	}
	switch {
	case idx < 0 && version != "":
		return nil, "", fmt.Errorf("CustomResourceDefinition %s has no version %q (versions: %s)", name, version, strings.Join(names, ", "))
	case idx < 0:
		return nil, "", fmt.Errorf("CustomResourceDefinition %s has no storage version: select one of %s", name, strings.Join(names, ", "))
	}
	v := versions[idx]
	if v.Schema != nil && len(v.Schema.OpenAPIV3Schema) > 0 && string(v.Schema.OpenAPIV3Schema) != "null" {
		return v.Schema.OpenAPIV3Schema, "spec.versions[" + strconv.Itoa(idx) + "].schema.openAPIV3Schema", nil
	}
	if len(global) > 0 && string(global) != "null" {
		return global, "spec.validation.openAPIV3Schema", nil
	}
	return nil, "", fmt.Errorf("version %q of CustomResourceDefinition %s has no openAPIV3Schema", v.Name, name)
}

func describeSelection(opts CRDOptions) string {
	var parts []string
	if opts.Name != "" {
		parts = append(parts, "named "+opts.Name)
	}
	if opts.Group != "" {
		parts = append(parts, "of group "+opts.Group)
	}
	if opts.Kind != "" {
		parts = append(parts, "of kind "+opts.Kind)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}
