package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// DependsOn names a replicated job this one waits for.
type DependsOn struct {
	// Name of the replicated job.
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Status to wait for.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Status string `json:"status,omitempty"`
}

// ReplicatedJob is one group of jobs.
type ReplicatedJob struct {
	// Name of the group.
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// Replicas may change.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// DependsOn is fixed at creation; its order means nothing. Inside the
	// items of an unbounded list, it needs a bound of its own, as a
	// hand-written self == oldSelf would (JobSet has MaxItems=1).
	// +optional
	// +kubebuilder:validation:MaxItems=8
	// +listType=map
	// +listMapKey=name
	// +immutable
	// +immutable:ignoreOrder
	// +immutable:message="dependsOn is immutable"
	DependsOn []DependsOn `json:"dependsOn,omitempty"`
}

// Network is fixed as a whole, wherever it is used; the order of its
// subdomains means nothing.
// +immutable
// +immutable:ignoreOrder
type Network struct {
	// +optional
	// +listType=map
	// +listMapKey=name
	Subdomains []DependsOn `json:"subdomains,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Policy string `json:"policy,omitempty"`
}

// JobSetSpec is the desired state.
type JobSetSpec struct {
	// ReplicatedJobs is unbounded: no marker here needs a bound.
	// +optional
	// +listType=map
	// +listMapKey=name
	ReplicatedJobs []ReplicatedJob `json:"replicatedJobs,omitempty"`

	// Network is immutable through its type.
	// +optional
	Network *Network `json:"network,omitempty"`

	// Coordinators are set once, in any order.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +immutable=once
	// +immutable:ignoreOrder
	Coordinators []DependsOn `json:"coordinators,omitempty"`
}

// +kubebuilder:object:root=true

// JobSet is the test kind.
type JobSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec JobSetSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// JobSetList lists JobSets.
type JobSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []JobSet `json:"items"`
}
