package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// whenSchema has conditional forms (x-immutable-gen-when) as the crd
// generator's extensions output writes them: Kueue's queue name, fixed while
// the workload holds quota; JobSet's template, fixed unless suspended;
// labels whose keys are fixed once admitted; a set-once node, fixed once set
// while not suspended; an unconditional field beside them.
const whenSchema = `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    properties:
      queue:
        type: string
        x-kubernetes-immutable: true
        x-immutable-gen-when: "has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
      suspend: {type: boolean}
      template:
        type: object
        x-kubernetes-immutable: true
        x-immutable-gen-when: "!has(self.spec.suspend) || !self.spec.suspend"
        properties:
          image: {type: string}
      labels:
        type: object
        additionalProperties: {type: string}
        x-kubernetes-immutable-keys: true
        x-immutable-gen-when: "oldSelf.status.phase == 'Admitted'"
      node:
        type: string
        x-immutable-gen-immutable-once: true
        x-immutable-gen-when: "!has(self.spec.suspend) || !self.spec.suspend"
      owner:
        type: string
        x-kubernetes-immutable: true
  status:
    type: object
    properties:
      phase: {type: string}
      conditions:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [type]
        items:
          type: object
          properties:
            type: {type: string}
            status: {type: string}
`

// TestConditionalForms has one case per rule of a conditional form
// (docs/semantics.md, "Conditional immutability"): the form's verdict where
// the condition holds, every change allowed where it does not, and a
// failure of the condition refusing only an update the form refuses, at
// the root, as the API server refuses an update whose rule fails.
func TestConditionalForms(t *testing.T) {
	c := compileYAML(t, whenSchema)
	const reserved = `status: {conditions: [{type: QuotaReserved, status: "True"}]}`
	const notReserved = `status: {conditions: [{type: QuotaReserved, status: "False"}]}`
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "queue changed while quota is reserved", old: "spec: {queue: a}\n" + reserved, new: "spec: {queue: b}\n" + reserved,
			want: []string{`spec.queue: Invalid value: "b": field is immutable`}},
		{name: "queue changed without quota", old: "spec: {queue: a}\n" + notReserved, new: "spec: {queue: b}\n" + notReserved},
		{name: "queue changed without status (has() guards)", old: "spec: {queue: a}", new: "spec: {queue: b}"},
		{name: "queue changed as quota is released (oldSelf decides)", old: "spec: {queue: a}\n" + reserved, new: "spec: {queue: b}\n" + notReserved,
			want: []string{`spec.queue: Invalid value: "b": field is immutable`}},
		{name: "queue removed while quota is reserved", old: "spec: {queue: a}\n" + reserved, new: "spec: {}\n" + reserved,
			want: []string{`spec.queue: Forbidden: field "queue" is immutable and may not be removed`}},
		{name: "queue added without quota", old: "spec: {}", new: "spec: {queue: a}"},
		{name: "template changed while running", old: "spec: {template: {image: a}}", new: "spec: {template: {image: b}}",
			want: []string{`spec.template: Invalid value: {"image":"b"}: field is immutable`}},
		{name: "template changed while suspended", old: "spec: {suspend: true, template: {image: a}}", new: "spec: {suspend: true, template: {image: b}}"},
		{name: "template changed as it resumes (self decides)", old: "spec: {suspend: true, template: {image: a}}", new: "spec: {suspend: false, template: {image: b}}",
			want: []string{`spec.template: Invalid value: {"image":"b"}: field is immutable`}},
		{name: "once: set later while running", old: "spec: {}", new: "spec: {node: n}"},
		{name: "once: changed while running", old: "spec: {node: a}", new: "spec: {node: b}",
			want: []string{`spec.node: Invalid value: "b": field is immutable`}},
		{name: "once: removed while suspended", old: "spec: {suspend: true, node: a}", new: "spec: {suspend: true}"},
		{name: "keys: value changed once admitted", old: "spec: {labels: {a: x}}\nstatus: {phase: Admitted}", new: "spec: {labels: {a: y}}\nstatus: {phase: Admitted}"},
		{name: "keys: key added once admitted", old: "spec: {labels: {a: x}}\nstatus: {phase: Admitted}", new: "spec: {labels: {a: x, b: y}}\nstatus: {phase: Admitted}",
			want: []string{`spec.labels: Forbidden: key "b" may not be added: keys are immutable`}},
		{name: "keys: key added while pending", old: "spec: {labels: {a: x}}\nstatus: {phase: Pending}", new: "spec: {labels: {a: x, b: y}}\nstatus: {phase: Pending}"},
		{name: "failing condition, keys unchanged: allowed", old: "spec: {labels: {a: x}}", new: "spec: {labels: {a: y}}"},
		{name: "failing condition, key added: refused at the root", old: "spec: {labels: {a: x}}", new: "spec: {labels: {a: x, b: y}}",
			want: []string{`: Invalid value: "object": no such key: status evaluating the condition of the immutability of spec.labels (x-immutable-gen-when: oldSelf.status.phase == 'Admitted')`}},
		{name: "unconditional beside", old: "spec: {owner: a, queue: a}", new: "spec: {owner: b, queue: b}",
			want: []string{`spec.owner: Invalid value: "b": field is immutable`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj, old := object(t, tc.new), object(t, tc.old)
			checkMessages(t, c.ValidateUpdate(obj, old), tc.want)
			// DecodeObject decodes in full for a Checker with conditions:
			// the same verdicts from the JSON.
			nj, _ := json.Marshal(obj)
			oj, _ := json.Marshal(old)
			dn, err := c.DecodeObject(nj)
			if err != nil {
				t.Fatal(err)
			}
			do, err := c.DecodeOldObject(oj, dn)
			if err != nil {
				t.Fatal(err)
			}
			checkMessages(t, c.ValidateUpdate(dn, do), tc.want)
		})
	}
}

// TestConditionCompileErrors: the condition is a string in the subset,
// beside an immutability extension.
func TestConditionCompileErrors(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"not a string", `{type: object, properties: {s: {type: string, x-kubernetes-immutable: true, x-immutable-gen-when: true}}}`,
			`properties[s]: x-immutable-gen-when must be a string, the condition, not true`},
		{"alone", `{type: object, properties: {s: {type: string, x-immutable-gen-when: "true"}}}`,
			`properties[s]: x-immutable-gen-when has no effect without an immutability extension on the same schema`},
		{"outside the subset", `{type: object, properties: {s: {type: string, x-kubernetes-immutable: true, x-immutable-gen-when: "self.spec.matches('a')"}}}`,
			`properties[s]: x-immutable-gen-when: `},
		{"syntax", `{type: object, properties: {s: {type: string, x-kubernetes-immutable: true, x-immutable-gen-when: "self.spec &&"}}}`,
			`properties[s]: x-immutable-gen-when: `},
		{"misspelled case", `{type: object, properties: {s: {type: string, x-kubernetes-immutable: true, X-Immutable-Gen-When: "true"}}}`,
			`the extension is spelled x-immutable-gen-when`},
		{"inside anyOf", `{type: object, properties: {s: {anyOf: [{type: string, x-kubernetes-immutable: true, x-immutable-gen-when: "true"}]}}}`,
			`x-immutable-gen-when has no effect inside anyOf`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtime.Compile(schemaFromYAML(t, tc.schema))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestConditionThroughRef: a condition on a definition holds wherever the
// definition is used, and the condition is typed through $refs.
func TestConditionThroughRef(t *testing.T) {
	c := compileYAML(t, `
type: object
definitions:
  Spec:
    type: object
    properties:
      size: {type: integer}
      name: {type: string, x-kubernetes-immutable: true, x-immutable-gen-when: "oldSelf.spec.size > 2"}
properties:
  spec: {$ref: "#/definitions/Spec"}
`)
	checkMessages(t, c.ValidateUpdate(object(t, "spec: {size: 3, name: b}"), object(t, "spec: {size: 3, name: a}")),
		[]string{`spec.name: Invalid value: "b": field is immutable`})
	checkMessages(t, c.ValidateUpdate(object(t, "spec: {size: 1, name: b}"), object(t, "spec: {size: 1, name: a}")), nil)
}

// TestConditionOnRef: a condition on a definition is the condition of
// every property that refers to it.
func TestConditionOnRef(t *testing.T) {
	c := compileYAML(t, `
type: object
definitions:
  Ref:
    type: string
    x-kubernetes-immutable: true
    x-immutable-gen-when: "has(oldSelf.spec.locked) && oldSelf.spec.locked"
properties:
  spec:
    type: object
    properties:
      locked: {type: boolean}
      a: {$ref: "#/definitions/Ref"}
`)
	checkMessages(t, c.ValidateUpdate(object(t, "spec: {locked: true, a: v2}"), object(t, "spec: {locked: true, a: v1}")),
		[]string{`spec.a: Invalid value: "v2": field is immutable`})
	checkMessages(t, c.ValidateUpdate(object(t, "spec: {a: v2}"), object(t, "spec: {a: v1}")), nil)
}

// FuzzConditional: on any two JSON objects, a Checker with conditions
// gives the same errors on the objects decoded by utiljson and by
// DecodeObject, never panics, and allows an unchanged object whatever its
// conditions give (errors included).
func FuzzConditional(f *testing.F) {
	f.Add([]byte(`{"spec":{"queue":"a"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}}`), []byte(`{"spec":{"queue":"b"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}}`))
	f.Add([]byte(`{"spec":{"labels":{"a":"x"}}}`), []byte(`{"spec":{"labels":{"a":"x","b":"y"}}}`))
	f.Add([]byte(`{"spec":{"suspend":"yes","template":{"image":1}},"status":null}`), []byte(`{"spec":{"template":[]}}`))
	c := compileYAML(f, whenSchema)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var obj, old map[string]interface{}
		if utiljson.Unmarshal(a, &obj) != nil || utiljson.Unmarshal(b, &old) != nil || obj == nil || old == nil {
			return
		}
		if errs := c.ValidateUpdate(obj, obj); len(errs) != 0 {
			t.Fatalf("unchanged object refused: %v", errs)
		}
		want := messages(c.ValidateUpdate(obj, old))
		dn, err := c.DecodeObject(a)
		if err != nil {
			t.Fatalf("DecodeObject: %v", err)
		}
		do, err := c.DecodeOldObject(b, dn)
		if err != nil {
			t.Fatalf("DecodeOldObject: %v", err)
		}
		if got := messages(c.ValidateUpdate(dn, do)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("decoded: %q, want %q", got, want)
		}
	})
}

// TestConditionalNoAllocation: an update a Checker with conditions allows
// without evaluating them (the conditional fields unchanged, a mutable
// one changed) allocates nothing, as without conditions; the condition is
// evaluated, and allocates, only where a conditional field changes.
func TestConditionalNoAllocation(t *testing.T) {
	c := compileYAML(t, whenSchema)
	const status = "status: {phase: Admitted, conditions: [{type: QuotaReserved, status: \"True\"}]}"
	old := object(t, "spec: {queue: a, suspend: false, template: {image: x}, labels: {a: x}, node: n, owner: o}\n"+status)
	obj := object(t, "spec: {queue: a, suspend: false, template: {image: x}, labels: {a: y}, node: n, owner: o}\n"+status)
	if errs := c.ValidateUpdate(obj, old); len(errs) != 0 {
		t.Fatalf("allowed update refused: %v", errs)
	}
	if n := testing.AllocsPerRun(100, func() { c.ValidateUpdate(obj, old) }); n != 0 {
		t.Errorf("ValidateUpdate allocates %v times per allowed update with conditions, want 0", n)
	}
}

// BenchmarkConditional: an update of the Kueue-style object of whenSchema
// that leaves the conditional fields alone (no condition evaluated), and
// one that changes the queue while quota is reserved (the condition
// evaluated, the violation reported).
func BenchmarkConditional(b *testing.B) {
	c := compileYAML(b, whenSchema)
	const status = "status: {phase: Admitted, conditions: [{type: Admitted, status: \"True\"}, {type: Evicted, status: \"False\"}, {type: PodsReady, status: \"True\"}, {type: QuotaReserved, status: \"True\"}]}"
	old := object(b, "spec: {queue: a, suspend: false, template: {image: x}, labels: {a: x}, node: n, owner: o}\n"+status)
	for _, tc := range []struct{ name, spec string }{
		{"mutable change", "spec: {queue: a, suspend: false, template: {image: x}, labels: {a: y}, node: n, owner: o}\n"},
		{"conditional change refused", "spec: {queue: b, suspend: false, template: {image: x}, labels: {a: x}, node: n, owner: o}\n"},
	} {
		obj := object(b, tc.spec+status)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.ValidateUpdate(obj, old)
			}
		})
	}
}
