package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// TaskSpec is the desired state.
type TaskSpec struct {
	// +immutable
	// +immutable:when="oldSelf.spec.a &&& true"
	A string `json:"a"`
	// +immutable
	// +immutable:when="size(oldSelf.spec.b)"
	B string `json:"b"`
	// +immutable
	// +immutable:when="oldSelf.status.conditions.exists(c, c.type == 'Ready')"
	C string `json:"c"`
	// +immutable
	// +immutable:when="oldSelf.spec.d == 'x' || oldSelf.spec.nope"
	D string `json:"d"`
	// +immutable
	// +immutable:when="!oldSelf.spec.suspend"
	E string `json:"e"`
	// +immutable
	// +immutable:when="oldSelf.spec.f.matches('^x')"
	F string `json:"f"`
	// +immutable
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Ready')"
	G string `json:"g"`
	// +optional
	Suspend *bool `json:"suspend,omitempty"`
}

// TaskStatus is the observed state.
type TaskStatus struct {
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Task is a kind with every mistake.
// +kubebuilder:object:root=true
type Task struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              TaskSpec   `json:"spec"`
	Status            TaskStatus `json:"status,omitempty"`
}
