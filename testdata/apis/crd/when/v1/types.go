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
	// Suspend stops the workload.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// PodSets may change only while the workload is suspended (JobSet).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	// +immutable
	// +immutable:when="!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)"
	// +immutable:message="podSets may change only while the workload is suspended"
	PodSets []PodSet `json:"podSets,omitempty"`

	// QueueName is fixed while quota is reserved (Kueue).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +immutable
	// +immutable:when="oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	// +immutable:message="queueName is immutable while the workload has quota reserved"
	QueueName string `json:"queueName,omitempty"`

	// PriorityClassName is fixed while present and quota is reserved.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +k8s:update=NoModify
	// +immutable:when="oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// WorkloadStatus is the observed state.
type WorkloadStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions"`
}

// +kubebuilder:object:root=true

// Workload is the test kind.
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec WorkloadSpec `json:"spec"`
	// +required
	Status WorkloadStatus `json:"status"`
}
