package validation

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// APIServer runs apiextensions-apiserver's own CRD validation — the checks
// an API server applies when the CRD is created: structural schema,
// list-type invariants, CEL compilation, transition rules on uncorrelatable
// paths, the CEL cost budget — on a CRD given as its generic JSON tree.
// Findings are reported at the Go marker of the nearest marked node at or
// above the offending schema node (models maps version names to their
// models), else against the CRD. sev is the severity of the findings.
func APIServer(crd map[string]any, models map[string]*schema.Node, sev diag.Severity) diag.List {
	internal, err := toInternal(crd)
	if err != nil {
		return diag.List{{Severity: diag.Error, Subject: crdName(crd), Message: "cannot read the generated CRD: " + err.Error()}}
	}
	errs := apivalidation.ValidateCustomResourceDefinition(context.Background(), internal)
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	var out diag.List
	for _, e := range errs {
		out = append(out, translate(internal, e, models, sev))
	}
	return out
}

func crdName(crd map[string]any) string {
	meta, _ := crd["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return "CRD " + name
}

func toInternal(crd map[string]any) (*apiextensions.CustomResourceDefinition, error) {
	b, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	var v1 apiextv1.CustomResourceDefinition
	if err := json.Unmarshal(b, &v1); err != nil {
		return nil, err
	}
	apiextv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil); err != nil {
		return nil, err
	}
	return &internal, nil
}

// versionPath matches schema paths in API server errors: per version, or
// spec.validation when every version has the same schema (the internal
// type then holds it once).
var versionPath = regexp.MustCompile(`^spec\.(?:versions\[(\d+)\]\.schema|validation)\.openAPIV3Schema(.*)$`)

// translate turns one API server error into a diagnostic at the Go marker
// responsible for the schema node it names, when there is one.
func translate(crd *apiextensions.CustomResourceDefinition, e *field.Error, models map[string]*schema.Node, sev diag.Severity) diag.Diagnostic {
	d := diag.Diagnostic{Severity: sev, Subject: "CRD " + crd.Name, Message: "the API server would refuse this CRD: " + e.Error()}
	m := versionPath.FindStringSubmatch(e.Field)
	if m == nil {
		return d
	}
	idx := 0
	if m[1] != "" {
		fmt.Sscan(m[1], &idx)
	}
	if idx >= len(crd.Spec.Versions) {
		return d
	}
	version := crd.Spec.Versions[idx].Name
	root := models[version]
	if root == nil {
		return d
	}
	node := root
	rest := m[2]
	for node != nil && rest != "" {
		switch {
		case strings.HasPrefix(rest, ".properties["):
			end := strings.Index(rest, "]")
			name := rest[len(".properties["):end]
			next := node.Properties[name]
			if next == nil {
				rest = ""
				break
			}
			node, rest = next, rest[end+1:]
		case strings.HasPrefix(rest, ".items"):
			if node.Items == nil {
				rest = ""
				break
			}
			node, rest = node.Items, rest[len(".items"):]
		case strings.HasPrefix(rest, ".additionalProperties"):
			if node.Values == nil {
				rest = ""
				break
			}
			node, rest = node.Values, rest[len(".additionalProperties"):]
		default:
			rest = ""
		}
	}
	d.Subject = fmt.Sprintf("CRD %s %s: %s", crd.Name, version, node.Path())
	for n := node; n != nil; n = n.Parent {
		if len(n.Origins) > 0 {
			d.Pos = n.Origins[0].Pos
			break
		}
	}
	return d
}
