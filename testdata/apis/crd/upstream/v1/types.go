package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PodSet is a list map item.
type PodSet struct {
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// +optional
	Count int32 `json:"count,omitempty"`
}

// WorkloadSpec is the desired state.
type WorkloadSpec struct {
	// QueueName is fixed at creation (NoSet, NoUnset, NoModify: +immutable).
	// +optional
	// +k8s:update=NoSet
	// +k8s:update=NoUnset
	// +k8s:update=NoModify
	// +kubebuilder:validation:MaxLength=253
	QueueName string `json:"queueName,omitempty"`

	// VolumeHandle may be set once (NoUnset, NoModify: +immutable=once).
	// +optional
	// +k8s:update=NoModify
	// +k8s:update=NoUnset
	// +kubebuilder:validation:MaxLength=253
	VolumeHandle string `json:"volumeHandle,omitempty"`

	// PodSets keep their names; each pod set never changes while there.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +k8s:update=NoAddItem
	// +k8s:update=NoRemoveItem
	// +k8s:eachVal=+k8s:update=NoModify
	// +kubebuilder:validation:MaxItems=8
	PodSets []PodSet `json:"podSets,omitempty"`

	// Labels: each value is fixed while its key is there.
	// +optional
	// +k8s:eachVal=+k8s:update=NoModify
	// +kubebuilder:validation:MaxProperties=16
	Labels map[string]string `json:"labels,omitempty"`

	// Scheduling may not be added or removed after creation; its value may
	// change (NoSet, NoUnset: k8s.io/api's Job scheduling).
	// +optional
	// +k8s:update=NoSet
	// +k8s:update=NoUnset
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Owner may be set at creation or never, and then not changed; it may
	// be removed (NoSet, NoModify).
	// +optional
	// +k8s:update=NoSet
	// +k8s:update=NoModify
	// +kubebuilder:validation:MaxLength=253
	Owner string `json:"owner,omitempty"`

	// Region is fixed at creation (validation-gen's +k8s:immutable).
	// +optional
	// +k8s:immutable
	// +kubebuilder:validation:MaxLength=63
	Region string `json:"region,omitempty"`

	// Zone uses a type with +k8s:immutable.
	// +optional
	Zone Zone `json:"zone,omitempty"`

	// Wrapped is not enforced: the tag is wrapped in +k8s:alpha.
	// +optional
	// +k8s:alpha(since: "1.36")=+k8s:update=NoModify
	// +kubebuilder:validation:MaxLength=253
	Wrapped string `json:"wrapped,omitempty"`
}

// Zone never changes, wherever it is used.
// +k8s:immutable
// +kubebuilder:validation:MaxLength=63
type Zone string

// Scheduling is a policy whose value may change.
type Scheduling struct {
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Policy string `json:"policy,omitempty"`
}

// WorkloadStatus is the observed state.
type WorkloadStatus struct {
	// ClusterName is fixed while present: eviction clears it, and it may
	// be set again (NoModify alone, Kueue).
	// +optional
	// +k8s:update=NoModify
	// +kubebuilder:validation:MaxLength=253
	ClusterName *string `json:"clusterName,omitempty"`

	// AdmittedAt may be set later, never removed; it may change (NoUnset).
	// +optional
	// +k8s:update=NoUnset
	// +kubebuilder:validation:MaxLength=63
	AdmittedAt string `json:"admittedAt,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Workload is the test kind.
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec WorkloadSpec `json:"spec"`
	// +optional
	Status WorkloadStatus `json:"status,omitempty"`
}
