// Package v1 is a test API for immutable-gen's kube-openapi output: the real
// openapi-gen generates its definitions (testdata/apis/openapi/generated), and
// immutable-gen's openapi generator adds the immutability extensions
// (zz_generated.immutable_openapi.go).
//
// Definitions are keyed by Go path (openapi-gen's legacy naming), except for
// Source (+k8s:openapi-model-package on the type) and Port (a hand-written
// OpenAPIModelName method), which are keyed by their OpenAPI model names.
//
// +k8s:openapi-gen=true
// +groupName=openapi.example.com
package v1
