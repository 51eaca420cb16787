package lintcorpus

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/cputime"
	"github.com/immutable-gen/immutable-gen/lint"
)

var update = flag.Bool("update", false, "rewrite testdata/PROJECT.txt")

// project is one release of a project whose CRDs are linted: the module
// that holds them, at a pinned version, and the directories of CRDs in it,
// as a user would pass them to `immutable-gen lint`.
type project struct {
	name, module, version string
	dirs                  []string
}

var corpus = []project{
	{"gateway-api", "sigs.k8s.io/gateway-api", "v1.3.0", []string{"config/crd"}},
	// config/crd with its kustomize patches (webhook_in_*.yaml).
	{"cluster-api", "sigs.k8s.io/cluster-api", "v1.10.4", []string{"config/crd"}},
	// config/crd with webhook_in_* and cainjection_in_* patches, one of them
	// still apiextensions.k8s.io/v1beta1.
	{"cluster-api-provider-aws", "sigs.k8s.io/cluster-api-provider-aws/v2", "v2.8.4", []string{"config/crd"}},
	// The Helm chart's CRDs: templates in comments and in label values,
	// recognised as Helm templates and skipped (render them first).
	{"cert-manager", "github.com/cert-manager/cert-manager", "v1.18.2", []string{"deploy/crds"}},
	{"karpenter", "sigs.k8s.io/karpenter", "v1.6.0", []string{"pkg/apis/crds"}},
	{"karpenter-provider-aws", "github.com/aws/karpenter-provider-aws", "v1.3.3", []string{"pkg/apis/crds"}},
	{"crossplane", "github.com/crossplane/crossplane", "v1.20.0", []string{"cluster/crds"}},
	{"external-snapshotter", "github.com/kubernetes-csi/external-snapshotter/client/v8", "v8.2.0", []string{"config/crd"}},
	{"keda", "github.com/kedacore/keda/v2", "v2.17.2", []string{"config/crd"}},
	{"kyverno", "github.com/kyverno/kyverno", "v1.13.4", []string{"config/crds"}},
	{"argo-cd", "github.com/argoproj/argo-cd/v2", "v2.14.9", []string{"manifests/crds"}},
	{"prometheus-operator", "github.com/prometheus-operator/prometheus-operator", "v0.83.0", []string{"example/prometheus-operator-crd"}},
	// config/crd with webhook_in_* and cainjection_in_* patches.
	{"cloudnative-pg", "github.com/cloudnative-pg/cloudnative-pg", "v1.26.0", []string{"config/crd"}},
	// Issue 23's kinds. Embedded Pod and Job templates (JobSet, LWS,
	// Kueue's Workload, KubeRay); multi-version CRDs (Kueue: v1beta1 and
	// v1beta2 served); Helm charts (Kueue's and LWS's templates, skipped;
	// JobSet's crds/, linted); a multi-CRD file (CAPZ's ASO crds.yaml) and
	// kustomize patches (CAPZ).
	{"jobset", "sigs.k8s.io/jobset", "v0.10.1", []string{"config/components/crd", "charts/jobset/crds"}},
	{"kueue", "sigs.k8s.io/kueue", "v0.17.0", []string{"config/components/crd", "charts/kueue/templates"}},
	{"lws", "sigs.k8s.io/lws", "v0.7.0", []string{"config/crd", "charts/lws/templates"}},
	{"kuberay", "github.com/ray-project/kuberay/ray-operator", "v1.5.0", []string{"config/crd"}},
	{"cluster-api-provider-azure", "sigs.k8s.io/cluster-api-provider-azure", "v1.21.0", []string{"config/crd", "config/aso"}},
	// Issue 31's kinds. Grafana's booleans in sibling rules
	// (`!self.enabled || …`) and its config/crd kustomize patches.
	{"grafana-operator", "github.com/grafana/grafana-operator/v5", "v5.24.0", []string{"config/crd"}},
	// A controller with a discriminator: every kind's managementPolicy
	// (`self == oldSelf`, defaulted) decides whether `resource` or
	// `import` is present.
	{"openstack-resource-controller", "github.com/k-orc/openstack-resource-controller/v2", "v2.6.0", []string{"config/crd"}},
	// OpenShift's descriptions ("Once set, this field cannot be
	// changed."), rules on status, and a feature set's variant of a CRD
	// (Default): files of the API, as the cluster-version operator
	// applies them. Only +incompatible tags are listed: a pseudo-version.
	{"openshift-api", "github.com/openshift/api", "v0.0.0-20260213204242-d34f11c515b3", []string{
		"config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_dnses.crd.yaml",
		"config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_networks.crd.yaml",
		"config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml",
		"route/v1/zz_generated.crd-manifests/routes.crd.yaml",
		"operator/v1/zz_generated.crd-manifests/0000_50_storage_01_storages.crd.yaml",
		"operator/v1/zz_generated.crd-manifests/0000_70_network_01_networks.crd.yaml",
	}},
	{"knative-serving", "knative.dev/serving", "v0.51.0", []string{"config/core/300-resources"}},
	{"tekton-pipeline", "github.com/tektoncd/pipeline", "v1.15.0", []string{"config/300-crds"}},
}

// downloadAll downloads every project of the corpus, in parallel, and
// returns their directories in corpus order.
func downloadAll(t testing.TB) []string {
	t.Helper()
	dirs := make([]string, len(corpus))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []string
	for i, p := range corpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("go", "mod", "download", "-json", p.module+"@"+p.version)
			out, err := cmd.Output()
			var info struct{ Dir, Error string }
			if jerr := json.Unmarshal(out, &info); jerr != nil || info.Dir == "" {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("go mod download %s@%s: %v %s", p.module, p.version, err, info.Error))
				mu.Unlock()
				return
			}
			dirs[i] = info.Dir
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(strings.Join(errs, "\n"))
	}
	return dirs
}

// paths returns the CRD directories of project p, downloaded to dir.
func paths(p project, dir string) []string {
	var out []string
	for _, d := range p.dirs {
		out = append(out, filepath.Join(dir, d))
	}
	return out
}

// report renders a project's lint result with paths relative to the
// module, for the golden file: the findings, then the skipped documents,
// then counts per ID and severity.
func report(p project, dir string, res lint.Result) string {
	var b strings.Builder
	rel := func(s string) string { return strings.ReplaceAll(s, dir+string(filepath.Separator), "") }
	fmt.Fprintf(&b, "# %s %s@%s: immutable-gen lint %s\n", p.name, p.module, p.version, strings.Join(p.dirs, " "))
	ids := map[string]int{}
	for _, f := range res.Findings {
		f.Pos.Filename = rel(f.Pos.Filename)
		b.WriteString(lint.Format(f))
		b.WriteByte('\n')
		ids[string(f.ID)]++
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(&b, "skipped %s\n", rel(s))
	}
	for _, h := range res.Helm {
		fmt.Fprintf(&b, "skipped %s: a Helm template\n", rel(h))
	}
	fmt.Fprintf(&b, "# %d CRDs: %d error(s), %d warning(s), %d info; %d partial CRD(s) skipped", res.CRDs, res.Count(lint.Error), res.Count(lint.Warning)-res.Count(lint.Error), res.Count(lint.Info)-res.Count(lint.Warning), res.Partial)
	for _, c := range lint.Catalog() {
		if ids[string(c.ID)] > 0 {
			fmt.Fprintf(&b, "; %s %d", c.ID, ids[string(c.ID)])
		}
	}
	b.WriteString("\n")
	return b.String()
}

// TestCorpus lints every project's CRDs and compares the findings with
// testdata/PROJECT.txt. Every input must be usable (exit status 0 or 1,
// never 2), and partial CRDs (kustomize patches) must be skipped.
func TestCorpus(t *testing.T) {
	dirs := downloadAll(t)
	total := 0
	for i, p := range corpus {
		t.Run(p.name, func(t *testing.T) {
			res, err := lint.Files(paths(p, dirs[i]))
			if err != nil {
				t.Fatalf("unusable input: %v", err)
			}
			total += res.CRDs
			t.Logf("%d CRDs, %d findings, %d partial CRDs skipped", res.CRDs, len(res.Findings), res.Partial)
			got := report(p, dirs[i], res)
			golden := filepath.Join("testdata", p.name+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("findings differ from %s (go test -update rewrites it; read the diff):\n%s", golden, diff(string(want), got))
			}
		})
	}
	t.Logf("corpus: %d projects, %d CRDs", len(corpus), total)
}

// diff lists the lines only in want (-) and only in got (+).
func diff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// BenchmarkCorpus lints the whole corpus in one Files call, as
// `immutable-gen lint DIR...` does.
//
//	cd e2e/lintcorpus && go test -run '^$' -bench Corpus -benchtime 5x
func BenchmarkCorpus(b *testing.B) {
	dirs := downloadAll(b)
	var all []string
	for i, p := range corpus {
		all = append(all, paths(p, dirs[i])...)
	}
	// As the CLI does: collect garbage less often (cmd/immutable-gen/lint.go).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	crds := 0
	cpu0 := cputime.Process()
	for b.Loop() {
		res, err := lint.Files(all)
		if err != nil {
			b.Fatal(err)
		}
		crds = res.CRDs
	}
	// CPU time, all threads: on a shared machine it varies less than the
	// wall time.
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(crds), "CRDs")
}
