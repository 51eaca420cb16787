// Package v1 is the PodSet API of the webhook load test's immutable-heavy
// workload: a JobSet-like resource whose spec is mostly immutable pod
// template — an immutable list map of containers, an immutable atomic list
// of volumes, an immutable set of hosts and a map with immutable values —
// beside a few mutable fields. The CRD the unstructured webhook checks
// (testdata/podsets-crd.yaml, extensions mode) and the typed code the
// ImmutableValidator webhook checks (zz_generated.*.go) are generated from
// these types; regenerate from bench/webhook with
//
//	go build -o /tmp/immutable-gen ../../cmd/immutable-gen
//	/tmp/immutable-gen object validators crd:immutability=extensions paths=./apis/... output:crd:dir=testdata
//
// +kubebuilder:object:generate=true
// +groupName=bench.immutable-gen.io
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is bench.immutable-gen.io/v1.
var GroupVersion = schema.GroupVersion{Group: "bench.immutable-gen.io", Version: "v1"}

// AddToScheme registers PodSet and PodSetList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &PodSet{}, &PodSetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// PodSet runs a set of pods from a template that does not change after
// creation.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type PodSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PodSetSpec   `json:"spec"`
	Status PodSetStatus `json:"status,omitempty"`
}

// PodSetList is a list of PodSets.
//
// +kubebuilder:object:root=true
type PodSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PodSet `json:"items"`
}

// PodSetSpec is mostly immutable.
type PodSetSpec struct {
	// Replicas may change.
	Replicas int32 `json:"replicas"`
	// Suspend may change.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`
	// Parallelism may change.
	// +optional
	Parallelism *int32 `json:"parallelism,omitempty"`

	// Containers are fixed at creation, in order.
	// +immutable
	// +listType=map
	// +listMapKey=name
	Containers []Container `json:"containers"`

	// Volumes are fixed at creation, in order.
	// +immutable
	// +optional
	Volumes []Volume `json:"volumes,omitempty"`

	// Hosts are fixed at creation, in any order.
	// +immutable
	// +listType=set
	// +optional
	Hosts []string `json:"hosts,omitempty"`

	// Routes may be added and removed, but a route does not change.
	// +optional
	Routes map[string]Route `json:"routes,omitempty"`
}

// Container is a container of the pod template.
type Container struct {
	Name  string `json:"name"`
	Image string `json:"image"`
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// +optional
	Args []string `json:"args,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=name
	Env []EnvVar `json:"env,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=containerPort
	Ports []ContainerPort `json:"ports,omitempty"`
	// +optional
	Resources Resources `json:"resources,omitempty"`
	// +optional
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`
	// +optional
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`
	// +optional
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty"`
}

// EnvVar is an environment variable.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	// +optional
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	// +optional
	Protocol string `json:"protocol,omitempty"`
}

// Resources are a container's requests and limits.
type Resources struct {
	// +optional
	Requests map[string]string `json:"requests,omitempty"`
	// +optional
	Limits map[string]string `json:"limits,omitempty"`
}

// Probe is an HTTP probe.
type Probe struct {
	Path string `json:"path"`
	Port int32  `json:"port"`
	// +optional
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	// +optional
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
	// +optional
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// VolumeMount mounts a volume into a container.
type VolumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`
}

// Volume is a volume of the pod template: a config map, a secret or an
// empty directory.
type Volume struct {
	Name string `json:"name"`
	// +optional
	ConfigMap *ConfigMapVolume `json:"configMap,omitempty"`
	// +optional
	Secret *SecretVolume `json:"secret,omitempty"`
	// +optional
	EmptyDir *EmptyDirVolume `json:"emptyDir,omitempty"`
}

// ConfigMapVolume projects a config map.
type ConfigMapVolume struct {
	Name string `json:"name"`
	// +optional
	DefaultMode *int32 `json:"defaultMode,omitempty"`
	// +optional
	Items []KeyToPath `json:"items,omitempty"`
}

// SecretVolume projects a secret.
type SecretVolume struct {
	SecretName string `json:"secretName"`
	// +optional
	Optional *bool `json:"optional,omitempty"`
}

// EmptyDirVolume is an empty directory.
type EmptyDirVolume struct {
	// +optional
	Medium string `json:"medium,omitempty"`
	// +optional
	SizeLimit string `json:"sizeLimit,omitempty"`
}

// KeyToPath maps a key to a file.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
}

// Route is an immutable route: a map value that does not change.
//
// +immutable
type Route struct {
	Host string `json:"host"`
	Path string `json:"path"`
	Port int32  `json:"port"`
	// +optional
	TLS bool `json:"tls,omitempty"`
}

// PodSetStatus is what the controller observes.
type PodSetStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	Ready int32 `json:"ready,omitempty"`
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
