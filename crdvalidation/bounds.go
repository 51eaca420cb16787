package crdvalidation

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"

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

// neededBounds finds the bounds that make the CRD fit the API server's
// CEL cost limits, among those RuleBounds names for the rules
// immutable-gen emitted, from the server's own cost estimate (costModel):
// all of them at their typical values, then without each one the CRD
// still fits without. fits is false when even all of them do not make the
// CRD fit (then all are returned).
func neededBounds(crd *apiextensions.CustomResourceDefinition, models map[string]*schema.Node) (needed []versionBound, fits bool) {
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
		return nil, false
	}
	cost := newCostModel(crd)
	// Start from all candidates; drop each one that is not needed.
	if !cost.fits(candidates) {
		return candidates, false
	}
	kept := candidates
	for i := 0; i < len(kept); {
		trial := append(append([]versionBound{}, kept[:i]...), kept[i+1:]...)
		if cost.fits(trial) {
			kept = trial
			continue
		}
		i++
	}
	return kept, true
}

func isCostError(e ServerError) bool { return e.Class.Cost() }
