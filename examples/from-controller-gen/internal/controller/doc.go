/*
Copyright The Widget Authors.

Licensed under the Apache License, Version 2.0.
*/

// Package controller would hold the Widget controller. Its RBAC markers are
// what the manifests target turns into config/rbac/role.yaml.
//
// +kubebuilder:rbac:groups=shop.example.com,resources=widgets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=shop.example.com,resources=widgets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
package controller
