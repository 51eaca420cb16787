/*
Copyright The Widget Authors.

Licensed under the Apache License, Version 2.0.
*/

// Package v1 is the shop.example.com/v1 API of a kubebuilder-style project
// that switched from controller-gen to immutable-gen. It has no
// immutability markers, so its generated code and manifests stayed byte for
// byte the same.
//
// +kubebuilder:object:generate=true
// +groupName=shop.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of this API.
	GroupVersion = schema.GroupVersion{Group: "shop.example.com", Version: "v1"}

	// SchemeBuilder registers this API's types.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds this API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
