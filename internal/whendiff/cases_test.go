package whendiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/when"
)

// TestEvalCases: the runtime's own evaluation cases
// (runtime/when/testdata/eval.json) on the API server: its verdict is
// each case's want, and Eval's; or it refuses the condition at generation
// where the case says so.
func TestEvalCases(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "runtime", "when", "testdata", "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Schema map[string]any `json:"schema"`
		Cases  []struct {
			Name, Expr, Want, Generation string
			Self, Old                    json.RawMessage
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	sb, _ := json.Marshal(file.Schema)
	var sp spec.Schema
	if err := json.Unmarshal(sb, &sp); err != nil {
		t.Fatal(err)
	}
	ws, err := when.FromOpenAPI(&sp)
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{v1: file.Schema}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			v, ss, refused := srv.compile(c.Expr)
			if c.Generation == "refused" {
				if refused == "" {
					t.Fatalf("the API server compiles %q; the case says generation refuses it", c.Expr)
				}
				return
			}
			if refused != "" {
				t.Fatalf("the API server refuses %q: %s", c.Expr, firstLine(refused))
			}
			var self, old map[string]any
			// Decoded as the API server decodes: int64 or float64.
			if err := utiljson.Unmarshal(c.Self, &self); err != nil {
				t.Fatal(err)
			}
			if err := utiljson.Unmarshal(c.Old, &old); err != nil {
				t.Fatal(err)
			}
			want, detail := srv.eval(v, ss, self, old)
			if string(want) != c.Want {
				t.Errorf("%s: the API server says %s (%s); the case says %s", c.Expr, want, detail, c.Want)
			}
			e, err := when.Parse(c.Expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := verdictOf(e.Eval(ws, self, old)); got != want {
				t.Errorf("%s: the API server says %s, Eval %s", c.Expr, want, got)
			}
		})
	}
}
