package inuse

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Frame has an immutable field; BoxSpec uses it twice, once immutable as a
// whole.
type Frame struct {
	// +immutable
	Width int32 `json:"width"`
}

// Corner is the item of a set.
type Corner struct {
	// +immutable
	X int32 `json:"x"`
}

// Mark is set once, wherever it is used.
// +immutable=once
type Mark struct {
	Text string `json:"text"`
}

// Tree is a recursive list map whose key is mutable.
type Tree struct {
	Name string `json:"name"`

	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +optional
	Children []Tree `json:"children,omitempty"`
}

// Settings are keyed, which a struct is not.
// +immutable=keys
type Settings struct {
	Mode string `json:"mode"`
}

// BoxSpec uses the types above.
type BoxSpec struct {
	// +immutable
	Frame Frame `json:"frame"`

	// Spare uses Frame without a marker: Frame.Width is needed here.
	// +optional
	Spare *Frame `json:"spare,omitempty"`

	// +listType=set
	// +optional
	Corners []Corner `json:"corners,omitempty"`

	// +optional
	Marks []Mark `json:"marks,omitempty"`

	// +optional
	Tree *Tree `json:"tree,omitempty"`

	// +immutable
	// +optional
	Settings *Settings `json:"settings,omitempty"`

	// +immutable=keys
	// +optional
	Anything interface{} `json:"anything,omitempty"`
}

// Box is a kind.
type Box struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BoxSpec `json:"spec"`
}

// Crate is another kind that uses Mark and Frame.
type Crate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Marks map[string]Mark `json:"marks,omitempty"`

	// +immutable
	Frame Frame `json:"frame"`
}
