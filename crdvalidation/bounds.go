package crdvalidation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

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
// still fits without — the bounds on nodes declared outside the user's
// module (schema.Node.External) first, so that one is kept only when the
// user's own bounds cannot make the CRD fit. fits is false when even all
// of them do not make the CRD fit (then all are returned).
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
	slices.SortStableFunc(candidates, func(a, b versionBound) int {
		return cmp.Compare(boolInt(a.Node.External == ""), boolInt(b.Node.External == ""))
	})
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// external splits bounds into those on the user's own declarations and
// those on declarations outside the user's module.
func external(bounds []Bound) (own, outside []Bound) {
	for _, b := range bounds {
		if b.Node.External != "" {
			outside = append(outside, b)
		} else {
			own = append(own, b)
		}
	}
	return own, outside
}

// boundsAdvice is the fix for a marker whose rules (at node) need bounds:
// those on the user's own declarations are named with what a bound costs
// (it refuses every update of an object stored above it); none is ever
// asked for inside a type declared outside the user's module, where
// +immutable:ignoreOrder comes first when list maps are below the marker
// and it does not ignore their order yet. o is the marker.
func boundsAdvice(o schema.Origin, node *schema.Node, bounds []Bound) string {
	own, outside := external(bounds)
	ordered := !o.IgnoreOrder && !o.Keys && node.HasListMap()
	var parts []string
	if len(outside) > 0 {
		if ordered {
			parts = append(parts, "add +immutable:ignoreOrder beside the marker: its rule is self == oldSelf, which compares list maps by key as a hand-written rule does and needs no bound for their order")
		}
	} else if len(own) > 0 {
		var adds []string
		for _, b := range own {
			adds = append(adds, b.Marker()+" on "+b.Node.Path())
		}
		add := "add " + strings.Join(adds, ", ") + "; a bound refuses every update of an object stored with more than it allows, so check the stored objects first"
		if ordered {
			add += "; if the bounds are only there for the order of the list maps under the marker, +immutable:ignoreOrder needs none"
		}
		parts = append(parts, add)
	}
	parts = append(parts, schema.FixExtensionsMode)
	return strings.Join(parts, "; or ")
}

// outsideMessage says which bounds the rules would need in types declared
// outside the user's module.
func outsideMessage(outside []Bound) string {
	var at []string
	for _, b := range outside {
		at = append(at, fmt.Sprintf("%s on %s (in %s)", b.Keyword, b.Node.Path(), b.Node.External))
	}
	if len(at) > 3 {
		at = append(at[:3], "…")
	}
	return "they would need a bound inside types declared outside your module, which you cannot change: " + strings.Join(at, ", ")
}
