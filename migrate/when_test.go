package migrate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/proofsize"
	"github.com/immutable-gen/immutable-gen/migrate/proof"
)

// TestDifferentialCatchesWrongConditions: the conditions migrate writes
// are proven by the differential, not taken on trust. Written wrong —
// dropped (the marker holds always), negated, or never true — the worked
// example's conditional rewrites get new refusals or new acceptances, each
// at its field, and are left as written with that reason; the others are
// written.
func TestDifferentialCatchesWrongConditions(t *testing.T) {
	proofsize.Long(t, "migrates the worked example five times, about 2,000 updates judged by the API server's validator each time")
	t.Parallel() // beside the other long proofs
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
	type wrongCase struct {
		name   string
		mutate func(string) string
		want   proof.Class
		// fields whose rules must be left with a difference of class
		// want; none: any.
		fields []string
	}
	for _, c := range []wrongCase{
		{"dropped", func(string) string { return "" }, proof.NewRefusal, []string{"spec.size", "spec.nodeLabels", "spec.queue"}},
		{"negated", func(w string) string { return "!(" + w + ")" }, proof.NewAcceptance, nil},
		{"never size", only("spec.paused", never), proof.NewAcceptance, []string{"spec.size"}},
		{"never nodeLabels", only("spec.topology", never), proof.NewAcceptance, []string{"spec.nodeLabels"}},
		{"never queue", only("Ready", never), proof.NewAcceptance, []string{"spec.queue"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each run writes in memory only
			res, err := Run(Options{Dir: root, Paths: []string{"./testdata/apis/migrate/..."}, Updates: 100, mutateWhen: c.mutate})
			if err != nil {
				t.Fatal(err)
			}
			report := res.Report(root)
			left := map[string]bool{}
			for _, r := range res.Rules {
				if _, at, ok := strings.Cut(r.Reason, "not proven ("+string(c.want)+" at "); ok && !r.Migrated() {
					left[strings.SplitN(at, ")", 2)[0]] = true
				}
			}
			if len(left) == 0 {
				t.Fatalf("no rule left for a %s with the conditions %s:\n%s", c.want, c.name, report)
			}
			for _, f := range c.fields {
				if !left[f] {
					t.Errorf("conditions %s: the rule of %s not left for a %s:\n%s", c.name, f, c.want, report)
				}
			}
			if !res.Proven() {
				t.Errorf("what is written is not proven:\n%s", report)
			}
			if _, migrated, _ := res.Counts(); migrated < 14 {
				t.Errorf("conditions %s: %d rules migrated; the unconditional ones must be written still:\n%s", c.name, migrated, report)
			}
		})
	}
}
