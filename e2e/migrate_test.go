package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/migrate"
	"github.com/immutable-gen/immutable-gen/migrate/proof"
)

// migrateCase is a real API, fetched through the module proxy at a pinned
// release and migrated in a temporary copy (never committed): the counts
// of rules found, migrated and left are pinned, and the differential must
// prove the rewrite.
type migrateCase struct {
	module string   // module@version
	dirs   []string // the directories copied: the API's, and what it imports
	paths  string
	// found, migrated, left: the pinned counts.
	found, migrated, left int
	// minUpdates is the fewest updates the differential must run per
	// CRD version (default 1,000): fewer where the CRD's own rules accept
	// few random objects on creation.
	minUpdates int
}

var migrateCases = []migrateCase{
	{module: "sigs.k8s.io/jobset@v0.10.1", dirs: []string{"api/jobset"}, paths: "./api/jobset/v1alpha2/...", found: 5, migrated: 5, left: 0},
	{module: "sigs.k8s.io/kueue@v0.17.0", dirs: []string{"apis", "pkg"}, paths: "./apis/kueue/...", found: 24, migrated: 14, left: 10},
	// NodeClassReference is shared by a NodePool's template and a
	// NodeClaim's spec, which is fixed whole: its group and kind rules
	// migrate onto the type.
	// A NodePool's many creation rules accept about one random object in
	// ten: 307 updates (60 targeted) there.
	{module: "sigs.k8s.io/karpenter@v1.6.0", dirs: []string{"pkg/apis"}, paths: "./pkg/apis/v1/...", found: 3, migrated: 3, left: 0, minUpdates: 300},
}

// TestMigrateRealAPIs runs `immutable-gen migrate` on copies of real APIs
// with hand-written immutability rules, as a new user would.
func TestMigrateRealAPIs(t *testing.T) {
	t.Parallel() // after the tests that serve an API server or set variables, beside the other long ones
	if testing.Short() {
		t.Skip("fetches modules and runs 1,000 updates per CRD")
	}
	for _, c := range migrateCases {
		t.Run(c.module, func(t *testing.T) {
			t.Parallel() // each migrates its own copy
			dir := copyModule(t, moduleDir(t, c.module), c.dirs...)
			res, err := migrate.Run(migrate.Options{Dir: dir, Paths: []string{c.paths}})
			if err != nil {
				t.Fatal(err)
			}
			report := res.Report(dir)
			t.Logf("%s:\n%s\n%s", c.module, res.Diff, report)
			found, migrated, left := res.Counts()
			if found != c.found || migrated != c.migrated || left != c.left {
				t.Errorf("found %d, migrated %d, left %d; pinned %d, %d, %d", found, migrated, left, c.found, c.migrated, c.left)
			}
			if !res.Proven() {
				t.Errorf("not proven: %d new refusals, %d new acceptances", res.Proof.Count(proof.NewRefusal), res.Proof.Count(proof.NewAcceptance))
			}
			min := c.minUpdates
			if min == 0 {
				min = 1000
			}
			for _, r := range res.Proof.CRDs {
				if r.Updates < min {
					t.Errorf("%s %s: %d updates", r.CRD, r.Version, r.Updates)
				}
				// A conditional field is compared on both sides of its
				// condition.
				if r.Conditional > 0 && (r.Held == 0 || r.Held == r.Conditional) {
					t.Errorf("%s %s: the condition held on %d of %d updates of conditional fields", r.CRD, r.Version, r.Held, r.Conditional)
				}
			}
		})
	}
}

// copyModule copies a module's go.mod, go.sum and the Go files of dirs
// into a temporary directory, writable.
func copyModule(t *testing.T, src string, dirs ...string) string {
	t.Helper()
	dst := t.TempDir()
	copyFile := func(rel string) {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("go.mod")
	copyFile("go.sum")
	for _, api := range dirs {
		err := filepath.WalkDir(filepath.Join(src, api), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err == nil {
				copyFile(rel)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
