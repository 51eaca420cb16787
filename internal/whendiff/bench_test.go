package whendiff

import (
	"context"
	"testing"

	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/immutable-gen/immutable-gen/runtime/when"
)

// kueue is runtime/when's BenchmarkEval condition, on the same object:
// BENCHMARKS.md sets the two side by side.
const kueue = "has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"

func kueueObject() map[string]any {
	var conds []any
	for _, t := range []string{"Admitted", "Evicted", "PodsReady", "QuotaReserved"} {
		conds = append(conds, map[string]any{"type": t, "status": "True", "reason": "Done"})
	}
	return map[string]any{"apiVersion": "diff.example.com/v1", "kind": "Thing", "spec": map[string]any{"size": int64(1)}, "status": map[string]any{"conditions": conds}}
}

// BenchmarkAPIServerCEL: the API server's CEL validator running the root
// rule !(kueue) (compiled once) on one update.
func BenchmarkAPIServerCEL(b *testing.B) {
	h := newHarness(b)
	v, ss, refused := h.srv.compile(kueue)
	if refused != "" {
		b.Fatal(refused)
	}
	o := kueueObject()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if errs, _ := v.Validate(context.Background(), nil, ss, o, o, celconfig.RuntimeCELCostBudget); len(errs) != 1 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkWhen: runtime/when on the same update and schema.
func BenchmarkWhen(b *testing.B) {
	h := newHarness(b)
	e, err := when.Parse(kueue)
	if err != nil {
		b.Fatal(err)
	}
	o := kueueObject()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, err := e.Eval(h.schema, o, o); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
