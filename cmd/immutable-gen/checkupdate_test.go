package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// TestCheckUpdate runs check-update on the fixtures of
// testdata/check-update and compares exit status, standard output and
// standard error with testdata/golden/check-update/NAME.golden (checkGolden,
// golden_test.go). Run "go test ./cmd/immutable-gen -run CheckUpdate -update"
// to rewrite them. File names in args are relative to testdata/check-update;
// the golden files show them so.
func TestCheckUpdate(t *testing.T) {
	const fixtures = "../../testdata/check-update/"
	cases := []struct {
		name string
		args string
		exit int
	}{
		// The immutability extensions (widgets-crd.yaml), through the runtime.
		{"allowed", "--schema widgets-crd.yaml --old old.yaml --new new-allowed.yaml", 0},
		{"unchanged", "--schema widgets-crd.yaml --old old.yaml --new old.yaml", 0},
		{"rejected", "--schema widgets-crd.yaml --old old.yaml --new new-rejected.yaml", 1},
		{"rejected-reverse", "--schema widgets-crd.yaml --old new-rejected.yaml --new old.yaml", 1},
		{"json-objects", "--schema widgets-crd.yaml --old old.json --new new.json", 1},
		{"version-from-apiversion", "--schema widgets-crd.yaml --old old-v1alpha1.yaml --new new-v1alpha1.yaml", 1},
		{"version-flag", "--schema widgets-crd.yaml --version v1 --old old-v1alpha1.yaml --new new-v1alpha1.yaml", 1},
		{"no-apiversion-uses-storage-version", "--schema widgets-crd.yaml --old partial-old.yaml --new partial-new.yaml", 1},
		{"no-such-version", "--schema widgets-crd.yaml --version v9 --old old.yaml --new old.yaml", 2},
		{"crd-chosen-by-kind", "--schema gadgets-and-widgets-crd.json --old gadget.yaml --new gadget-new.yaml", 1},
		{"two-objects-are-creates", "--schema widgets-crd.yaml --new two-objects.yaml", 0},
		{"kind-changed-is-delete-and-create", "--schema gadgets-and-widgets-crd.json --old old.yaml --new gadget.yaml", 0},
		// The default CEL CRD of the example: the API server's whole verdict.
		{"cel-engine-changed", "--schema ../../examples/config/crd/bases/cache.example.com_cacheclusters.yaml --old cel/old/prod.yaml --new cel/engine-changed.yaml", 1},
		{"cel-directories", "--schema ../../examples/config/crd/bases --old cel/old --new cel/new", 1},
		{"cel-directories-json", "--schema ../../examples/config/crd/bases --old cel/old --new cel/new -o json", 1},
		{"cel-creates", "--schema ../../examples/config/crd/bases --new cel/old", 0},
		{"cel-unknown-kind", "--schema ../../examples/config/crd/bases --old cel/old/prod.yaml --new old.yaml", 2},
		{"cel-unknown-kind-allowed", "--schema ../../examples/config/crd/bases --old cel/old/prod.yaml --new old.yaml --allow-unknown-kinds", 0},
		// Unusable input.
		{"object-version-not-in-crd", "--schema widgets-crd.yaml --old old.yaml --new new-v2.yaml", 2},
		{"no-crd-for-kind", "--schema widgets-crd.yaml --old gadget.yaml --new gadget-new.yaml", 2},
		{"no-apiversion-in-unknown-kind", "--schema widgets-crd.yaml --old gadget-no-apiversion.yaml --new gadget-no-apiversion.yaml", 2},
		{"bad-extension", "--schema bad-extension-crd.yaml --old old.yaml --new old.yaml", 2},
		{"bad-yaml", "--schema widgets-crd.yaml --old old.yaml --new bad.yaml", 2},
		{"duplicate-object", "--schema widgets-crd.yaml --old old.yaml --new duplicate.yaml", 2},
		{"missing-file", "--schema widgets-crd.yaml --old old.yaml --new missing.yaml", 2},
		{"schema-is-not-a-crd", "--schema old.yaml --old old.yaml --new old.yaml", 2},
		{"missing-flags", "--schema widgets-crd.yaml", 2},
		{"unknown-flag", "--schema widgets-crd.yaml --old old.yaml --new old.yaml --strict", 2},
		{"bad-format", "--schema widgets-crd.yaml --new old.yaml -o yaml", 2},
		// +immutable=once with +immutable:message, as CEL rules and as the
		// project extension: the same verdicts (set later: allowed; changed
		// or removed once set: rejected).
		{"once-cel", "--schema ../golden/crd/once --old once/old --new once/new", 1},
		{"once-extensions", "--schema ../golden/crd/once-extensions --old once/old --new once/new", 1},
		// +immutable:ignoreOrder, as CEL rules and as the project
		// extension: the same verdicts (reordered list maps: allowed; an
		// item changed, added or removed: rejected).
		{"ignoreorder-cel", "--schema ../golden/crd/ignoreorder --old ignoreorder/old --new ignoreorder/new", 1},
		{"ignoreorder-extensions", "--schema ../golden/crd/ignoreorder-extensions --old ignoreorder/old --new ignoreorder/new", 1},
		// validation-gen's +k8s:update and +k8s:eachVal tags, as CEL rules
		// and as extensions: the same verdicts (Kueue: clusterName cleared
		// on eviction and set again is allowed, changed is not).
		{"upstream-cel", "--schema ../golden/crd/upstream --old upstream/old --new upstream/new", 1},
		{"upstream-extensions", "--schema ../golden/crd/upstream-extensions --old upstream/old --new upstream/new", 1},
		// Its status fields are written through /status (the CRD has the
		// subresource; through the resource the status changes above are
		// dropped, as the notes say): clusterName cleared on eviction and
		// set again is allowed, changed is not, with the spec changes
		// dropped.
		{"upstream-cel-status", "--schema ../golden/crd/upstream --old upstream/old --new upstream/new --subresource=status", 1},
		{"upstream-extensions-status", "--schema ../golden/crd/upstream-extensions --old upstream/old --new upstream/new --subresource=status", 1},
		// +immutable:when: the condition on the old object, evaluated by the
		// API server's validator in both outputs (the extensions output
		// carries conditional markers as CEL rules too).
		{"when-cel", "--schema ../golden/crd/when --old when/old --new when/new", 1},
		{"when-extensions", "--schema ../golden/crd/when-extensions --old when/old --new when/new", 1},
		// The status subresource: an update of the resource keeps the
		// stored status (said on standard error); --subresource=status
		// checks the update through /status, as the status strategy does.
		{"status-dropped-on-update", "--schema status/crd.yaml --old status/old.yaml --new status/new-status-changed.yaml", 0},
		{"status-subresource-rejected", "--schema status/crd.yaml --old status/old.yaml --new status/new-status-changed.yaml --subresource=status", 1},
		{"status-subresource-spec-dropped", "--schema status/crd.yaml --old status/old.yaml --new status/new-status-ok.yaml --subresource=status", 0},
		{"status-subresource-needs-old", "--schema status/crd.yaml --new status/old.yaml --subresource=status", 2},
		{"status-subresource-unknown", "--schema status/crd.yaml --old status/old.yaml --new status/old.yaml --subresource=scale", 2},
		{"help", "--help", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"check-update"}
			fields := strings.Fields(tc.args)
			for i, a := range fields {
				if i > 0 && (fields[i-1] == "--schema" || fields[i-1] == "--old" || fields[i-1] == "--new") {
					a = fixtures + a
				}
				args = append(args, a)
			}
			var stdout, stderr bytes.Buffer
			exit := run(args, &stdout, &stderr)
			if exit != tc.exit {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", exit, tc.exit, &stdout, &stderr)
			}
			got := fmt.Sprintf("$ immutable-gen check-update %s\nexit status %d\n-- stdout --\n%s-- stderr --\n%s", tc.args, exit, &stdout, &stderr)
			golden.Check(t, filepath.Join(moduleRoot(t), "testdata/golden/check-update/"+tc.name+".golden"), []byte(strings.ReplaceAll(got, fixtures, "")))
		})
	}
}
