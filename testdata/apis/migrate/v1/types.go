package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WidgetSpec is the desired state of a Widget.
//
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.volumeHandle) || has(self.volumeHandle)",message="volumeHandle may not change once set"
// +kubebuilder:validation:XValidation:rule="has(self.region) == has(oldSelf.region)",message="region is immutable"
// +kubebuilder:validation:XValidation:rule="self.class == oldSelf.class",message="class is immutable",fieldPath=".class"
// +kubebuilder:validation:XValidation:rule="self.zone == oldSelf.zone && self.replicas >= oldSelf.replicas",message="zone is immutable and replicas may not decrease"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.nodeName) || self.nodeName == oldSelf.nodeName",message="nodeName is set once"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName",message="clusterName may be cleared, not changed"
// +kubebuilder:validation:XValidation:rule="(has(oldSelf.paused) && oldSelf.paused) || self.size == oldSelf.size",message="size is immutable unless paused"
type WidgetSpec struct {
	// Name is set at creation and never changes.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="name is immutable"
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// Owner is immutable, written the usual way: it can still be removed
	// and set again.
	// +kubebuilder:validation:XValidation:rule="oldSelf == self"
	// +optional
	Owner *string `json:"owner,omitempty"`

	// VolumeHandle is filled in by a controller, then fixed.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="volumeHandle may not change once set"
	// +optional
	VolumeHandle string `json:"volumeHandle,omitempty"`

	// Region is immutable, presence included.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="region is immutable"
	// +optional
	Region string `json:"region,omitempty"`

	// Class is immutable through a rule on the parent.
	Class string `json:"class"`

	// Zone is immutable through a rule on the parent that also checks
	// replicas.
	Zone string `json:"zone"`

	Replicas int32 `json:"replicas"`

	// NodeName is set once, through one rule on the parent.
	// +optional
	NodeName string `json:"nodeName,omitempty"`

	// ClusterName may be cleared and set again, never changed while set
	// (needs +k8s:update=NoModify).
	// +optional
	ClusterName string `json:"clusterName,omitempty"`

	// Size is immutable unless the widget is paused (needs
	// +immutable:when).
	// +optional
	Size int32 `json:"size,omitempty"`

	// +optional
	Paused bool `json:"paused"`

	// Labels keep their keys; values may change.
	// +kubebuilder:validation:XValidation:rule="oldSelf.all(k, k in self) && self.all(k, k in oldSelf)",message="label keys are immutable"
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Annotations may gain keys, never lose one (validation-gen's
	// NoRemoveItem).
	// +kubebuilder:validation:XValidation:rule="oldSelf.all(k, k in self)",message="annotations may not be removed"
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// Ports keep their names, in any order.
	// +kubebuilder:validation:XValidation:rule="oldSelf.all(x, self.exists(y, y.name == x.name)) && self.all(x, oldSelf.exists(y, y.name == x.name))",message="port names are immutable"
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// Volumes keep their names in order: +immutable=keys ignores order.
	// +kubebuilder:validation:XValidation:rule="self.map(v, v.name) == oldSelf.map(v, v.name)",message="volume names are immutable"
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Volumes []Volume `json:"volumes,omitempty"`

	// Mode is immutable and never "legacy": the second check is no
	// transition rule, so the rule is not split.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf && self != 'legacy'",message="mode is immutable and not legacy"
	// +optional
	Mode string `json:"mode,omitempty"`

	// Tier's message is an expression, which +immutable:message cannot
	// carry.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",messageExpression="'tier ' + oldSelf + ' is immutable'"
	// +optional
	Tier string `json:"tier,omitempty"`

	// Image is immutable through its type.
	// +optional
	Image *Image `json:"image,omitempty"`

	// Provider uses validation-gen's tag (kept unless
	// --k8s-immutable=immutable).
	// +k8s:immutable
	// +optional
	Provider string `json:"provider,omitempty"`
}

// Port is a named port.
type Port struct {
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// Volume is a named volume.
type Volume struct {
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// +optional
	Size string `json:"size,omitempty"`
}

// Image never changes once the widget has one.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="image is immutable"
type Image struct {
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
}

// +kubebuilder:object:root=true

// Widget is the example kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WidgetSpec `json:"spec"`
}

// GadgetSpec is the desired state of a Gadget.
//
// +kubebuilder:validation:XValidation:rule="self.backup == oldSelf.backup",message="backup is immutable"
type GadgetSpec struct {
	// Backup is compared by a parent rule that fails when it is absent.
	// +optional
	Backup string `json:"backup,omitempty"`
}

// +kubebuilder:object:root=true

// Gadget is a kind whose only rule stays as written.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GadgetSpec `json:"spec"`
}
