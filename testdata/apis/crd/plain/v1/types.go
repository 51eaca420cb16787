package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Phase is a lifecycle phase.
// +kubebuilder:validation:Enum=Pending;Running;Done
type Phase string

// DatabaseSpec is the desired state of a Database.
// +kubebuilder:validation:XValidation:rule="self.replicas <= 9 || self.tier == 'large'",message="small tiers have at most 9 replicas"
type DatabaseSpec struct {
	// Engine is the database engine.
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	// +kubebuilder:validation:MaxLength=32
	Engine string `json:"engine"`

	// Replicas is the number of replicas.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +kubebuilder:default=3
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// +kubebuilder:validation:Enum=small;large
	// +optional
	Tier string `json:"tier,omitempty"`

	// +listType=map
	// +listMapKey=name
	// +listMapKey=protocol
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// +listType=set
	// +optional
	Zones []string `json:"zones,omitempty"`

	// +mapType=atomic
	// +optional
	Selector map[string]string `json:"selector,omitempty"`

	// +optional
	Settings map[string]Setting `json:"settings,omitempty"`

	// Port or name.
	// +optional
	Target intstr.IntOrString `json:"target,omitempty"`

	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Extra runtime.RawExtension `json:"extra,omitempty"`

	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable"
	// +optional
	Owner string `json:"owner,omitempty"`

	// Fields named like YAML 1.1 booleans.
	// +optional
	Y string `json:"y,omitempty"`
	// +optional
	On bool `json:"on,omitempty"`
	// +optional
	No *bool `json:"no,omitempty"`

	// +optional
	Schedule *metav1.Time `json:"schedule,omitempty"`

	// +optional
	Template *Template `json:"template,omitempty"`
}

// Port is a network port.
type Port struct {
	Name string `json:"name"`
	// +kubebuilder:default=TCP
	Protocol string `json:"protocol"`
	Port     int32  `json:"port"`
}

// Setting is one setting.
type Setting struct {
	Value string `json:"value"`
	// +optional
	Secret bool `json:"secret,omitempty"`
}

// Template is an embedded object template.
type Template struct {
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Args []string `json:"args,omitempty"`
}

// DatabaseStatus is the observed state.
type DatabaseStatus struct {
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=db,scope=Namespaced
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`

// Database is a test kind.
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatabaseSpec   `json:"spec,omitempty"`
	Status DatabaseStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DatabaseList is a list of Databases.
type DatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Database `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster

// Backup is a cluster-scoped kind.
type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec BackupSpec `json:"spec,omitempty"`
}

// BackupSpec is the desired state of a Backup.
type BackupSpec struct {
	Database string `json:"database"`
	// +optional
	Retention *metav1.Duration `json:"retention,omitempty"`
}
