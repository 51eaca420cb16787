// Package lintcorpus runs `immutable-gen lint` on the CRDs of real
// projects — Gateway API, Cluster API and its AWS provider, cert-manager,
// Karpenter and its AWS provider, Crossplane, external-snapshotter, KEDA,
// Kyverno, Argo CD, Prometheus Operator, CloudNativePG, JobSet, Kueue, LWS,
// KubeRay, Cluster API Azure, grafana-operator, the OpenStack resource
// controller, OpenShift's API, Knative Serving, Tekton Pipelines — at
// pinned releases (a pseudo-version for OpenShift's API), downloaded
// through the Go module proxy (`go mod download -json MODULE@VERSION`;
// nothing is copied into this repository), and compares every finding with
// testdata/PROJECT.txt (go test -update rewrites them). TestCorpusFixes
// applies lint's own fixes to every CRD with a hole and lints it again;
// TestCorpusFixesKeepTheAPIWorking applies every fix lint suggests and
// checks on the API server's validator (preflight) that creating an
// object, the first status write, fields set after creation and updates
// of mutable fields still succeed.
//
// TestEvolveHistory runs `immutable-gen lint --base OLD NEW` on
// consecutive releases of real projects (CloudNativePG, external-snapshotter,
// JobSet, Gateway API, Karpenter, KubeRay, Crossplane, LWS) and compares
// what it finds, with the witnesses, with testdata/evolve/NAME.txt;
// TestEvolveMutations removes the transition rules of Kueue's and
// CloudNativePG's CRDs one at a time (each must be found) and reorders and
// rewords them (nothing may be).
//
// It is a nested module so that the main module's go test ./... does not
// download a dozen third-party modules. Run it with make e2e-lintcorpus or
// (cd e2e/lintcorpus && go test ./...); BenchmarkCorpus measures lint of
// the whole corpus in one call, as `immutable-gen lint DIR...` does.
package lintcorpus
