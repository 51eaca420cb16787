package lintcorpus

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/diag"
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

// mutation is a revision of a real CRD made by one edit.
type mutation struct {
	name string // what was edited
	crd  map[string]any
}

// eachRuleRemoved returns the CRD without each of its transition rules
// (a rule reading oldSelf), one at a time, at most max.
func eachRuleRemoved(crd map[string]any, max int) []mutation {
	var out []mutation
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			if rules, ok := x["x-kubernetes-validations"].([]any); ok {
				for i, r := range rules {
					rule, _ := r.(map[string]any)["rule"].(string)
					if !strings.Contains(rule, "oldSelf") || len(out) >= max {
						continue
					}
					x["x-kubernetes-validations"] = append(append([]any{}, rules[:i]...), rules[i+1:]...)
					b, _ := json.Marshal(crd)
					x["x-kubernetes-validations"] = rules
					var m map[string]any
					json.Unmarshal(b, &m)
					out = append(out, mutation{at + ": " + rule, m})
				}
			}
			for _, k := range sortedKeys(x) {
				walk(x[k], at+"/"+k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(crd, "")
	return out
}

// reworded is the CRD with every node's rules in reverse order and every
// message changed: the same verdicts.
func reworded(crd map[string]any) map[string]any {
	b, _ := json.Marshal(crd)
	var out map[string]any
	json.Unmarshal(b, &out)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if rules, ok := x["x-kubernetes-validations"].([]any); ok {
				slices.Reverse(rules)
				for _, r := range rules {
					if m, ok := r.(map[string]any); ok {
						m["message"] = fmt.Sprintf("reworded: %v", m["message"])
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(out)
	return out
}

// TestEvolveMutations edits real CRDs and runs the check on each edit:
// every transition rule of Kueue's and CloudNativePG's CRDs removed in
// turn is found — a weakening proved with a witness, or unproven (IG074),
// never nothing — and every CRD of the histories with its rules reordered
// and reworded gives no finding. The unproven ones are pinned in
// testdata/evolve/mutations.txt.
func TestEvolveMutations(t *testing.T) {
	dirs := download(t, []string{"sigs.k8s.io/kueue@v0.17.0", "github.com/cloudnative-pg/cloudnative-pg@v1.26.0"})
	var files []string
	for _, d := range []string{"sigs.k8s.io/kueue@v0.17.0/config/components/crd/bases", "github.com/cloudnative-pg/cloudnative-pg@v1.26.0/config/crd/bases"} {
		mv, sub, _ := strings.Cut(d, "/config/")
		m, _ := filepath.Glob(filepath.Join(dirs[mv], "config", sub, "*.yaml"))
		files = append(files, m...)
	}
	var report strings.Builder
	proved, unproven := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd map[string]any
		if err := sigsyaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		for _, m := range eachRuleRemoved(crd, 8) {
			res := evolveJSON(t, f, m.crd)
			found := false
			for i, x := range res.Findings {
				switch x.ID {
				case lint.IDWeakened:
					found = true
					if res.Witnesses[i] == nil {
						t.Errorf("%s %s: IG070 without a witness", name, m.name)
					}
				case lint.IDUnproven:
					found = true
				}
			}
			switch {
			case !found:
				t.Errorf("%s without %s: no finding", name, m.name)
			case slices.ContainsFunc(res.Findings, func(x diag.Diagnostic) bool { return x.ID == lint.IDUnproven }):
				unproven++
				fmt.Fprintf(&report, "%s without %s: unproven\n", name, m.name)
			default:
				proved++
			}
		}
		if res := evolveJSON(t, f, reworded(crd)); len(res.Findings) != 0 {
			t.Errorf("%s reordered and reworded: %d findings, the first %s", name, len(res.Findings), lint.Format(res.Findings[0]))
		}
	}
	fmt.Fprintf(&report, "# %d rules removed: %d proved weakened, %d unproven\n", proved+unproven, proved, unproven)
	golden := filepath.Join("testdata", "evolve", "mutations.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if report.String() != string(want) {
		t.Errorf("differs from %s (go test -update rewrites it; read the diff):\n%s", golden, diff(string(want), report.String()))
	}
}

// evolveJSON compares the CRD file base with the revision crd, written
// as JSON beside the test.
func evolveJSON(t *testing.T, base string, crd map[string]any) lint.EvolveResult {
	t.Helper()
	b, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(t.TempDir(), "new.json")
	if err := os.WriteFile(next, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := lint.Evolve([]string{base}, []string{next})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
