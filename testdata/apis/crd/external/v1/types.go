package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VolumeSetSpec is the desired state.
type VolumeSetSpec struct {
	// Claim is fixed at creation, in the KEP's strict order: it fits
	// without a bound.
	// +required
	// +immutable
	Claim corev1.PersistentVolumeClaim `json:"claim"`

	// ClaimTemplates is unbounded, and each claim is fixed in the KEP's
	// strict order: the order check of status.conditions, inside
	// k8s.io/api's PersistentVolumeClaim, would need a bound there.
	// +optional
	// +listType=map
	// +listMapKey=name
	ClaimTemplates []ClaimTemplate `json:"claimTemplates,omitempty"`
}

// ClaimTemplate names a claim.
type ClaimTemplate struct {
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// +immutable
	Claim corev1.PersistentVolumeClaim `json:"claim"`
}

// +kubebuilder:object:root=true

// VolumeSet is the test kind.
type VolumeSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec VolumeSetSpec `json:"spec"`
}
