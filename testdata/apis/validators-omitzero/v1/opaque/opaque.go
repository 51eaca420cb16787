// Package opaque holds a struct with unexported fields, used by the
// omitzero test API from another package: the generated code cannot read
// its unexported fields, so reflect decides its zero value, as
// encoding/json does.
//
// +kubebuilder:object:generate=true
package opaque

// Box has an exported field and unexported ones, one not comparable.
type Box struct {
	// +optional
	Label string   `json:"label,omitempty"`
	tags  []string `json:"-"`
}

// WithTags returns b holding tags, which are not in its JSON.
func (b Box) WithTags(tags ...string) Box {
	b.tags = tags
	return b
}
