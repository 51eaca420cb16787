package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// TestHelpDiagnostics: `immutable-gen help diagnostics` lists every finding
// the tool can print, and docs/diagnostics.md describes each one.
func TestHelpDiagnostics(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help", "diagnostics"}, &stdout, &stderr); code != 0 || stderr.Len() > 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	golden.Check(t, filepath.Join(moduleRoot(t), filepath.Join("testdata", "golden", "help", "diagnostics.txt")), stdout.Bytes())
	doc, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "diagnostics.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks() {
		if !bytes.Contains(doc, []byte("| "+string(c.ID)+" |")) {
			t.Errorf("docs/diagnostics.md does not list %s", c.ID)
		}
	}
}
