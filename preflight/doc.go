// Package preflight answers, with no cluster, whether a Kubernetes API
// server would accept the creation or update of custom resources.
//
// A Checker holds, per group and kind, what the server builds when it starts
// serving a CustomResourceDefinition: the structural schema of each version,
// and the server's custom-resource strategy
// (k8s.io/apiextensions-apiserver/pkg/registry/customresource), composed of
// the same parts the server's is — its OpenAPI schema validator, the
// embedded-object metadata and x-kubernetes-list-type checks, and its CEL
// validator (ratcheting and the per-request cost budget included) — without
// linking the server's generic registry. Check feeds it an
// object the way the server does: decoding (pruning of unknown fields, of
// nulls, metadata coercion, structural defaulting) and the generic
// registry's preparation of a create or update (namespace, status reset when
// the status subresource is enabled) before the strategy's Validate or
// ValidateUpdate. The errors are the server's, in its wording.
//
// When a CRD carries the x-kubernetes-immutable extensions, which an API
// server does not enforce itself, Check also applies the runtime package's
// checker to an update that the strategy allows, as the ImmutableFields
// admission plugin or webhook would after the server's validation.
//
// Load and Pair read GitOps input: files of several YAML or JSON documents,
// and directories of them, with objects paired by apiVersion, kind,
// namespace and name.
package preflight
