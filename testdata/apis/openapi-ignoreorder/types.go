package ignoreorder

// Dep is a list map item.
type Dep struct {
	Name string `json:"name"`
}

// Deps is fixed as a whole, in any order.
// +immutable
// +immutable:ignoreOrder
type Deps []Dep

// Widget holds them.
type Widget struct {
	// +listType=map
	// +listMapKey=name
	// +immutable=once
	// +immutable:ignoreOrder
	Later []Dep `json:"later,omitempty"`

	// openapi-gen reads +listType from the field only.
	// +listType=map
	// +listMapKey=name
	Deps Deps `json:"deps,omitempty"`

	// Cluster is fixed while present (validation-gen's tag).
	// +k8s:update=NoModify
	Cluster *string `json:"cluster,omitempty"`

	// Scheduling may not be added or removed; its value may change.
	// +k8s:update=NoSet
	// +k8s:update=NoUnset
	Scheduling *Dep `json:"scheduling,omitempty"`
}
