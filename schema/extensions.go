package schema

import "github.com/immutable-gen/immutable-gen/runtime/extension"

// EmitExtensions writes the extensions of each marker's form (the form
// table's Extensions: the KEP's, and the project's own for the forms beyond
// it), as JSON booleans, on exactly the nodes the markers name (redundant ones included: they are
// valid, and the placement checks report them as notes).
//
// A marker with +immutable:when gets the extensions of its form and,
// beside them, its condition as x-immutable-gen-when (a string), which the
// runtime evaluates (package runtime/when); the crd generator refuses a
// condition outside what it evaluates.
func EmitExtensions(root *Node) {
	root.Walk(func(n *Node) {
		if w := n.When(); w != "" {
			n.raw[extension.When] = w
		}
		for _, o := range n.Origins {
			for _, ext := range o.Kind().Extensions {
				n.raw[ext] = true
			}
		}
		if n.IgnoreOrder() {
			n.raw[extension.IgnoreOrder] = true
		}
	})
}

// FromExtensions builds the model of a schema that states its immutability
// with the KEP's vendor extensions instead of marker carriers, such as a CRD
// that was written by hand or generated with crd:immutability=extensions:
// a node with `x-kubernetes-immutable: true` gets an Origin for +immutable,
// one with `x-kubernetes-immutable-keys: true` an Origin for
// +immutable=keys, one with `x-immutable-gen-immutable-once: true` an Origin
// for +immutable=once, each marked as an Extension;
// `x-immutable-gen-ignore-order: true` sets IgnoreOrder on the origins of
// the other forms beside it (alone, it is left for the caller to report). Only the JSON boolean
// true counts; any other value is
// left for the caller to report. The Origins have no Go position. raw is
// not changed (carrier rules, if any, stay where they are), and nothing
// inside allOf, anyOf, oneOf or not is read, as in Build.
func FromExtensions(raw map[string]any) *Node {
	n, _ := builder{origins: readExtensions}.build(raw)
	return n // readExtensions never fails, so neither does build
}

func readExtensions(raw map[string]any) ([]Origin, error) {
	var origins []Origin
	if raw[extension.Immutable] == true {
		origins = append(origins, Origin{Extension: true})
	}
	if raw[extension.ImmutableKeys] == true {
		origins = append(origins, Origin{Keys: true, Extension: true})
	}
	if raw[extension.ImmutableOnce] == true {
		origins = append(origins, Origin{Once: true, Extension: true})
	}
	if noSet, noUnset := raw[extension.NoSet] == true, raw[extension.NoUnset] == true; raw[extension.NoModify] == true || noSet || noUnset {
		origins = append(origins, Origin{NoModify: raw[extension.NoModify] == true, NoSet: noSet, NoUnset: noUnset, Extension: true})
	}
	when, _ := raw[extension.When].(string)
	for i := range origins {
		origins[i].IgnoreOrder = raw[extension.IgnoreOrder] == true
		origins[i].When = when
	}
	return origins, nil
}
