package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Deployment has the shape of apps/v1 Deployment: a selector, a pod
// template with containers (ports, env, resources, volume mounts, probes),
// volumes, tolerations and a strategy; dozens of fields, a few immutable,
// spread through the tree as in real APIs.
//
// +kubebuilder:object:root=true
type Deployment struct {
	metav1.TypeMeta `json:",inline"`
	// Metadata is not compared: validation-gen's checks of it are
	// not about immutability.
	// +k8s:opaqueType
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DeploymentSpec `json:"spec"`
}

// DeploymentList is a list of Deployments.
//
// +kubebuilder:object:root=true
type DeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Deployment `json:"items"`
}

// DeploymentSpec is apps/v1 DeploymentSpec's shape.
type DeploymentSpec struct {
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Selector is immutable, as in apps/v1.
	// +immutable
	// +k8s:immutable
	// +k8s:optional
	Selector *LabelSelector `json:"selector"`

	Template PodTemplateSpec `json:"template"`

	// +optional
	Strategy DeploymentStrategy `json:"strategy,omitempty"`

	// +optional
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// +optional
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// +optional
	Paused bool `json:"paused,omitempty"`
	// +optional
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// LabelSelector is metav1.LabelSelector's shape.
type LabelSelector struct {
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// +optional
	// +listType=atomic
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is metav1.LabelSelectorRequirement's shape.
type LabelSelectorRequirement struct {
	Key      string `json:"key"`
	Operator string `json:"operator"`
	// +optional
	// +listType=atomic
	Values []string `json:"values,omitempty"`
}

// DeploymentStrategy is apps/v1 DeploymentStrategy's shape.
type DeploymentStrategy struct {
	// Type is immutable here (not in apps/v1), for a scalar inside a struct.
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	Type string `json:"type,omitempty"`
	// +optional
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment is apps/v1 RollingUpdateDeployment's shape, with
// strings for the int-or-string fields.
type RollingUpdateDeployment struct {
	// +optional
	MaxUnavailable *string `json:"maxUnavailable,omitempty"`
	// +optional
	MaxSurge *string `json:"maxSurge,omitempty"`
}

// PodTemplateSpec is core/v1 PodTemplateSpec's shape (metadata as labels
// and annotations).
type PodTemplateSpec struct {
	// +optional
	Metadata TemplateMeta `json:"metadata,omitempty"`
	// +optional
	Spec PodSpec `json:"spec,omitempty"`
}

// TemplateMeta is the part of ObjectMeta a pod template uses.
type TemplateMeta struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// PodSpec is core/v1 PodSpec's shape, trimmed.
type PodSpec struct {
	// +optional
	// +listType=map
	// +listMapKey=name
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +k8s:optional
	Volumes []Volume `json:"volumes,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=name
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +k8s:optional
	InitContainers []Container `json:"initContainers,omitempty"`

	// +listType=map
	// +listMapKey=name
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +k8s:optional
	Containers []Container `json:"containers"`

	// +optional
	RestartPolicy string `json:"restartPolicy,omitempty"`
	// +optional
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// +optional
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// +optional
	DNSPolicy string `json:"dnsPolicy,omitempty"`

	// NodeSelector is immutable here, for a map deep in the tree.
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// ServiceAccountName is immutable here, for a scalar deep in the tree.
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// +optional
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`
	// +optional
	NodeName string `json:"nodeName,omitempty"`
	// +optional
	HostNetwork bool `json:"hostNetwork,omitempty"`
	// +optional
	HostPID bool `json:"hostPID,omitempty"`

	// SecurityContext is immutable here, for a pointer to a struct.
	// +immutable
	// +k8s:immutable
	// +optional
	// +k8s:optional
	SecurityContext *PodSecurityContext `json:"securityContext,omitempty"`

	// ImagePullSecrets is an immutable set of secret names here.
	// +optional
	// +listType=set
	// +k8s:listType=set
	// +immutable
	// +k8s:immutable
	// +k8s:optional
	ImagePullSecrets []string `json:"imagePullSecrets,omitempty"`

	// +optional
	Hostname string `json:"hostname,omitempty"`
	// +optional
	Subdomain string `json:"subdomain,omitempty"`
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`

	// +optional
	// +listType=atomic
	Tolerations []Toleration `json:"tolerations,omitempty"`

	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// +optional
	Priority *int32 `json:"priority,omitempty"`
}

// PodSecurityContext is core/v1 PodSecurityContext's shape, trimmed.
type PodSecurityContext struct {
	// +optional
	RunAsUser *int64 `json:"runAsUser,omitempty"`
	// +optional
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`
	// +optional
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`
	// +optional
	// +listType=atomic
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty"`
	// +optional
	FSGroup *int64 `json:"fsGroup,omitempty"`
}

// Toleration is core/v1 Toleration's shape.
type Toleration struct {
	// +optional
	Key string `json:"key,omitempty"`
	// +optional
	Operator string `json:"operator,omitempty"`
	// +optional
	Value string `json:"value,omitempty"`
	// +optional
	Effect string `json:"effect,omitempty"`
	// +optional
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// Volume is core/v1 Volume's shape with three sources.
type Volume struct {
	Name string `json:"name"`

	// Source is immutable: a volume is replaced, not changed.
	// +immutable
	// +k8s:immutable
	Source VolumeSource `json:"source"`
}

// VolumeSource is core/v1 VolumeSource's shape, trimmed.
type VolumeSource struct {
	// +optional
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty"`
	// +optional
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`
	// +optional
	Secret *SecretVolumeSource `json:"secret,omitempty"`
}

// EmptyDirVolumeSource is core/v1's shape with a string size.
type EmptyDirVolumeSource struct {
	// +optional
	Medium string `json:"medium,omitempty"`
	// +optional
	SizeLimit *string `json:"sizeLimit,omitempty"`
}

// ConfigMapVolumeSource is core/v1's shape.
type ConfigMapVolumeSource struct {
	Name string `json:"name"`
	// +optional
	DefaultMode *int32 `json:"defaultMode,omitempty"`
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

// SecretVolumeSource is core/v1's shape.
type SecretVolumeSource struct {
	SecretName string `json:"secretName"`
	// +optional
	DefaultMode *int32 `json:"defaultMode,omitempty"`
}

// Container is core/v1 Container's shape, trimmed.
type Container struct {
	Name string `json:"name"`

	// +optional
	Image string `json:"image,omitempty"`
	// +optional
	// +listType=atomic
	Command []string `json:"command,omitempty"`
	// +optional
	// +listType=atomic
	Args []string `json:"args,omitempty"`
	// +optional
	WorkingDir string `json:"workingDir,omitempty"`

	// Ports is an immutable list map here.
	// +optional
	// +listType=map
	// +listMapKey=containerPort
	// +k8s:listType=map
	// +k8s:listMapKey=containerPort
	// +immutable
	// +k8s:immutable
	// +kubebuilder:validation:MaxItems=16
	// +k8s:optional
	Ports []ContainerPort `json:"ports,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=name
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +k8s:optional
	Env []EnvVar `json:"env,omitempty"`

	// +optional
	Resources ResourceRequirements `json:"resources,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=mountPath
	// +k8s:listType=map
	// +k8s:listMapKey=mountPath
	// +kubebuilder:validation:MaxItems=16
	// +k8s:optional
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty"`

	// +optional
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`
	// +optional
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// +optional
	TerminationMessagePath string `json:"terminationMessagePath,omitempty"`
	// +optional
	Stdin bool `json:"stdin,omitempty"`
	// +optional
	TTY bool `json:"tty,omitempty"`
}

// ContainerPort is core/v1 ContainerPort's shape.
type ContainerPort struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	HostPort      int32 `json:"hostPort,omitempty"`
	ContainerPort int32 `json:"containerPort"`
	// +optional
	Protocol string `json:"protocol,omitempty"`
	// +optional
	HostIP string `json:"hostIP,omitempty"`
}

// EnvVar is core/v1 EnvVar's shape.
type EnvVar struct {
	Name string `json:"name"`
	// +optional
	Value string `json:"value,omitempty"`
	// +optional
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is core/v1 EnvVarSource's shape, trimmed.
type EnvVarSource struct {
	// +optional
	ConfigMapKeyRef *KeySelector `json:"configMapKeyRef,omitempty"`
	// +optional
	SecretKeyRef *KeySelector `json:"secretKeyRef,omitempty"`
}

// KeySelector selects a key of a ConfigMap or Secret.
type KeySelector struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

// ResourceRequirements is core/v1's shape with strings for quantities.
type ResourceRequirements struct {
	// +optional
	Limits map[string]string `json:"limits,omitempty"`
	// +optional
	Requests map[string]string `json:"requests,omitempty"`
}

// VolumeMount is core/v1 VolumeMount's shape.
type VolumeMount struct {
	// Name is immutable here: a mount keeps its volume.
	// +immutable
	// +k8s:immutable
	// +kubebuilder:validation:MaxLength=63
	// +k8s:optional
	Name string `json:"name"`
	// +optional
	ReadOnly  bool   `json:"readOnly,omitempty"`
	MountPath string `json:"mountPath"`
	// +optional
	SubPath string `json:"subPath,omitempty"`
}

// Probe is core/v1 Probe's shape with an HTTP handler only.
type Probe struct {
	// +optional
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`
	// +optional
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	// +optional
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`
	// +optional
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
	// +optional
	SuccessThreshold int32 `json:"successThreshold,omitempty"`
	// +optional
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// HTTPGetAction is core/v1 HTTPGetAction's shape, with an integer port.
type HTTPGetAction struct {
	// +optional
	Path string `json:"path,omitempty"`
	Port int32  `json:"port"`
	// +optional
	Host string `json:"host,omitempty"`
	// +optional
	Scheme string `json:"scheme,omitempty"`
}
