/*
Copyright The Widget Authors.

Licensed under the Apache License, Version 2.0.
*/

// Package webhook would hold the Widget validating webhook. Its marker is
// what the manifests target turns into config/webhook/manifests.yaml.
//
// +kubebuilder:webhook:path=/validate-shop-example-com-v1-widget,mutating=false,failurePolicy=fail,sideEffects=None,groups=shop.example.com,resources=widgets,verbs=create;update,versions=v1,name=vwidget-v1.kb.io,admissionReviewVersions=v1
package webhook
