package schema_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWhenMatchesRuntime is the differential test of +immutable:when: on
// random schemas, every marker on a node reached through properties only
// is made conditional, on one of several conditions over spec.lock (some
// an error on objects without spec or where the lock is absent); the API
// server's validator on the CEL output and the runtime on the extensions
// output (x-immutable-gen-when beside the forms' extensions) must agree on
// every random update, naming the same fields.
func TestWhenMatchesRuntime(t *testing.T) {
	conditions := []string{
		"has(oldSelf.spec) && oldSelf.spec.lock",
		"oldSelf.spec.lock",                                      // an error without spec
		"!has(self.spec) || self.spec.lock == oldSelf.spec.lock", // an error where oldSelf has no spec
		"has(oldSelf.spec) && has(oldSelf.spec.lock) ? oldSelf.spec.lock : has(self.spec) && has(self.spec.lock)",
		"self.spec.lock || oldSelf.spec.lock",
	}
	total, conditional, rejected := 0, 0, 0
	for s := 0; s < *diffSchemas/2; s++ {
		seed := *diffSeed*1_000_033 + uint64(s)
		g := &gen{r: rand.New(rand.NewPCG(seed, 11))}
		raw := g.root()
		spec := raw["properties"].(map[string]any)["spec"].(map[string]any)
		spec["properties"].(map[string]any)["lock"] = map[string]any{"type": "boolean"}
		if s%2 == 0 {
			req, _ := spec["required"].([]any)
			spec["required"] = append([]any{"lock"}, req...)
		}
		condRaw := deepCopy(raw).(map[string]any)
		conditional += addWhen(condRaw, conditions[s%len(conditions)])
		cond, ok := compileBoth(t, condRaw, seed)
		if !ok {
			continue
		}
		for p := 0; p < *diffPairs; p++ {
			old := g.value(cond.objSchema)
			obj := g.mutate(cond.objSchema, deepCopy(old))
			rt := cond.checker.ValidateUpdate(asMap(obj), asMap(old))
			ce := cond.validateCEL(asMap(obj), asMap(old))
			total++
			if len(rt) > 0 {
				rejected++
			}
			if msg := compareVerdicts(rt, ce); msg != "" {
				t.Fatalf("schema seed %d, pair %d: %s\nschema (CEL): %s\nschema (extensions): %s\nold: %s\nnew: %s\nruntime: %v\nCEL: %v",
					seed, p, msg, js(cond.celSchema), js(cond.objSchema), js(old), js(obj), rt, ce)
			}
		}
	}
	t.Logf("%d updates agreed, %d rejected; %d conditional markers", total, rejected, conditional)
	if conditional == 0 || total == 0 || rejected == 0 || rejected == total {
		t.Fatal("the conditional markers were not exercised both ways")
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
