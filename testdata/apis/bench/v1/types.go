// Code generated for the generation benchmark; DO NOT EDIT.

package v1

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true

// PodHolder wraps corev1.PodSpec as a custom resource.
type PodHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.PodSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.PodSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.PodStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// ServiceHolder wraps corev1.ServiceSpec as a custom resource.
type ServiceHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.ServiceSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.ServiceSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.ServiceStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// PersistentVolumeHolder wraps corev1.PersistentVolumeSpec as a custom resource.
type PersistentVolumeHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.PersistentVolumeSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.PersistentVolumeSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.PersistentVolumeStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// PersistentVolumeClaimHolder wraps corev1.PersistentVolumeClaimSpec as a custom resource.
type PersistentVolumeClaimHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.PersistentVolumeClaimSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.PersistentVolumeClaimSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.PersistentVolumeClaimStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// NodeHolder wraps corev1.NodeSpec as a custom resource.
type NodeHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.NodeSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.NodeSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.NodeStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// ReplicationControllerHolder wraps corev1.ReplicationControllerSpec as a custom resource.
type ReplicationControllerHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.ReplicationControllerSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.ReplicationControllerSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.ReplicationControllerStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// NamespaceHolder wraps corev1.NamespaceSpec as a custom resource.
type NamespaceHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.NamespaceSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.NamespaceSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.NamespaceStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// ResourceQuotaHolder wraps corev1.ResourceQuotaSpec as a custom resource.
type ResourceQuotaHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.ResourceQuotaSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.ResourceQuotaSpec `json:"spec,omitempty"`
	// +optional
	Status corev1.ResourceQuotaStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// LimitRangeHolder wraps corev1.LimitRangeSpec as a custom resource.
type LimitRangeHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.LimitRangeSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.LimitRangeSpec `json:"spec,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// PodTemplateHolder wraps corev1.PodTemplateSpec as a custom resource.
type PodTemplateHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *corev1.PodTemplateSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec corev1.PodTemplateSpec `json:"spec,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// DeploymentHolder wraps appsv1.DeploymentSpec as a custom resource.
type DeploymentHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *appsv1.DeploymentSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec appsv1.DeploymentSpec `json:"spec,omitempty"`
	// +optional
	Status appsv1.DeploymentStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// StatefulSetHolder wraps appsv1.StatefulSetSpec as a custom resource.
type StatefulSetHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *appsv1.StatefulSetSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec appsv1.StatefulSetSpec `json:"spec,omitempty"`
	// +optional
	Status appsv1.StatefulSetStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// DaemonSetHolder wraps appsv1.DaemonSetSpec as a custom resource.
type DaemonSetHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *appsv1.DaemonSetSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec appsv1.DaemonSetSpec `json:"spec,omitempty"`
	// +optional
	Status appsv1.DaemonSetStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// ReplicaSetHolder wraps appsv1.ReplicaSetSpec as a custom resource.
type ReplicaSetHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *appsv1.ReplicaSetSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec appsv1.ReplicaSetSpec `json:"spec,omitempty"`
	// +optional
	Status appsv1.ReplicaSetStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// JobHolder wraps batchv1.JobSpec as a custom resource.
type JobHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *batchv1.JobSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec batchv1.JobSpec `json:"spec,omitempty"`
	// +optional
	Status batchv1.JobStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// CronJobHolder wraps batchv1.CronJobSpec as a custom resource.
type CronJobHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *batchv1.CronJobSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec batchv1.CronJobSpec `json:"spec,omitempty"`
	// +optional
	Status batchv1.CronJobStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// IngressHolder wraps networkingv1.IngressSpec as a custom resource.
type IngressHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *networkingv1.IngressSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec networkingv1.IngressSpec `json:"spec,omitempty"`
	// +optional
	Status networkingv1.IngressStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// NetworkPolicyHolder wraps networkingv1.NetworkPolicySpec as a custom resource.
type NetworkPolicyHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *networkingv1.NetworkPolicySpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec networkingv1.NetworkPolicySpec `json:"spec,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// IngressClassHolder wraps networkingv1.IngressClassSpec as a custom resource.
type IngressClassHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *networkingv1.IngressClassSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec networkingv1.IngressClassSpec `json:"spec,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// PodDisruptionBudgetHolder wraps policyv1.PodDisruptionBudgetSpec as a custom resource.
type PodDisruptionBudgetHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *policyv1.PodDisruptionBudgetSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec policyv1.PodDisruptionBudgetSpec `json:"spec,omitempty"`
	// +optional
	Status policyv1.PodDisruptionBudgetStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// HorizontalPodAutoscalerHolder wraps autoscalingv2.HorizontalPodAutoscalerSpec as a custom resource.
type HorizontalPodAutoscalerHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *autoscalingv2.HorizontalPodAutoscalerSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec autoscalingv2.HorizontalPodAutoscalerSpec `json:"spec,omitempty"`
	// +optional
	Status autoscalingv2.HorizontalPodAutoscalerStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// CSIDriverHolder wraps storagev1.CSIDriverSpec as a custom resource.
type CSIDriverHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *storagev1.CSIDriverSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec storagev1.CSIDriverSpec `json:"spec,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// VolumeAttachmentHolder wraps storagev1.VolumeAttachmentSpec as a custom resource.
type VolumeAttachmentHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *storagev1.VolumeAttachmentSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec storagev1.VolumeAttachmentSpec `json:"spec,omitempty"`
	// +optional
	Status storagev1.VolumeAttachmentStatus `json:"status,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// +kubebuilder:object:root=true

// CSINodeHolder wraps storagev1.CSINodeSpec as a custom resource.
type CSINodeHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initial is fixed at creation.
	// +immutable
	// +optional
	Initial *storagev1.CSINodeSpec `json:"initial,omitempty"`

	// Spec may change.
	// +optional
	Spec storagev1.CSINodeSpec `json:"spec,omitempty"`

	// Owners keep their keys.
	// +immutable=keys
	// +optional
	Owners map[string]string `json:"owners,omitempty"`

	// Zones are fixed at creation.
	// +listType=set
	// +immutable
	// +optional
	Zones []string `json:"zones,omitempty"`
}
