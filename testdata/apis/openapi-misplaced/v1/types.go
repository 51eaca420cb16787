package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Labels is a map whose keys never change.
// +immutable=keys
type Labels map[string]string

// Settings is a struct: it has no keys.
// +immutable=keys
type Settings struct {
	Mode string `json:"mode"`
}

// Port is the item of a list map keyed by name.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// Common is inlined into ThingSpec.
type Common struct {
	Owner string `json:"owner"`
}

// ThingSpec has misplaced markers on its fields.
type ThingSpec struct {
	// +immutable=keys
	Name string `json:"name"`

	// +immutable=keys
	Settings Settings `json:"settings"`

	// +listType=set
	// +immutable=keys
	Tags []string `json:"tags"`

	// +immutable=keys
	Args []string `json:"args"`

	// +mapType=atomic
	// +immutable=keys
	Env map[string]string `json:"env"`

	// +immutable
	Labels Labels `json:"labels"`

	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	Ports []Port `json:"ports"`

	// +immutable
	Scratch string `json:"-"`

	// +k8s:openapi-gen=false
	// +immutable
	Internal string `json:"internal"`

	// +immutable
	Common `json:",inline"`
}

// Thing is a kind whose root type and metadata are marked.
// +immutable
type Thing struct {
	metav1.TypeMeta `json:",inline"`
	// +immutable
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec"`
}

// Manual is a kind that declares apiVersion and kind itself.
type Manual struct {
	// +immutable
	APIVersion string `json:"apiVersion"`
	// +immutable
	Kind string `json:"kind"`

	Metadata metav1.ObjectMeta `json:"metadata"`
}

// Hidden is left out of openapi-gen's definitions.
// +k8s:openapi-gen=false
type Hidden struct {
	// +immutable
	Secret string `json:"secret"`
}

// Custom has a hand-written OpenAPI schema.
type Custom struct {
	// +immutable
	Value string `json:"value"`
}

// OpenAPISchemaType makes openapi-gen publish Custom as a string.
func (Custom) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat makes openapi-gen publish Custom as a string.
func (Custom) OpenAPISchemaFormat() string { return "" }

// Refs is a list map for controller-gen, but openapi-gen ignores +listType
// on a type: it reads +listType from the field only.
// +listType=map
// +listMapKey=name
type Refs []Port

// Digest never changes.
// +immutable
type Digest string

// Frozen is marked both ways.
// +immutable
// +immutable=keys
type Frozen struct {
	Value string `json:"value"`
}

// MoreSpec has markers that are allowed, but useless or ineffective.
type MoreSpec struct {
	// +immutable=keys
	Refs Refs `json:"refs"`

	// Items of a set are never changed, only added or removed.
	// +listType=set
	Digests []Digest `json:"digests"`

	// The items are immutable already as part of the list.
	// +immutable
	Pinned []Digest `json:"pinned"`
	// Note has two messages beside one marker: an error, as on the CRD path.
	// +immutable
	// +immutable:message="first"
	// +immutable:message="second"
	// +optional
	Note string `json:"note,omitempty"`
	// Stamp has a condition outside the subset the runtime evaluates.
	// +immutable
	// +immutable:when="self.spec.stamp.lowerAscii() == 'x'"
	// +optional
	Stamp string `json:"stamp,omitempty"`
}
