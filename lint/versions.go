package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/immutable-gen/immutable-gen/schema"
)

// versionSkew reports a field immutable in one served version of the CRD
// and not in another (IG017): every served version reads and writes the
// same stored object, so an update through the version without the rule
// changes the field (Kueue's Topology levels: `self == oldSelf` in
// v1beta1, a weaker rule in v1beta2).
func (c *crdLint) versionSkew() {
	if len(c.served) < 2 {
		return
	}
	someImmutable := false
	for _, v := range c.served {
		someImmutable = someImmutable || len(c.immutable[v]) > 0
	}
	if !someImmutable {
		return
	}
	for _, b := range c.served {
		nodes := map[string]*schema.Node{}
		eachNode(c.models[b], func(n *schema.Node) { nodes[n.Path()] = n })
		reported := map[string]bool{}
		for _, a := range c.served {
			if a == b {
				continue
			}
			for _, p := range sortedKeys(c.immutable[a]) {
				if nodes[p] == nil || reported[p] || covered(c.immutable[b], p) {
					continue
				}
				reported[p] = true
				fix := "make it immutable in " + b + " as in " + a + " (or stop serving " + b + ")"
				if r, ok := c.immutableRules[a][p]; ok && !strings.Contains(r, "`") {
					fix = fmt.Sprintf("add the rule `%s` to the x-kubernetes-validations of %s in %s, as in %s (or stop serving %s)", r, p, b, a, b)
				}
				c.report(b, p, IDVersionSkew, fix,
					"immutable in the served version %s (by %s), but not in %s: an update through %s changes it, and every served version writes the same stored object", a, c.immutable[a][p], b, b)
			}
		}
	}
}

// covered reports whether path p or an object above it is immutable.
func covered(imm map[string]string, p string) bool {
	for q := range imm {
		if q == p || q == "<root>" || strings.HasPrefix(p, q+".") || strings.HasPrefix(p, q+"[") {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
