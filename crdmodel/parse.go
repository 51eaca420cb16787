package crdmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/output"
	"github.com/immutable-gen/immutable-gen/schema"
)

// File is one CRD file as controller-tools' generator would write it,
// before it is serialized.
type File struct {
	// Path is the file's name in the output directory.
	Path string
	// Header is the text written before the YAML (the header file).
	Header string
	// CRD is the typed CRD, with the markers' carriers in its schemas.
	CRD *apiextv1.CustomResourceDefinition
	// Sources are the Go packages the CRD's versions were generated from,
	// by version name: the kind is the type of the CRD's kind in each.
	Sources map[string]*loader.Package

	preserveUnknownFields *bool
}

// Parse does what controller-tools' generator up (its options) does in
// Generate up to serialization, step for step, so that the typed CRDs come
// out exactly as controller-gen's and can be checked and changed before
// they are encoded once. TestDropInForControllerGen holds this to
// controller-gen's output.
func Parse(ctx *genall.GenerationContext, up crd.Generator) ([]File, error) {
	parser := &crd.Parser{
		Collector:                  ctx.Collector,
		Checker:                    ctx.Checker,
		IgnoreUnexportedFields:     up.IgnoreUnexportedFields != nil && *up.IgnoreUnexportedFields,
		AllowDangerousTypes:        up.AllowDangerousTypes != nil && *up.AllowDangerousTypes,
		GenerateEmbeddedObjectMeta: up.GenerateEmbeddedObjectMeta != nil && *up.GenerateEmbeddedObjectMeta,
	}
	crd.AddKnownTypes(parser)
	for _, root := range ctx.Roots {
		parser.NeedPackage(root)
	}
	metav1Pkg := crd.FindMetav1(ctx.Roots)
	if metav1Pkg == nil {
		return nil, nil // no objects in the roots, since nothing imported metav1
	}
	kubeKinds := crd.FindKubeKinds(parser, metav1Pkg)
	if len(kubeKinds) == 0 {
		return nil, nil
	}
	crdVersions := up.CRDVersions
	if len(crdVersions) == 0 {
		crdVersions = []string{"v1"}
	}
	headerText, err := output.Header(ctx, up.HeaderFile, up.Year)
	if err != nil {
		return nil, err
	}

	var files []File
	for _, groupKind := range kubeKinds {
		parser.NeedCRDFor(groupKind, up.MaxDescLen)
		crdRaw := parser.CustomResourceDefinitions[groupKind]
		sources := map[string]*loader.Package{}
		for pkg, gv := range parser.GroupVersions {
			if gv.Group == groupKind.Group && parser.Types[crd.TypeIdent{Package: pkg, Name: groupKind.Kind}] != nil {
				sources[gv.Version] = pkg
			}
		}
		if up.OmitToolVersion == nil || !*up.OmitToolVersion {
			if crdRaw.Annotations == nil {
				crdRaw.Annotations = map[string]string{}
			}
			crdRaw.Annotations["controller-gen.kubebuilder.io/version"] = controllerGenVersion()
		}
		fixTopLevelMetadata(crdRaw)
		for i, ver := range crdVersions {
			conv, err := crd.AsVersion(crdRaw, kschema.GroupVersion{Group: apiextv1.SchemeGroupVersion.Group, Version: ver})
			if err != nil {
				return nil, err
			}
			typed, ok := conv.(*apiextv1.CustomResourceDefinition)
			if !ok {
				return nil, fmt.Errorf("crdVersions=%s: unsupported CRD version", ver)
			}
			removeDescriptionFromMetadata(typed)
			name := fmt.Sprintf("%s_%s.yaml", crdRaw.Spec.Group, crdRaw.Spec.Names.Plural)
			if i > 0 {
				name = fmt.Sprintf("%s_%s.%s.yaml", crdRaw.Spec.Group, crdRaw.Spec.Names.Plural, ver)
			}
			files = append(files, File{Path: name, Header: headerText, CRD: typed, Sources: sources, preserveUnknownFields: up.DeprecatedV1beta1CompatibilityPreserveUnknownFields})
		}
	}
	return files, nil
}

// fixTopLevelMetadata is controller-tools' crd.FixTopLevelMetadata, which
// replaces the root metadata schema of every version with {type: object},
// except that the marker carriers on that schema are kept: a marker on the
// root metadata is then reported by the placement rules (package
// validation), like every other misplaced marker, instead of vanishing.
func fixTopLevelMetadata(c apiextv1.CustomResourceDefinition) {
	kept := map[string][]apiextv1.ValidationRule{}
	for _, v := range c.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		for _, r := range v.Schema.OpenAPIV3Schema.Properties["metadata"].XValidations {
			if schema.IsCarrier(r.Rule) {
				kept[v.Name] = append(kept[v.Name], r)
			}
		}
	}
	crd.FixTopLevelMetadata(c)
	for _, v := range c.Spec.Versions {
		if rules := kept[v.Name]; len(rules) > 0 {
			meta := v.Schema.OpenAPIV3Schema.Properties["metadata"]
			meta.XValidations = rules
			v.Schema.OpenAPIV3Schema.Properties["metadata"] = meta
		}
	}
}

func removeDescriptionFromMetadata(c *apiextv1.CustomResourceDefinition) {
	for _, v := range c.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		props := v.Schema.OpenAPIV3Schema.Properties
		if m, ok := props["metadata"]; ok && m.Description != "" {
			m.Description = ""
			props["metadata"] = m
		}
	}
}

// Tree encodes the CRD as controller-tools' WriteYAML does before its YAML
// step: JSON, decoded with exact numbers, status and creationTimestamp
// removed, and spec.preserveUnknownFields set when asked. It also returns
// the JSON, which holds the markers' carriers.
func (f File) Tree() (map[string]any, []byte, error) {
	j, err := json.Marshal(f.CRD)
	if err != nil {
		return nil, nil, fmt.Errorf("error marshaling into JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, nil, err
	}
	delete(obj, "status")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	if p := f.preserveUnknownFields; p != nil {
		if spec, ok := obj["spec"].(map[string]any); ok {
			spec["preserveUnknownFields"] = *p
		}
	}
	return obj, j, nil
}

// controllerGenVersion is what controller-gen of the built-in
// controller-tools release writes into its version annotation.
func controllerGenVersion() string {
	if v := ControllerToolsVersion(); v != "" {
		return v
	}
	return "(unknown)"
}

// ControllerToolsVersion is the version of sigs.k8s.io/controller-tools
// built into this binary, or "" when the build has no module information.
func ControllerToolsVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if info.Main.Path == "sigs.k8s.io/controller-tools" {
		return info.Main.Version
	}
	for _, dep := range info.Deps {
		if dep.Path == "sigs.k8s.io/controller-tools" {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return ""
}
