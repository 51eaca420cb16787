package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// SnapshotSpec is filled in partly at creation, partly later.
type SnapshotSpec struct {
	// Source is set at creation and never changes.
	// +required
	// +immutable
	// +immutable:message="source is immutable"
	// +kubebuilder:validation:MaxLength=253
	Source string `json:"source"`

	// VolumeHandle is filled in by the controller, then fixed.
	// +optional
	// +immutable=once
	// +immutable:message="volumeHandle may not change once set"
	// +kubebuilder:validation:MaxLength=253
	VolumeHandle string `json:"volumeHandle,omitempty"`

	// Class is required, so set once is set at creation.
	// +required
	// +immutable=once
	// +kubebuilder:validation:MaxLength=63
	Class string `json:"class"`

	// Endpoint is set once, wherever it is used.
	// +optional
	Endpoint *Endpoint `json:"endpoint,omitempty"`

	// Zones are chosen once.
	// +optional
	// +listType=set
	// +immutable=once
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=32
	Zones []string `json:"zones,omitempty"`

	// Ports have a node port that is allocated once.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	Ports []Port `json:"ports,omitempty"`

	// Disks are positional; each disk's serial is set once.
	// +optional
	// +kubebuilder:validation:MaxItems=4
	Disks []Disk `json:"disks,omitempty"`

	// Labels keep their keys.
	// +optional
	// +immutable=keys
	// +immutable:message="labels may not be added or removed"
	// +kubebuilder:validation:MaxProperties=8
	Labels map[string]string `json:"labels,omitempty"`

	// Note changes freely.
	// +optional
	Note string `json:"note,omitempty"`
}

// Endpoint is where the snapshot is served from.
// +immutable=once
type Endpoint struct {
	// +kubebuilder:validation:MaxLength=253
	Host string `json:"host"`
	// +optional
	Port int32 `json:"port,omitempty"`
}

// Port is one named port.
type Port struct {
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name"`
	// +optional
	// +immutable=once
	NodePort int32 `json:"nodePort,omitempty"`
}

// Disk is one disk.
type Disk struct {
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// +optional
	// +immutable=once
	// +kubebuilder:validation:MaxLength=63
	Serial string `json:"serial,omitempty"`
}

// +kubebuilder:object:root=true

// Snapshot is a test kind.
type Snapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SnapshotSpec `json:"spec"`
}
