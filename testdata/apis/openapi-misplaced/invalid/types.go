package invalid

// Widget has an invalid and a misspelled marker.
type Widget struct {
	// +immutable=bogus
	Name string `json:"name"`

	// +imutable
	Size int32 `json:"size"`
}
