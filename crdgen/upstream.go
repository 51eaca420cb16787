package crdgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/output"
)

// crdFile is one CRD file as controller-tools' generator would write it,
// before it is serialized.
type crdFile struct {
	path   string
	header string
	crd    *apiextv1.CustomResourceDefinition
	// sources are the Go packages the CRD's versions were generated from,
	// by version name: the kind is the type of the CRD's kind in each.
	sources map[string]*loader.Package
}

// parseCRDs does what controller-tools' crd.Generator.Generate does up to
// serialization, step for step, so that the typed CRDs come out exactly as
// controller-gen's and can be checked and changed before they are encoded
// once. TestDropInForControllerGen holds this to controller-gen's output.
func (g Generator) parseCRDs(ctx *genall.GenerationContext) ([]crdFile, error) {
	up := g.upstream()
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

	var files []crdFile
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
			conv, err := crd.AsVersion(crdRaw, schema.GroupVersion{Group: apiextv1.SchemeGroupVersion.Group, Version: ver})
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
			files = append(files, crdFile{path: name, header: headerText, crd: typed, sources: sources})
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
			if markers.IsCarrier(r.Rule) {
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

// toTree encodes a CRD as controller-tools' WriteYAML does before its YAML
// step: JSON, decoded with exact numbers, status and creationTimestamp
// removed, and spec.preserveUnknownFields set when asked. It also returns
// the JSON.
func (g Generator) toTree(c *apiextv1.CustomResourceDefinition) (map[string]any, []byte, error) {
	j, err := json.Marshal(c)
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
	if p := g.DeprecatedV1beta1CompatibilityPreserveUnknownFields; p != nil {
		if spec, ok := obj["spec"].(map[string]any); ok {
			spec["preserveUnknownFields"] = *p
		}
	}
	return obj, j, nil
}

// encode writes the file as controller-tools' WriteYAML does.
func encode(header string, obj map[string]any) ([]byte, error) {
	y, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(header)+4+len(y))
	out = append(out, header...)
	out = append(out, "---\n"...)
	return append(out, y...), nil
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

// fromTree decodes a CRD tree back into the typed CRD, as the API server
// would read the file (fields it does not know, like the KEP extensions, are
// dropped).
func fromTree(obj map[string]any) (*apiextv1.CustomResourceDefinition, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var c apiextv1.CustomResourceDefinition
	if err := json.Unmarshal(j, &c); err != nil {
		return nil, err
	}
	return &c, nil
}
