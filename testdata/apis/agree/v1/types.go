package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Item is a list map item.
type Item struct {
	// +kubebuilder:validation:MaxLength=16
	Name string `json:"name"`
	// +optional
	// +kubebuilder:validation:MaxLength=16
	Value string `json:"value,omitempty"`
}

// KeyedItem is a list map item whose key is immutable.
type KeyedItem struct {
	// +immutable
	// +kubebuilder:validation:MaxLength=16
	Name string `json:"name"`
}

// Level1 holds a list map directly.
type Level1 struct {
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	Items []Item `json:"items,omitempty"`
}

// Level2 holds a list map two struct levels below.
type Level2 struct {
	// +optional
	Inner *Level1 `json:"inner,omitempty"`
}

// Level3 holds a list map three struct levels below.
type Level3 struct {
	// +optional
	Inner *Level2 `json:"inner,omitempty"`
}

// Flat holds no list map at any depth: an atomic list and a set.
type Flat struct {
	// +optional
	// +kubebuilder:validation:MaxItems=4
	Atomic []Item `json:"atomic,omitempty"`
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=16
	Set []string `json:"set,omitempty"`
}

// FlatDeep holds no list map two levels below.
type FlatDeep struct {
	// +optional
	Inner *Flat `json:"inner,omitempty"`
}

// Ordered is fixed as a whole wherever it is used, in any order of the list
// map three levels below it.
// +immutable
// +immutable:ignoreOrder
type Ordered struct {
	// +optional
	Inner *Level2 `json:"inner,omitempty"`
}

// Later may be set once, wherever it is used.
// +immutable=once
type Later struct {
	// +optional
	// +kubebuilder:validation:MaxLength=16
	Value string `json:"value,omitempty"`
}

// DeepSpec holds the ignoreOrder cases one, two and three levels deep.
type DeepSpec struct {
	// +optional
	// +immutable
	// +immutable:ignoreOrder
	One *Level1 `json:"one,omitempty"`
	// +optional
	// +immutable
	// +immutable:ignoreOrder
	Two *Level2 `json:"two,omitempty"`
	// +optional
	// +immutable=once
	// +immutable:ignoreOrder
	Three *Level3 `json:"three,omitempty"`
	// +optional
	// +immutable
	// +immutable:ignoreOrder
	None *Flat `json:"none,omitempty"`
	// +optional
	// +immutable
	// +immutable:ignoreOrder
	NoneDeep *FlatDeep `json:"noneDeep,omitempty"`
}

// Deep is the ignoreOrder depth case.
// +kubebuilder:object:root=true
type Deep struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec DeepSpec `json:"spec"`
}

// ElementsSpec holds markers on list items, map values and sets.
type ElementsSpec struct {
	// The items of an atomic list, each fixed in any order of its list
	// map.
	// +optional
	// +kubebuilder:validation:MaxItems=4
	AtomicOrdered []Ordered `json:"atomicOrdered,omitempty"`
	// Map values, each fixed in any order of its list map.
	// +optional
	// +kubebuilder:validation:MaxProperties=4
	ValuesOrdered map[string]Ordered `json:"valuesOrdered,omitempty"`
	// =once on list items: refused.
	// +optional
	// +kubebuilder:validation:MaxItems=4
	AtomicLater []Later `json:"atomicLater,omitempty"`
	// =once on map values: refused.
	// +optional
	// +kubebuilder:validation:MaxProperties=4
	ValuesLater map[string]Later `json:"valuesLater,omitempty"`
	// =keys on an atomic list: refused.
	// +optional
	// +immutable=keys
	// +kubebuilder:validation:MaxItems=4
	AtomicKeys []Item `json:"atomicKeys,omitempty"`
	// =keys on a set: refused.
	// +optional
	// +listType=set
	// +immutable=keys
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=16
	SetKeys []string `json:"setKeys,omitempty"`
	// ignoreOrder on a set: refused, a set has no order.
	// +optional
	// +listType=set
	// +immutable
	// +immutable:ignoreOrder
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=16
	SetOrdered []string `json:"setOrdered,omitempty"`
	// =keys on a list map whose key is immutable: accepted.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +kubebuilder:validation:MaxItems=4
	Keyed []KeyedItem `json:"keyed,omitempty"`
	// =keys on a list map whose key is not immutable: refused.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	// +kubebuilder:validation:MaxItems=4
	KeyedLoose []Item `json:"keyedLoose,omitempty"`
	// =keys on a map: accepted.
	// +optional
	// +immutable=keys
	// +kubebuilder:validation:MaxProperties=4
	// +kubebuilder:validation:additionalProperties:MaxLength=16
	Labels map[string]string `json:"labels,omitempty"`
	// =keys on a struct: refused.
	// +optional
	// +immutable=keys
	Struct *Level1 `json:"struct,omitempty"`
}

// Elements is the list items, map values and sets case.
// +kubebuilder:object:root=true
type Elements struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec ElementsSpec `json:"spec"`
}

// NestedSpec holds markers inside immutable subtrees and =once on a
// required field.
type NestedSpec struct {
	// Fixed as a whole; the marker below it is redundant.
	// +optional
	// +immutable
	Whole *Wrapper `json:"whole,omitempty"`
	// =once on a required field is +immutable.
	// +required
	// +immutable=once
	// +kubebuilder:validation:MaxLength=16
	Set string `json:"set"`
}

// Wrapper has a marked field.
type Wrapper struct {
	// +optional
	// +immutable
	// +kubebuilder:validation:MaxLength=16
	Value string `json:"value,omitempty"`
}

// Nested is the redundant and once-required case.
// +kubebuilder:object:root=true
type Nested struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec NestedSpec `json:"spec"`
}
