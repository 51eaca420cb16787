// Package v1 holds markers that do not parse: one of immutable-gen's
// (+immutable=true) and one of controller-tools' (a MaxLength that is not
// an integer). controller-tools records each error once per pass over the
// package's markers; the generators print each once, with its ID and fix.
// +kubebuilder:object:generate=true
// +groupName=parseerror.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WidgetSpec is the spec.
type WidgetSpec struct {
	// +immutable=true
	Name string `json:"name"`
	// +kubebuilder:validation:MaxLength=abc
	Other string `json:"other"`
}

// +kubebuilder:object:root=true

// Widget is a kind.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec WidgetSpec `json:"spec"`
}
