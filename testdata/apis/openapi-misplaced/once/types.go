package once

// Widget has a field and a field type marked +immutable=once.
type Widget struct {
	// +immutable=once
	VolumeID string `json:"volumeID,omitempty"`

	Endpoint *Endpoint `json:"endpoint,omitempty"`

	// +immutable
	Name string `json:"name"`
}

// Endpoint is set once, wherever it is used.
// +immutable=once
type Endpoint struct {
	Host string `json:"host"`
}
