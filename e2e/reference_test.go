package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// The reference: docs/semantics.md says the runtime package is the reference for
// the update semantics and the CEL lowering must give its verdict on every
// update. Each update's expected verdict in the tables is first checked
// against the runtime, compiled from the same Go types in
// crd:immutability=extensions mode, so that a table entry cannot encode a
// verdict the semantics do not give.

// referenceCRD returns the extensions-mode CRD of k: the committed golden
// file for the test API, and for the example, generated now by the CLI of
// this checkout (the example commits only its CEL CRD).
func referenceCRD(t *testing.T, k *kind) []byte {
	t.Helper()
	if k.extensionsFile != "" {
		b, err := os.ReadFile(k.extensionsFile)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "tool", "immutable-gen", "crd:immutability=extensions", "paths=./...", "output:crd:dir="+dir)
	cmd.Dir = k.generateIn
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("(cd %s && %s): %v\n%s", k.generateIn, strings.Join(cmd.Args, " "), err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.Base(k.crdFile)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compileReference(t *testing.T, k *kind) *runtime.Checker {
	t.Helper()
	c, err := runtime.CompileCRD(referenceCRD(t, k), runtime.CRDOptions{})
	if err != nil {
		t.Fatalf("runtime.CompileCRD (%s): %v", k.name, err)
	}
	return c
}

// referenceVerdict checks the update of the object with spec old to the
// object with spec new (nil: no spec) with the runtime.
func referenceVerdict(c *runtime.Checker, old, new map[string]interface{}) field.ErrorList {
	wrap := func(spec map[string]interface{}) map[string]interface{} {
		o := map[string]interface{}{"metadata": map[string]interface{}{"name": "x"}}
		if spec != nil {
			o["spec"] = spec
		}
		return o
	}
	return c.ValidateUpdate(wrap(new), wrap(old))
}

// sameAsReference compares the runtime's errors with the causes a case
// wants from the server, and describes the difference ("" if none). The
// verdicts must be the same, and so must the violations, up to the
// granularity of CEL: one rule gives one error, so the server reports at
// the node that holds the rule what the runtime may report as several
// errors below it (spec.pinned for spec.pinned[0] and spec.pinned[1]: an
// atomic list's items cannot hold transition rules; spec.shards once for a
// key removed and a key added). So each runtime error must fall under a
// wanted cause of its type (same field, or below it), and each wanted cause
// must cover at least one runtime error.
func sameAsReference(errs field.ErrorList, want []cause) string {
	if (len(errs) == 0) != (want == nil) {
		return fmt.Sprintf("want %v, runtime says %v", want, errs)
	}
	covered := make([]bool, len(want))
	for _, e := range errs {
		found := false
		for i, w := range want {
			if string(w.Type) == string(e.Type) && (e.Field == w.Field || strings.HasPrefix(e.Field, w.Field+"[") || strings.HasPrefix(e.Field, w.Field+".")) {
				covered[i], found = true, true
			}
		}
		if !found {
			return fmt.Sprintf("the runtime reports %s %s: %s, which no wanted cause covers (want %v)", e.Type, e.Field, e.Detail, want)
		}
	}
	for i, c := range covered {
		if !c {
			return fmt.Sprintf("wanted cause %v matches no runtime error (runtime: %v)", want[i], errs)
		}
	}
	return ""
}
