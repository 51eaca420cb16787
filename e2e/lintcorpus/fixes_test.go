package lintcorpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/lint"
)

// holeIDs are the findings of holes whose fix adds a presence rule (or the
// rule another served version has).
var holeIDs = map[diag.ID]bool{lint.IDPresence: true, lint.IDOptionalAncestor: true, lint.IDOptionalObject: true, lint.IDVersionSkew: true}

// TestCorpusFixes applies lint's own fixes (the fix text, lint.ApplyFix) to
// every CRD of the corpus with a finding of a hole and lints it again: no
// hole whose fix applies is left, so no two-step bypass remains that lint
// knows how to close.
func TestCorpusFixes(t *testing.T) {
	dirs := downloadAll(t)
	fixed := 0
	for i, p := range corpus {
		t.Run(p.name, func(t *testing.T) {
			res, err := lint.Files(paths(p, dirs[i]))
			if err != nil {
				t.Fatal(err)
			}
			byFile := map[string][]diag.Diagnostic{}
			for _, f := range res.Findings {
				if holeIDs[f.ID] {
					byFile[f.Pos.Filename] = append(byFile[f.Pos.Filename], f)
				}
			}
			for file, findings := range byFile {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
				for {
					doc, err := r.Read()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					var obj map[string]any
					if sigsyaml.Unmarshal(doc, &obj) != nil || obj == nil {
						continue
					}
					md, _ := obj["metadata"].(map[string]any)
					name, _ := md["name"].(string)
					applied := 0
					for _, f := range findings {
						if f.CRD == name && lint.ApplyFix(obj, f) {
							applied++
						}
					}
					if applied == 0 {
						continue
					}
					fixed++
					b, err := json.Marshal(obj)
					if err != nil {
						t.Fatal(err)
					}
					after, err := lint.Manifest(file, b)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range after.Findings {
						if holeIDs[f.ID] && lint.ApplyFix(obj, f) {
							t.Errorf("after %d fixes: %s", applied, lint.Format(f))
						}
						if f.Severity == lint.Error {
							t.Errorf("after %d fixes, the API server refuses the CRD: %s", applied, lint.Format(f))
						}
					}
				}
			}
		})
	}
	t.Logf("%d CRDs fixed and linted again", fixed)
}
