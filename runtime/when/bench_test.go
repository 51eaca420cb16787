package when

import (
	"strings"
	"testing"
)

// kueue is the condition Kueue writes, on an object with four conditions:
// the one BENCHMARKS.md measures.
const kueue = "has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"

func kueueObject() map[string]any {
	var conds []any
	for _, t := range []string{"Admitted", "Evicted", "PodsReady", "QuotaReserved"} {
		conds = append(conds, map[string]any{"type": t, "status": "True", "reason": "Done"})
	}
	return map[string]any{"spec": map[string]any{"n": int64(1)}, "status": map[string]any{"conditions": conds}}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(kueue); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	s := mustSchema(b)
	e, err := Parse(kueue)
	if err != nil {
		b.Fatal(err)
	}
	o := kueueObject()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, err := e.Eval(s, o, o); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkEvalJobSet: a field read and has(), the other common shape.
func BenchmarkEvalJobSet(b *testing.B) {
	s := mustSchema(b)
	e, err := Parse("!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)")
	if err != nil {
		b.Fatal(err)
	}
	o := map[string]any{"spec": map[string]any{"suspend": false}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, err := e.Eval(s, o, o); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkParseLongest: a condition of MaxLength bytes, to show Parse
// linear in the length.
func BenchmarkParseLongest(b *testing.B) {
	term := "self.spec.n == 1 || "
	expr := strings.Repeat(term, MaxLength/len(term)-1) + "true"
	b.SetBytes(int64(len(expr)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(expr); err != nil {
			b.Fatal(err)
		}
	}
}
