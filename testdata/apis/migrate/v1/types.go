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
// +kubebuilder:validation:XValidation:rule="!has(self.pool) || self.pool == oldSelf.pool",message="pool may be cleared, not set later or changed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.topology) || (has(self.nodeLabels) == has(oldSelf.nodeLabels) && (!has(self.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels))",message="nodeLabels are immutable once a topology is set"
// +kubebuilder:validation:XValidation:rule="(!has(oldSelf.scheduling) && !has(self.scheduling)) || (has(oldSelf.scheduling) && has(self.scheduling))",message="scheduling may not be added or removed"
// +kubebuilder:validation:XValidation:rule="(has(oldSelf.timeout) ? oldSelf.timeout : 0) == (has(self.timeout) ? self.timeout : 0)",message="timeout is immutable"
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
	// (+k8s:update=NoModify).
	// +optional
	ClusterName string `json:"clusterName,omitempty"`

	// Pool may be cleared, but not set later, and never changed while set
	// (+k8s:update=NoSet and NoModify).
	// +optional
	Pool string `json:"pool,omitempty"`

	// Size is immutable unless the widget is paused (+immutable:when,
	// the condition rewritten over the whole objects).
	Size int32 `json:"size"`

	// +optional
	Paused bool `json:"paused"`

	// Scheduling may change, but not be added or removed: presence alone,
	// validation-gen's NoSet and NoUnset.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Scheduling string `json:"scheduling,omitempty"`

	// Timeout is compared with absence taken as 0, which no marker says
	// (a marker tells an absent value from 0).
	// +optional
	Timeout *int32 `json:"timeout,omitempty"`

	// Topology, once set, fixes NodeLabels (Kueue's ResourceFlavor).
	// +optional
	Topology string `json:"topology,omitempty"`

	// NodeLabels are immutable, presence included, once a topology is set
	// (+immutable and +immutable:when).
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`

	// Queue is fixed while present and the widget is ready (Kueue's
	// QuotaReserved rules, on the kind's root type).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Queue string `json:"queue,omitempty"`

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

// Volume is a named volume. Its size is fixed unless it is the scratch
// volume: a conditional rule on a list item, which +immutable:when cannot
// say (its condition sees the whole objects).
// +kubebuilder:validation:XValidation:rule="oldSelf.name == 'scratch' || (has(self.size) == has(oldSelf.size) && (!has(self.size) || self.size == oldSelf.size))",message="only the scratch volume may be resized"
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

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true

// Widget is the example kind.
//
// +kubebuilder:validation:XValidation:rule="(has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')) && has(oldSelf.spec.queue) && has(self.spec.queue) ? oldSelf.spec.queue == self.spec.queue : true",message="queue is immutable while the widget is ready"
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec WidgetSpec `json:"spec"`
	// +optional
	Status WidgetStatus `json:"status,omitempty"`
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
