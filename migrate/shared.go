package migrate

import (
	"fmt"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/celform"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// A type used by several fields (Karpenter's NodeClassReference, in a
// NodePool's template and in a NodeClaim's spec) gets a marker on one of
// its fields only where that marker changes nothing at the other uses:
// where every other use is inside a value the CRD already fixes whole
// (a NodeClaim's spec is `self == oldSelf`), the marker is redundant there.
// The places of every use are found by probing the fields that hold a
// shared type, as the rules' sites are probed (useProbeMessage), and what
// the CRDs fix, by reading their rules as they are through the one CEL
// form (celform.Read).

// useProbeMessage is the message of the probe rule on the field v of a
// shared type, in a probe run.
func useProbeMessage(i int) string { return fmt.Sprintf("immutable-gen-migrate-probe-use-%d", i) }

// sharedFields are the struct fields of the scanned packages whose named
// type another field holds too, in source order.
func (p *planner) sharedFields() []*decl {
	p.countUses()
	var out []*decl
	for v, d := range p.sc.fields {
		if n := namedOf(v.Type()); n != nil && p.uses[n.Obj()] > 1 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *decl) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	return out
}

// fixedPlaces reads the CRDs as they are and returns whether the value at
// a place is fixed whole, unconditionally, by a rule at it or above it:
// a constraint of the one CEL form that allows no change of the value while
// it is present in both objects (whatever its presence rules: a marker
// below reaches the value only where it is present in both).
func fixedPlaces(crds map[string][]byte) (func(place) bool, error) {
	type version struct {
		root    *schema.Node
		reading celform.Reading
	}
	models := map[string]version{}
	err := versionSchemas(crds, func(crd, v string, raw map[string]any) {
		root := schema.FromExtensions(raw)
		models[crd+" "+v] = version{root, celform.Read(root)}
	})
	if err != nil {
		return nil, err
	}
	return func(pl place) bool {
		m, ok := models[pl.crd+" "+pl.version]
		if !ok {
			return false
		}
		n := m.root
		for _, step := range pl.path {
			if fixedWhole(m.reading, n) {
				return true
			}
			switch step {
			case "[]":
				n = n.Items
			case "{}":
				n = n.Values
			default:
				n = n.Properties[step]
			}
			if n == nil {
				return false
			}
		}
		return fixedWhole(m.reading, n)
	}, nil
}

func fixedWhole(r celform.Reading, n *schema.Node) bool {
	f, ok := r.At[n]
	return ok && f.When == "" && f.Change == form.NoChange
}

// unfixedUse returns a place where a field of named type t other than
// except holds it and the CRDs do not fix it already, and whether there is
// one; reach are the places of the other uses (of the fields holding t),
// all fixed, when there is none.
func (p *planner) unfixedUse(t *types.TypeName, except *types.Var) (unfixed place, found bool, reach []place) {
	for _, v := range slices.SortedFunc(maps.Keys(p.usePlaces), func(a, b *types.Var) int { return int(a.Pos() - b.Pos()) }) {
		n := namedOf(v.Type())
		if v == except || n == nil || n.Obj() != t {
			continue
		}
		for _, pl := range p.usePlaces[v] {
			if !p.fixed(pl) {
				return pl, true, nil
			}
			reach = append(reach, pl)
		}
	}
	return place{}, false, reach
}
