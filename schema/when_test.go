package schema_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWhenMatchesRuntime is the differential test of +immutable:when: on
// random schemas, every marker on a node reached through properties only
// is made conditional on `oldSelf.spec.lock`; the API server's validator
// on the CEL output must give, on random updates, the runtime's verdict of
// all the markers where the old object is locked, and of the other markers
// alone where it is not.
func TestWhenMatchesRuntime(t *testing.T) {
	const when = "has(oldSelf.spec) && oldSelf.spec.lock"
	total, conditional := 0, 0
	for s := 0; s < *diffSchemas/2; s++ {
		seed := *diffSeed*1_000_033 + uint64(s)
		g := &gen{r: rand.New(rand.NewPCG(seed, 11))}
		raw := g.root()
		spec := raw["properties"].(map[string]any)["spec"].(map[string]any)
		spec["properties"].(map[string]any)["lock"] = map[string]any{"type": "boolean"}
		req, _ := spec["required"].([]any)
		spec["required"] = append([]any{"lock"}, req...)
		condRaw := deepCopy(raw).(map[string]any)
		conditional += addWhen(condRaw, when)
		cond, ok := compileBoth(t, condRaw, seed)
		if !ok {
			continue
		}
		plain, ok := compileBoth(t, raw, seed)
		if !ok {
			continue
		}
		for p := 0; p < *diffPairs; p++ {
			old := g.value(plain.objSchema)
			obj := g.mutate(plain.objSchema, deepCopy(old))
			checker := cond.checker // the unconditional markers alone
			if spec, _ := asMap(old)["spec"].(map[string]any); spec != nil && spec["lock"] == true {
				checker = plain.checker
			}
			rt := checker.ValidateUpdate(asMap(obj), asMap(old))
			ce := cond.validateCEL(asMap(obj), asMap(old))
			total++
			if msg := compareVerdicts(rt, ce); msg != "" {
				t.Fatalf("schema seed %d, pair %d: %s\nschema (CEL): %s\nold: %s\nnew: %s\nruntime: %v\nCEL: %v",
					seed, p, msg, js(cond.celSchema), js(old), js(obj), rt, ce)
			}
		}
	}
	t.Logf("%d updates agreed; %d conditional markers", total, conditional)
	if conditional == 0 || total == 0 {
		t.Fatal("no conditional marker was exercised")
	}
}

// addWhen adds the condition to every marker carrier on a node reached from
// s through properties only, and returns how many it changed.
func addWhen(s map[string]any, when string) int {
	n := 0
	if rules, ok := s["x-kubernetes-validations"].([]any); ok {
		q, _ := json.Marshal(when)
		for _, r := range rules {
			rule := r.(map[string]any)
			text := rule["rule"].(string)
			if strings.HasPrefix(text, "@immutable-gen:origin {") {
				rule["rule"] = strings.Replace(text, "{", `{"when":`+string(q)+",", 1)
				n++
			}
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			n += addWhen(p.(map[string]any), when)
		}
	}
	return n
}
