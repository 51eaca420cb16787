package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// URL is a URI: its format does not bound its length.
// +kubebuilder:validation:Format=uri
type URL string

// Timestamp is a date-time: its format bounds its length.
// +kubebuilder:validation:Format=date-time
type Timestamp string

// LinkSpec is the desired state.
type LinkSpec struct {
	// Endpoints keep their keys: comparing the key sets costs what their
	// number times their keys' length costs, and neither is bounded.
	// +listType=map
	// +listMapKey=url
	// +immutable=keys
	// +optional
	Endpoints []Endpoint `json:"endpoints,omitempty"`

	// Events keep their keys: comparing the key sets costs what their
	// number costs (each key is at most a date-time long).
	// +listType=map
	// +listMapKey=time
	// +immutable=keys
	// +optional
	Events []Event `json:"events,omitempty"`
}

// Endpoint is keyed by its URL.
type Endpoint struct {
	// +immutable
	URL    URL   `json:"url"`
	Weight int32 `json:"weight,omitempty"`
}

// Event is keyed by its time.
type Event struct {
	// +immutable
	Time Timestamp `json:"time"`
	Note string    `json:"note,omitempty"`
}

// +kubebuilder:object:root=true

// Link is a test kind.
type Link struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec LinkSpec `json:"spec"`
}
