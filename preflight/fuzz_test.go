package preflight_test

import (
	"testing"

	"github.com/immutable-gen/immutable-gen/preflight"
)

// FuzzCheck: any manifest is read, paired and checked without a panic;
// bad input is an error.
func FuzzCheck(f *testing.F) {
	f.Add([]byte("apiVersion: preflight.example.com/v1\nkind: Rule\nmetadata: {name: r}\nspec: " + base))
	f.Add([]byte(`{"apiVersion": "preflight.example.com/v1", "kind": "Rule", "metadata": {"name": "r", "finalizers": [1]}, "spec": {"tags": [[]], "ports": {}}}`))
	f.Add([]byte("kind: RuleList\nitems: [{apiVersion: preflight.example.com/v1, kind: Rule, metadata: {name: a}, spec: 1}]"))
	f.Add([]byte("apiVersion: preflight.example.com/v1\nkind: Rule\nmetadata: 3\n"))
	c := checker(f, rulesCRD)
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := preflight.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		changes, err := preflight.Pair(nil, objs)
		if err != nil {
			return
		}
		for _, ch := range changes {
			_, _ = c.Check(ch)
			_, _ = c.Check(preflight.Change{Key: ch.Key, Old: ch.New, New: ch.New})
		}
	})
}
