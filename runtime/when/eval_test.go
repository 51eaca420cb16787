package when

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// evalCases is testdata/eval.json: the schema and the cases of TestEval,
// which internal/whendiff runs on the API server too.
type evalCases struct {
	Schema json.RawMessage `json:"schema"`
	Cases  []struct {
		Name, Expr, Want string
		Self, Old        json.RawMessage
	} `json:"cases"`
}

func readCases(t testing.TB) evalCases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c evalCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func mustSchema(t testing.TB) *Schema {
	t.Helper()
	var s spec.Schema
	if err := json.Unmarshal(readCases(t).Schema, &s); err != nil {
		t.Fatal(err)
	}
	ws, err := FromOpenAPI(&s)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func obj(t testing.TB, js string) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEval: each case of testdata/eval.json one rule of CEL's semantics
// in the API server, as docs/semantics.md ("The condition subset") states
// it. want is "true", "false" or "error" (an *EvalError). Numbers are
// decoded as json.Number here.
func TestEval(t *testing.T) {
	s := mustSchema(t)
	cases := readCases(t).Cases
	if len(cases) < 50 {
		t.Fatalf("%d cases in testdata/eval.json", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			e, err := Parse(tc.Expr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Eval(s, obj(t, string(tc.Self)), obj(t, string(tc.Old)))
			verdict := map[bool]string{true: "true", false: "false"}[got]
			if err != nil {
				var ee *EvalError
				if !errors.As(err, &ee) {
					t.Fatalf("Eval: %v, want an *EvalError", err)
				}
				verdict = "error"
			}
			if verdict != tc.Want {
				t.Errorf("%s = %s (%v), want %s", tc.Expr, verdict, err, tc.Want)
			}
		})
	}
}

// TestEvalNumbers: the Go numbers the runtime accepts are the JSON numbers
// they hold.
func TestEvalNumbers(t *testing.T) {
	s := mustSchema(t)
	e, err := Parse("self.spec.n == 3 && self.spec.r == 1.5")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		n, r any
	}{
		{"int64 and float64", int64(3), 1.5},
		{"int and float32", 3, float32(1.5)},
		{"json.Number", json.Number("3"), json.Number("1.5")},
		{"uint8", uint8(3), 1.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			self := map[string]any{"spec": map[string]any{"n": tc.n, "r": tc.r}}
			if ok, err := e.Eval(s, self, self); !ok || err != nil {
				t.Errorf("Eval = %v, %v; want true", ok, err)
			}
		})
	}
}

// TestEvalCost: a condition quadratic in a large list stops at MaxCost.
func TestEvalCost(t *testing.T) {
	s := mustSchema(t)
	e, err := Parse("self.spec.l.all(x, self.spec.l.all(y, x == y || true))")
	if err != nil {
		t.Fatal(err)
	}
	l := make([]any, 2000)
	for i := range l {
		l[i] = int64(i)
	}
	self := map[string]any{"spec": map[string]any{"l": l}}
	if _, err := e.Eval(s, self, self); !errors.Is(err, ErrCost) {
		t.Fatalf("Eval = %v, want ErrCost", err)
	}
	self["spec"].(map[string]any)["l"] = l[:100]
	if ok, err := e.Eval(s, self, self); !ok || err != nil {
		t.Fatalf("Eval on 100 items = %v, %v; want true", ok, err)
	}
	// Comparing a large unknown field once per item is charged by the
	// value, not once per comparison.
	e, err = Parse("self.spec.l.all(x, self.spec.po == oldSelf.spec.po)")
	if err != nil {
		t.Fatal(err)
	}
	big := make([]any, 2000)
	for i := range big {
		big[i] = int64(i)
	}
	self = map[string]any{"spec": map[string]any{"l": l, "po": map[string]any{"u": big}}}
	if _, err := e.Eval(s, self, self); !errors.Is(err, ErrCost) {
		t.Fatalf("Eval comparing unknown fields = %v, want ErrCost", err)
	}
}

func TestEvalNeedsSchema(t *testing.T) {
	e, err := Parse("true")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(nil, nil, nil); err == nil {
		t.Fatal("Eval without a schema succeeded")
	}
}

func TestFromOpenAPIRefuses(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"$ref", `{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}}}`, "$ref #/definitions/A"},
		{"several types", `{"type":["string","integer"]}`, "several types"},
		{"tuple items", `{"type":"array","items":[{"type":"string"}]}`, "items as a tuple"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s spec.Schema
			if err := json.Unmarshal([]byte(tc.schema), &s); err != nil {
				t.Fatal(err)
			}
			_, err := FromOpenAPI(&s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("FromOpenAPI = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
