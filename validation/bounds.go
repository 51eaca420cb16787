package validation

import (
	"encoding/json"
	"fmt"
	"slices"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/immutable-gen/immutable-gen/schema"
)

// Typical bounds: the values cost diagnostics name. A CRD over the CEL
// cost budget because of immutable-gen's rules fits once the bounds the
// diagnostics name are added at these values (smaller values fit too).
const (
	TypicalMaxItems      = 64
	TypicalMaxLength     = 253
	TypicalMaxProperties = 64
)

// typical is the value named for each keyword.
var typical = map[string]int{"maxItems": TypicalMaxItems, "maxLength": TypicalMaxLength, "maxProperties": TypicalMaxProperties}

// versionBound is a Bound in one version of a CRD.
type versionBound struct {
	version int // index in spec.versions
	Bound
}

// Marker is the kubebuilder marker that sets the bound at its typical
// value, e.g. `+kubebuilder:validation:MaxItems=64`.
func (b Bound) Marker() string {
	return fmt.Sprintf("%s=%d", markerFor[b.Keyword], typical[b.Keyword])
}

// neededBounds finds the bounds that make the CRD fit the CEL cost
// budget, among those RuleBounds names for the rules immutable-gen emitted, by asking the API server's CRD
// validation: all of them at their typical values, then without each one
// the CRD still fits without. fits is false when even all of them do not
// make the CRD fit (then all are returned).
func neededBounds(srv Server, crd *apiextv1.CustomResourceDefinition, models map[string]*schema.Node) (needed []versionBound, fits bool, err error) {
	var candidates []versionBound
	seen := map[*schema.Node]bool{}
	for i, v := range crd.Spec.Versions {
		root := models[v.Name]
		if root == nil {
			continue
		}
		root.Walk(func(n *schema.Node) {
			for _, em := range n.Emitted {
				for _, b := range RuleBounds(n, em) {
					if !seen[b.Node] {
						seen[b.Node] = true
						candidates = append(candidates, versionBound{i, b})
					}
				}
			}
		})
	}
	if len(candidates) == 0 {
		return nil, false, nil
	}
	raw, err := json.Marshal(crd)
	if err != nil {
		return candidates, false, nil
	}
	// Start from all candidates; drop each one that is not needed.
	if fits, err := fitsBounds(srv, raw, candidates); !fits || err != nil {
		return candidates, false, err
	}
	kept := candidates
	for i := 0; i < len(kept); {
		trial := append(append([]versionBound{}, kept[:i]...), kept[i+1:]...)
		fits, err := fitsBounds(srv, raw, trial)
		if err != nil {
			return nil, false, err
		}
		if fits {
			kept = trial
			continue
		}
		i++
	}
	return kept, true, nil
}

// fitsBounds reports whether the CRD (as JSON) fits the cost budget with
// bounds added.
func fitsBounds(srv Server, raw []byte, bounds []versionBound) (bool, error) {
	var tree map[string]any
	if json.Unmarshal(raw, &tree) != nil {
		return false, nil
	}
	for _, b := range bounds {
		setBound(tree, b)
	}
	return costFits(srv, tree)
}

// setBound writes b's keyword at its typical value into the CRD tree.
func setBound(tree map[string]any, b versionBound) {
	field, _, _ := unstructured.NestedFieldNoCopy(tree, "spec", "versions")
	versions, _ := field.([]any)
	if b.version >= len(versions) {
		return
	}
	v, _ := versions[b.version].(map[string]any)
	field, _, _ = unstructured.NestedFieldNoCopy(v, "schema", "openAPIV3Schema")
	root, _ := field.(map[string]any)
	if node := schema.LookupJSON(root, b.Node.Steps()); node != nil {
		node[b.Keyword] = typical[b.Keyword]
	}
}

// costFits reports whether the API server's CRD validation finds no cost
// problem in the CRD tree.
func costFits(srv Server, tree map[string]any) (bool, error) {
	data, err := json.Marshal(tree)
	if err != nil {
		return false, nil
	}
	var crd apiextv1.CustomResourceDefinition
	if err := json.Unmarshal(data, &crd); err != nil {
		return false, nil
	}
	internal, err := Internal(&crd)
	if err != nil {
		return false, nil
	}
	errs, err := ValidateServer(srv, internal)
	return err == nil && !slices.ContainsFunc(errs, isCostError), err
}

func isCostError(e ServerError) bool { return e.Class.Cost() }
