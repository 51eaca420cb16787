//go:build tools

package main

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
	_ "sigs.k8s.io/gateway-api/apis/v1"
	_ "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)
