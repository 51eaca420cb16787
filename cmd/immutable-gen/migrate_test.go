package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/internal/proofsize"
)

// TestMigrateGolden runs `immutable-gen migrate --diff` on the worked
// example (testdata/apis/migrate) and compares the diff and the report
// with testdata/golden/migrate; the sources are left as they are. It runs
// the command's default, 1000 random updates per CRD version. A long
// proof: `make golden` rewrites its golden files.
func TestMigrateGolden(t *testing.T) {
	proofsize.Long(t, "migrates the worked example, about 3,000 updates judged by the API server's validator")
	types := filepath.Join(moduleRoot(t), "testdata", "apis", "migrate", "v1", "types.go")
	before, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	report := "testdata/golden/migrate/report.txt"
	code := run([]string{"migrate", "paths=../../testdata/apis/migrate/...", "--diff"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	golden.Check(t, filepath.Join(moduleRoot(t), "testdata/golden/migrate/diff.txt"), bytes.ReplaceAll(stdout.Bytes(), []byte("../../testdata/"), []byte("testdata/")))
	golden.Check(t, filepath.Join(moduleRoot(t), report), bytes.ReplaceAll(stderr.Bytes(), []byte("../../testdata/"), []byte("testdata/")))
	after, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("--diff wrote the sources")
	}
}

// TestMigrateWrites migrates a copy of the example in place and checks
// that the result is what --diff showed, and that a second run finds
// nothing left to migrate but the rules it leaves.
func TestMigrateWrites(t *testing.T) {
	proofsize.Long(t, "migrates the worked example twice")
	root := moduleRoot(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(root, "testdata", "apis", "migrate", "v1", "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "testdata", "apis", "migrate", "v1", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod = bytes.Replace(mod, []byte("=> ./runtime"), []byte("=> "+filepath.Join(root, "runtime")), 1)
	for name, data := range map[string][]byte{"go.mod": mod, "go.sum": sum, "api/v1/types.go": src, "api/v1/doc.go": doc} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	updates := "--updates=200"
	var stdout, stderr bytes.Buffer
	if code := run([]string{"migrate", "paths=./api/...", updates}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "api", "v1", "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, src) {
		t.Fatal("nothing was written")
	}
	stderr.Reset()
	if code := run([]string{"migrate", "paths=./api/...", updates}, &stdout, &stderr); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr.String())
	}
	if !bytes.Contains(stderr.Bytes(), []byte(": 0 migrated,")) {
		t.Errorf("second run migrated more:\n%s", stderr.String())
	}
	again, _ := os.ReadFile(filepath.Join(dir, "api", "v1", "types.go"))
	if !bytes.Equal(again, got) {
		t.Error("second run changed the sources")
	}
}
