package lintcorpus

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/immutable-gen/immutable-gen/lint"
)

// history is consecutive releases of one project, compared pairwise with
// `immutable-gen lint --base OLD NEW` (issue 35).
type history struct {
	name, module string
	versions     []string
	// dirs are the CRD directories, the same in every release compared.
	dirs []string
}

// histories are real projects' consecutive releases, downloaded through
// the Go module proxy as the corpus is. What they hold, found by the check
// and pinned in testdata/evolve/NAME.txt:
//   - CloudNativePG 1.26 dropped `self == oldSelf` from the Cluster's
//     spec.imageCatalogRef.major (major upgrades in place): IG070, with
//     the update that changes the major version as its witness;
//   - external-snapshotter v8.2 replaced the group snapshot contents'
//     only version v1alpha1 by v1beta1 (paired by storage version) and
//     dropped `self == oldSelf` from spec.volumeGroupSnapshotRef: IG070;
//   - JobSet 0.8 added immutable fields (coordinator…) that did not exist
//     in 0.5: new, so no finding; 0.8 → 0.10 changed no rule;
//   - Gateway API (standard and experimental channels), Karpenter,
//     KubeRay, Crossplane and LWS: releases whose CRDs changed but whose
//     immutability did not: no finding.
var histories = []history{
	{"cloudnative-pg", "github.com/cloudnative-pg/cloudnative-pg", []string{"v1.25.0", "v1.26.0"}, []string{"config/crd"}},
	{"external-snapshotter", "github.com/kubernetes-csi/external-snapshotter/client/v8", []string{"v8.0.0", "v8.2.0"}, []string{"config/crd"}},
	{"jobset", "sigs.k8s.io/jobset", []string{"v0.5.2", "v0.8.0", "v0.10.1"}, []string{"config/components/crd"}},
	{"gateway-api-standard", "sigs.k8s.io/gateway-api", []string{"v1.2.1", "v1.3.0"}, []string{"config/crd/standard"}},
	{"gateway-api-experimental", "sigs.k8s.io/gateway-api", []string{"v1.2.1", "v1.3.0"}, []string{"config/crd/experimental"}},
	{"karpenter", "sigs.k8s.io/karpenter", []string{"v1.5.5", "v1.6.0"}, []string{"pkg/apis/crds"}},
	{"kuberay", "github.com/ray-project/kuberay/ray-operator", []string{"v1.4.0", "v1.5.0"}, []string{"config/crd"}},
	{"crossplane", "github.com/crossplane/crossplane", []string{"v1.19.0", "v1.20.0"}, []string{"cluster/crds"}},
	{"lws", "sigs.k8s.io/lws", []string{"v0.6.2", "v0.7.0"}, []string{"config/crd"}},
}

// download returns the directory of each module@version, downloaded in
// parallel.
func download(t *testing.T, mvs []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs []string
	for _, mv := range mvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := exec.Command("go", "mod", "download", "-json", mv).Output()
			var info struct{ Dir, Error string }
			mu.Lock()
			defer mu.Unlock()
			if jerr := json.Unmarshal(b, &info); jerr != nil || info.Dir == "" {
				errs = append(errs, fmt.Sprintf("go mod download %s: %v %s", mv, err, info.Error))
				return
			}
			out[mv] = info.Dir
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(strings.Join(errs, "\n"))
	}
	return out
}

// evolveReport renders the comparisons of one history for its golden
// file: each pair's findings with their witnesses, paths relative to the
// modules.
func evolveReport(h history, dirs map[string]string, results []lint.EvolveResult) string {
	var b strings.Builder
	for i, res := range results {
		from, to := h.versions[i], h.versions[i+1]
		rel := strings.NewReplacer(dirs[h.module+"@"+from]+string(filepath.Separator), from+":", dirs[h.module+"@"+to]+string(filepath.Separator), to+":")
		fmt.Fprintf(&b, "# %s %s → %s: immutable-gen lint --base %s %s\n", h.name, from, to, strings.Join(h.dirs, " "), strings.Join(h.dirs, " "))
		for j, f := range res.Findings {
			f.Pos.Filename = rel.Replace(f.Pos.Filename)
			b.WriteString(lint.Format(f))
			b.WriteByte('\n')
			if w := res.Witnesses[j]; w != nil {
				old, _ := json.Marshal(w.Old["spec"])
				new, _ := json.Marshal(w.New["spec"])
				fmt.Fprintf(&b, "    witness %s: %s, refused by %s (%s)\n      old spec: %s\n      new spec: %s\n", w.Version, w.Update, w.RefusedBy, strings.Join(w.Errors, "; "), old, new)
			}
		}
		fmt.Fprintf(&b, "# %s\n", res.Summary())
	}
	return b.String()
}

// TestEvolveHistory runs the evolution check on consecutive releases of
// real projects and compares what it finds with testdata/evolve/NAME.txt
// (go test -update rewrites them). Every input must be usable, every
// weakening and strengthening must carry a witness, and no comparison may
// be left unproven (IG074): on these histories the check decides
// everything.
func TestEvolveHistory(t *testing.T) {
	var mvs []string
	for _, h := range histories {
		for _, v := range h.versions {
			mvs = append(mvs, h.module+"@"+v)
		}
	}
	dirs := download(t, mvs)
	for _, h := range histories {
		t.Run(h.name, func(t *testing.T) {
			var results []lint.EvolveResult
			for i := 0; i+1 < len(h.versions); i++ {
				at := func(v string) []string {
					var out []string
					for _, d := range h.dirs {
						out = append(out, filepath.Join(dirs[h.module+"@"+v], d))
					}
					return out
				}
				res, err := lint.Evolve(at(h.versions[i]), at(h.versions[i+1]))
				if err != nil {
					t.Fatalf("%s → %s: unusable input: %v", h.versions[i], h.versions[i+1], err)
				}
				if res.CRDs == 0 {
					t.Errorf("%s → %s: no CRD compared", h.versions[i], h.versions[i+1])
				}
				for j, f := range res.Findings {
					if f.ID == lint.IDUnproven {
						t.Errorf("unproven: %s", lint.Format(f))
					}
					if (f.ID == lint.IDWeakened || f.ID == lint.IDStrengthened) && res.Witnesses[j] == nil {
						t.Errorf("no witness: %s", lint.Format(f))
					}
				}
				results = append(results, res)
			}
			got := evolveReport(h, dirs, results)
			golden := filepath.Join("testdata", "evolve", h.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
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
}
