package migrate

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/proofsize"
)

// TestSeeds: the targeted updates decide what is written, so every --seed
// writes the same rewrites. A list map under `self == oldSelf` (JobSet's
// dependsOn) becomes +immutable with +immutable:ignoreOrder: CEL compares
// list maps by key. A rewrite the differential refutes (the same list map
// planned without ignoreOrder, which refuses a reorder the rule allows) is
// left as written with the reason, with every seed, and the others are
// written. No difference is found by a random update only.
func TestSeeds(t *testing.T) {
	proofsize.Long(t, "migrates one API twelve times")
	t.Parallel() // beside the other long proofs (TestShapes)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Replace(planFields, "\t// +listType=map\n\t// +listMapKey=name\n", "\t// +listType=map\n\t// +listMapKey=name\n\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\",message=\"items are immutable\"\n", 1)
	fields = strings.Replace(fields, "\tRef *Ref ", "\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n\tRef *Ref ", 1)
	c := planCase{name: "seeds", fields: fields, specRules: []string{
		`+kubebuilder:validation:XValidation:rule="!has(oldSelf.x) || self.x == oldSelf.x"`,
		`+kubebuilder:validation:XValidation:rule="(has(oldSelf.paused) && oldSelf.paused) || self.size == oldSelf.size"`,
		`+kubebuilder:validation:XValidation:rule="has(self.ref) == has(oldSelf.ref)"`,
	}}
	o := planModule(t, root, c)
	o.Updates = 150
	noIgnoreOrder := func(d *decision) { d.ignoreOrder = false }
	for _, m := range []struct {
		name   string
		mutate func(*decision)
		want   []string
	}{
		{"as planned", nil, []string{
			"+immutable=once on ThingSpec.X",
			`+immutable on ThingSpec.Size (+immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)")`,
			"+immutable on ThingSpec.Ref",
			"+immutable on ThingSpec.Items (+immutable:ignoreOrder) (+immutable:message)",
			"+immutable on ThingSpec.Ref",
		}},
		{"without ignoreOrder", noIgnoreOrder, []string{
			"+immutable=once on ThingSpec.X",
			`+immutable on ThingSpec.Size (+immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)")`,
			"+immutable on ThingSpec.Ref",
			"left: not proven (new refusal at spec.items): the marker would refuse an update the rule allows that changes no field the rule calls immutable, on the update reorder in spec.items",
			"+immutable on ThingSpec.Ref",
		}},
	} {
		t.Run(m.name, func(t *testing.T) {
			var first string
			for _, seed := range []uint64{1, 2, 3, 4, 5, 6} {
				o.Seed, o.mutate = seed, m.mutate
				res, err := Run(o)
				if err != nil {
					t.Fatal(err)
				}
				report := res.Report(root)
				var got []string
				for _, r := range res.Rules {
					if r.Migrated() {
						got = append(got, r.To)
					} else {
						got = append(got, "left: "+r.Reason)
					}
				}
				if len(got) != len(m.want) {
					t.Fatalf("seed %d: %d rules, want %d:\n%s", seed, len(got), len(m.want), report)
				}
				for i := range got {
					if !strings.Contains(got[i], m.want[i]) {
						t.Errorf("seed %d, rule %d:\n got %s\nwant %s", seed, i, got[i], m.want[i])
					}
				}
				if !res.Proven() {
					t.Errorf("seed %d: not proven:\n%s", seed, report)
				}
				for _, d := range append(res.Missing, res.Proof.Missing()...) {
					t.Errorf("seed %d: a targeted case missing: %s at %s, old %s, new %s", seed, d.Class, d.Field, js(d.Old), js(d.New))
				}
				written := fmt.Sprint(got) + res.Diff
				if seed == 1 {
					first = written
				} else if written != first {
					t.Errorf("seed %d writes other rewrites than seed 1:\n%s\n---\n%s", seed, written, first)
				}
				if t.Failed() || (seed == 1 && testing.Verbose()) {
					t.Logf("seed %d:\n%s\n%s", seed, res.Diff, report)
					return
				}
			}
		})
	}
}

// TestAcceptRefusals: with AcceptRefusals (--accept-refusals), a rewrite
// whose only differences are new refusals is kept, reported NOT PROVEN
// with their count, and the result is not proven (exit 1).
func TestAcceptRefusals(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Replace(planFields, "\t// +listType=map\n\t// +listMapKey=name\n", "\t// +listType=map\n\t// +listMapKey=name\n\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n", 1)
	o := planModule(t, root, planCase{fields: fields})
	o.Updates, o.AcceptRefusals = 100, true
	o.mutate = func(d *decision) { d.ignoreOrder = false }
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	report := res.Report(root)
	if len(res.Rules) != 1 || !res.Rules[0].Migrated() || res.Rules[0].Refusals == 0 || res.Rules[0].Exact {
		t.Fatalf("the rewrite with new refusals not kept as such:\n%s", report)
	}
	if res.Proven() || !strings.Contains(report, "NOT PROVEN: refuses") {
		t.Errorf("reported proven:\n%s", report)
	}
}

// TestRefusedMarkerLeft: a marker the markers package refuses while the
// CRDs are generated (here +k8s:update=NoModify forced onto a list map,
// which validation-gen refuses there) leaves its rule as written with the
// error as the reason; the other rewrites are written.
func TestRefusedMarkerLeft(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Replace(planFields, "\t// +listType=map\n\t// +listMapKey=name\n", "\t// +listType=map\n\t// +listMapKey=name\n\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n", 1)
	o := planModule(t, root, planCase{fields: fields, specRules: []string{`+kubebuilder:validation:XValidation:rule="self.size == oldSelf.size"`}})
	o.Updates = 100
	o.mutate = func(d *decision) {
		if d.target.String() == "ThingSpec.Items" {
			d.form, d.ignoreOrder = "NoModify", false
		}
	}
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	report := res.Report(root)
	if len(res.Rules) != 2 || !res.Rules[0].Migrated() || res.Rules[1].Migrated() ||
		!strings.Contains(res.Rules[1].Reason, "the marker it would become is refused: +k8s:update=NoModify on field ThingSpec.Items: validation-gen refuses NoModify on a list or map field") {
		t.Errorf("want the size rule migrated and the items rule left with the marker's error:\n%s", report)
	}
	if !res.Proven() {
		t.Errorf("not proven:\n%s", report)
	}
}
