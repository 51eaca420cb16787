package migrate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/proofsize"
	"github.com/immutable-gen/immutable-gen/migrate"
	"github.com/immutable-gen/immutable-gen/migrate/proof"
)

// TestExample migrates the worked example (testdata/apis/migrate) in
// memory: every shape is migrated or left as its doc comment says, the
// differential finds closed holes only, and every difference it finds is
// found by a targeted update (none by the random ones only).
func TestExample(t *testing.T) {
	proofsize.Long(t, "migrates the worked example twice, about 2,000 updates judged by the API server's validator each time")
	t.Parallel() // beside the other long proofs (TestShapes)
	root, _ := filepath.Abs("..")
	for _, k8s := range []string{migrate.K8sImmutableKeep, migrate.K8sImmutableMarker} {
		t.Run(k8s, func(t *testing.T) {
			res, err := migrate.Run(migrate.Options{Dir: root, Paths: []string{"./testdata/apis/migrate/..."}, K8sImmutable: k8s, Updates: 300})
			if err != nil {
				t.Fatal(err)
			}
			found, migrated, left := res.Counts()
			want := [3]int{26, 18, 8}
			if k8s == migrate.K8sImmutableMarker {
				want = [3]int{26, 19, 7}
			}
			if [3]int{found, migrated, left} != want {
				t.Errorf("found %d, migrated %d, left %d; want %v\n%s", found, migrated, left, want, res.Report(root))
			}
			if !res.Proven() || res.Proof.Count(proof.ClosesHole) == 0 {
				t.Errorf("not proven, or no hole closed:\n%s", res.Report(root))
			}
			for _, d := range append(res.Missing, res.Proof.Missing()...) {
				t.Errorf("a targeted case missing: %s at %s: old %v, new %v", d.Class, d.Field, d.Old, d.New)
			}
			for _, r := range res.Rules {
				if !r.Migrated() && r.Reason == "" {
					t.Errorf("%s: left without a reason", r.Pos)
				}
			}
			if k8s == migrate.K8sImmutableMarker && !strings.Contains(res.Diff, "-\t// +k8s:immutable\n+\t// +immutable\n") {
				t.Errorf("+k8s:immutable not turned into +immutable:\n%s", res.Diff)
			}
		})
	}
}
