// Package v1 is the API of docs/guide.md's examples ("What immutable
// means"): TestGuideVerdicts runs each update of the guide's tables through
// check-update on the CEL CRD generated from it and holds the guide to the
// API server's messages.
// +kubebuilder:object:generate=true
// +groupName=cache.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// CacheClusterSpec is the guide's spec.
type CacheClusterSpec struct {
	// Engine is chosen at creation and never changes.
	// +immutable
	// +kubebuilder:validation:MaxLength=64
	Engine string `json:"engine"`

	// StorageClassName may be left out at creation, but never set, changed
	// or removed afterwards.
	// +immutable
	// +optional
	// +kubebuilder:validation:MaxLength=253
	StorageClassName *string `json:"storageClassName,omitempty"`

	// +optional
	Backup *Backup `json:"backup,omitempty"`

	// Parameters keep their keys; their values may be tuned.
	// +immutable=keys
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Parameters map[string]string `json:"parameters,omitempty"`

	// Shards are fixed at creation (none added or removed), but each
	// shard's replica count may change.
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Shards []Shard `json:"shards,omitempty"`
}

// Backup is an optional parent with an immutable field.
type Backup struct {
	// +immutable
	// +kubebuilder:validation:MaxLength=63
	Bucket   string `json:"bucket"`
	Schedule string `json:"schedule,omitempty"`
}

// Shard is an item of a list map under =keys.
type Shard struct {
	// The key of a list map under =keys must itself be immutable.
	// +immutable
	// +kubebuilder:validation:MaxLength=63
	Name     string `json:"name"`
	Replicas int32  `json:"replicas,omitempty"`
}

// +kubebuilder:object:root=true

// CacheCluster is the guide's kind.
type CacheCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec CacheClusterSpec `json:"spec"`
}
