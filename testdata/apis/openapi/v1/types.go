package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ImageRef names a container image. It is immutable wherever it is used: as
// a field, a list item or a map value.
// +immutable
type ImageRef string

// Source is where the gadget's content comes from; a source never changes
// once chosen, wherever it is used.
// +immutable
// +k8s:openapi-model-package=io.example.openapi.v1
type Source struct {
	URL      string `json:"url"`
	Revision string `json:"revision,omitempty"`
}

// ClaimName names a claim bound later. It is set once wherever it is used
// as a field.
// +immutable=once
type ClaimName string

// Port is an item of a list map keyed by name.
type Port struct {
	// +immutable
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// OpenAPIModelName makes openapi-gen key Port by this name instead of its Go
// path (a hand-written accessor, as opposed to Source's package tag).
func (Port) OpenAPIModelName() string { return "io.example.openapi.v1.Port" }

// Placement is an ordinary struct.
type Placement struct {
	Zone string `json:"zone"`
	Rack string `json:"rack,omitempty"`
}

// Ownership is inlined into GadgetSpec: openapi-gen copies its properties
// there, and publishes Ownership on its own as well.
type Ownership struct {
	// Owner never changes.
	// +immutable
	Owner string `json:"owner"`

	// +optional
	Team string `json:"team,omitempty"`
}

// GadgetSpec is the desired state of a Gadget.
type GadgetSpec struct {
	// Name never changes.
	// +immutable
	Name string `json:"name"`

	// Size may change.
	// +optional
	Size int32 `json:"size,omitempty"`

	// Placement is immutable as a whole.
	// +immutable
	Placement Placement `json:"placement"`

	// +immutable
	// +optional
	Backup *Placement `json:"backup,omitempty"`

	// Tags is a set that never changes.
	// +listType=set
	// +immutable
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Ports may change, but no port may be added or removed.
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// Labels keep their keys; the values may change.
	// +immutable=keys
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Image uses the immutable ImageRef as a field.
	// +optional
	Image ImageRef `json:"image,omitempty"`

	// Sidecars uses ImageRef as list items.
	// +listType=atomic
	// +optional
	Sidecars []ImageRef `json:"sidecars,omitempty"`

	// Mirrors uses ImageRef as map values.
	// +optional
	Mirrors map[string]ImageRef `json:"mirrors,omitempty"`

	// Registries nests ImageRef in lists in a map.
	// +optional
	Registries map[string][]ImageRef `json:"registries,omitempty"`

	// Source uses the immutable Source as a field.
	Source Source `json:"source"`

	// Fallbacks uses Source as list items.
	// +optional
	Fallbacks []Source `json:"fallbacks,omitempty"`

	// SourcesByRegion uses Source as map values.
	// +optional
	SourcesByRegion map[string]Source `json:"sourcesByRegion,omitempty"`

	// VolumeID is empty at creation, set later by a controller, and then
	// never changed or removed.
	// +immutable=once
	// +optional
	VolumeID string `json:"volumeID,omitempty"`

	// Endpoint is set once, as a whole.
	// +immutable=once
	// +optional
	Endpoint *Placement `json:"endpoint,omitempty"`

	// Zones is a set that is set once, then fixed.
	// +listType=set
	// +immutable=once
	// +optional
	Zones []string `json:"zones,omitempty"`

	// Paused stops the gadget.
	// +optional
	Paused *bool `json:"paused,omitempty"`

	// Tier is fixed unless the gadget is paused (+immutable:when, carried
	// as x-immutable-gen-when beside x-kubernetes-immutable).
	// +immutable
	// +immutable:when="!has(self.spec.paused) || !self.spec.paused"
	// +optional
	Tier string `json:"tier,omitempty"`

	// Claim uses the set-once ClaimName as a field.
	// +optional
	Claim ClaimName `json:"claim,omitempty"`

	Ownership `json:",inline"`

	// Scratch is not serialized.
	Scratch string `json:"-"`
}

// GadgetStatus is the observed state of a Gadget.
type GadgetStatus struct {
	// +optional
	Ready bool `json:"ready,omitempty"`
}

// Gadget is a test kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}
