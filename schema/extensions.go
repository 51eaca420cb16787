package schema

// EmitExtensions writes the KEP's vendor extensions, as JSON booleans, on
// exactly the nodes the markers name (redundant ones included: they are
// valid, and the placement checks report them as notes).
func EmitExtensions(root *Node) {
	root.Walk(func(n *Node) {
		if n.Immutable() {
			n.Raw[ExtImmutable] = true
		}
		if n.ImmutableKeys() {
			n.Raw[ExtImmutableKeys] = true
		}
	})
}
