package once

// Zone is set once wherever it is used: allowed as a field, refused as list
// items and map values.
// +immutable=once
type Zone string

// Endpoint is set once, wherever it is used.
// +immutable=once
type Endpoint struct {
	Host string `json:"host"`
}

// Widget uses the set-once types and fields well and badly.
type Widget struct {
	// VolumeID is set once: allowed, no diagnostic.
	// +immutable=once
	// +optional
	VolumeID string `json:"volumeID,omitempty"`

	// Zone is a set-once named type as a field: allowed.
	// +optional
	Zone Zone `json:"zone,omitempty"`

	// Zones has set-once items.
	// +listType=atomic
	// +optional
	Zones []Zone `json:"zones,omitempty"`

	// ZonesByRegion has set-once values.
	// +optional
	ZonesByRegion map[string]Zone `json:"zonesByRegion,omitempty"`

	// Endpoints has set-once struct items.
	// +optional
	Endpoints []Endpoint `json:"endpoints,omitempty"`

	// Both is marked two ways.
	// +immutable
	// +immutable=once
	// +optional
	Both string `json:"both,omitempty"`

	// Primary is +immutable on a set-once struct type.
	// +immutable
	// +optional
	Primary *Endpoint `json:"primary,omitempty"`

	// Labels is marked =keys and =once.
	// +immutable=keys
	// +immutable=once
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Name is required: set once is set at creation.
	// +immutable=once
	Name string `json:"name"`

	// Claim has a message, which the openapi output does not carry.
	// +immutable=once
	// +immutable:message="claim is set once"
	// +optional
	Claim string `json:"claim,omitempty"`

	// Tags is set once, and its items are immutable anyway.
	// +immutable=once
	// +optional
	Tags []Tag `json:"tags,omitempty"`
}

// Tag is immutable wherever it is used.
// +immutable
type Tag string
