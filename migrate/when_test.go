package migrate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/migrate/proof"
)

// TestDifferentialCatchesWrongConditions: the conditions migrate writes
// are proven by the differential, not taken on trust. Written wrong —
// dropped (the marker holds always), negated, or never true — the worked
// example's conditional rules get new refusals or new acceptances, each
// at its field.
func TestDifferentialCatchesWrongConditions(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and compares the example's CRDs five times")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// only applies f to the condition that mentions s.
	only := func(s string, f func(string) string) func(string) string {
		return func(w string) string {
			if strings.Contains(w, s) {
				return f(w)
			}
			return w
		}
	}
	never := func(string) string { return "false" }
	for _, c := range []struct {
		name   string
		mutate func(string) string
		want   proof.Class
		// fields the differences of class want must name; none: any.
		fields []string
	}{
		{"dropped", func(string) string { return "" }, proof.NewRefusal, []string{"spec.size", "spec.nodeLabels", "spec.queue"}},
		{"negated", func(w string) string { return "!(" + w + ")" }, proof.NewAcceptance, nil},
		{"never size", only("spec.paused", never), proof.NewAcceptance, nil},
		{"never nodeLabels", only("spec.topology", never), proof.NewAcceptance, nil},
		{"never queue", only("Ready", never), proof.NewAcceptance, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func(f func(string) string) { mutateWhen = f }(mutateWhen)
			mutateWhen = func(w string) string {
				if w == "" {
					return ""
				}
				return c.mutate(w)
			}
			res, err := Run(Options{Dir: root, Paths: []string{"./testdata/apis/migrate/..."}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Proof.Count(c.want) == 0 {
				t.Fatalf("no %s with the conditions %s:\n%s", c.want, c.name, res.Report(root))
			}
			seen := map[string]bool{}
			for _, r := range res.Proof.CRDs {
				for _, d := range r.Differences {
					if d.Class == c.want {
						seen[d.Field] = true
					}
				}
			}
			for _, f := range c.fields {
				if !seen[f] {
					t.Errorf("conditions %s: no %s at %s:\n%s", c.name, c.want, f, res.Report(root))
				}
			}
		})
	}
}
