package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CacheClusterSpec is the desired state of a CacheCluster.
type CacheClusterSpec struct {
	// Engine is chosen at creation and never changes.
	// +immutable
	// +kubebuilder:validation:Enum=redis;memcached
	Engine string `json:"engine"`

	// Version may be upgraded at any time.
	Version string `json:"version"`

	// StorageClassName is fixed at creation: it can be left out, but not
	// set, changed or removed later.
	// +immutable
	// +kubebuilder:validation:MaxLength=253
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`

	// Zones the cluster spreads over, fixed at creation; their order does
	// not matter.
	// +listType=set
	// +immutable
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=63
	Zones []string `json:"zones"`

	// Shards are fixed at creation (none added or removed), but each
	// shard's replica count may change.
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +kubebuilder:validation:MaxItems=64
	Shards []Shard `json:"shards"`

	// Parameters keep their keys; their values may be tuned.
	// +immutable=keys
	// +kubebuilder:validation:MaxProperties=32
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`

	// Network is set once, as a whole (a type-level marker).
	Network Network `json:"network"`

	// Users may be added and removed; an existing user never changes
	// (the marker on type User applies to each item).
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Users []User `json:"users,omitempty"`

	// Credentials may be added and removed by name; an existing one never
	// changes (the marker on type SecretRef applies to each map value).
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	Credentials map[string]SecretRef `json:"credentials,omitempty"`

	// Backup is optional: it may be added or removed, but while it exists
	// its bucket never changes.
	// +optional
	Backup *Backup `json:"backup,omitempty"`

	// SeedSnapshot names the snapshot the cluster's data was restored from.
	// It may be given after creation (to seed an empty cluster), but once
	// given it never changes and may not be removed.
	// +optional
	// +immutable=once
	// +immutable:message="seedSnapshot may not change once set"
	// +kubebuilder:validation:MaxLength=253
	SeedSnapshot string `json:"seedSnapshot,omitempty"`
}

// Shard is one shard of the cluster.
type Shard struct {
	// Name identifies the shard; it is the list map key, so it must be
	// immutable for +immutable=keys on the list.
	// +immutable
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// Replicas may change.
	// +kubebuilder:validation:Minimum=1
	Replicas int32 `json:"replicas"`
}

// Network is the cluster's network placement.
// +immutable
type Network struct {
	// VPC the cluster lives in.
	// +kubebuilder:validation:MaxLength=64
	VPC string `json:"vpc"`
	// Subnets of the VPC.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=64
	// +optional
	Subnets []string `json:"subnets,omitempty"`
}

// User is an account on the cache.
// +immutable
type User struct {
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Role string `json:"role,omitempty"`
}

// SecretRef names a Secret key.
// +immutable
type SecretRef struct {
	// +kubebuilder:validation:MaxLength=253
	Secret string `json:"secret"`
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// Backup configures backups.
type Backup struct {
	// Bucket is where backups go; it never changes while backups exist.
	// +immutable
	// +kubebuilder:validation:MaxLength=222
	Bucket string `json:"bucket"`
	// Schedule may change.
	// +optional
	Schedule string `json:"schedule,omitempty"`
}

// CacheClusterStatus is the observed state of a CacheCluster.
type CacheClusterStatus struct {
	// +optional
	ReadyShards int32 `json:"readyShards,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// CacheCluster is a managed cache cluster.
type CacheCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   CacheClusterSpec   `json:"spec,omitempty"`
	Status CacheClusterStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CacheClusterList is a list of CacheClusters.
type CacheClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CacheCluster `json:"items"`
}
