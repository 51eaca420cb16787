package crdgen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/output"
)

// A ruleCase is one KEP placement rule, written as the Go API an author
// would write. Each case becomes its own package and API group in a
// temporary module, so one package load serves a whole table.
type ruleCase struct {
	name string
	// types is the body of types.go after the package clause and imports;
	// it must declare `type Kind struct` embedding TypeMeta/ObjectMeta.
	types string
	// immutable and keys list the schema paths (in the CRD's spec.versions[0]
	// openAPIV3Schema, dotted, `[]` for items, `{}` for map values) that must
	// carry x-kubernetes-immutable / x-kubernetes-immutable-keys; no other
	// node may.
	immutable, keys []string
	// ignoreOrder lists the paths that must carry
	// x-immutable-gen-ignore-order (checked only when not nil).
	ignoreOrder []string
	// diags are regexps, each of which must match one diagnostic of this
	// case; a case with no Error in diags must produce no error.
	diags []string
}

const kind = `
// +kubebuilder:object:root=true
type Kind struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec Spec ` + "`json:\"spec,omitempty\"`" + `
}
`

var validCases = []ruleCase{{
	name: "ignoreOrder beside +immutable on a list map and beside a type marker on a struct holding one",
	types: `type Dep struct {
	Name string ` + "`json:\"name\"`" + `
	Status string ` + "`json:\"status,omitempty\"`" + `
}
// +immutable
// +immutable:ignoreOrder
type Job struct {
	// +listType=map
	// +listMapKey=name
	DependsOn []Dep ` + "`json:\"dependsOn,omitempty\"`" + `
}
type Spec struct {
	// +listType=map
	// +listMapKey=name
	// +immutable
	// +immutable:ignoreOrder
	Deps []Dep ` + "`json:\"deps\"`" + `
	// +immutable=once
	// +immutable:ignoreOrder
	// +listType=map
	// +listMapKey=name
	Later []Dep ` + "`json:\"later,omitempty\"`" + `
	Job Job ` + "`json:\"job\"`" + `
}` + kind,
	immutable:   []string{"spec.deps", "spec.job"},
	ignoreOrder: []string{"spec.deps", "spec.later", "spec.job"},
}, {
	name: "validation-gen's tags beside the marker that says the same",
	types: `type Spec struct {
	// +immutable
	// +k8s:immutable
	Name string ` + "`json:\"name\"`" + `
	// +immutable=once
	// +k8s:update=NoModify
	// +k8s:update=NoUnset
	// +optional
	Handle string ` + "`json:\"handle,omitempty\"`" + `
}` + kind,
	immutable: []string{"spec.name"},
}, {
	name: "field marker on a scalar",
	types: `type Spec struct {
	// +immutable
	Name string ` + "`json:\"name\"`" + `
}` + kind,
	immutable: []string{"spec.name"},
}, {
	name: "type marker reaches field, pointer field, list item and map value",
	types: `// +immutable
type Ref struct {
	Name string ` + "`json:\"name\"`" + `
}
type Spec struct {
	A Ref ` + "`json:\"a\"`" + `
	// +optional
	P *Ref ` + "`json:\"p,omitempty\"`" + `
	// +optional
	L []Ref ` + "`json:\"l,omitempty\"`" + `
	// +optional
	M map[string]Ref ` + "`json:\"m,omitempty\"`" + `
}` + kind,
	immutable: []string{"spec.a", "spec.p", "spec.l[]", "spec.m{}"},
}, {
	name: "type marker on a named scalar used as list items",
	types: `// +immutable
type Name string
type Spec struct {
	Names []Name ` + "`json:\"names\"`" + `
}` + kind,
	immutable: []string{"spec.names[]"},
}, {
	name: "keys on a map",
	types: `type Spec struct {
	// +immutable=keys
	Labels map[string]string ` + "`json:\"labels\"`" + `
}` + kind,
	keys: []string{"spec.labels"},
}, {
	name: "keys on a named map type",
	types: `// +immutable=keys
type Labels map[string]string
type Spec struct {
	Labels Labels ` + "`json:\"labels\"`" + `
}` + kind,
	keys: []string{"spec.labels"},
}, {
	name: "keys on a list map with an immutable key",
	types: `type Port struct {
	// +immutable
	Name string ` + "`json:\"name\"`" + `
	Port int32 ` + "`json:\"port\"`" + `
}
type Spec struct {
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	Ports []Port ` + "`json:\"ports\"`" + `
}` + kind,
	keys:      []string{"spec.ports"},
	immutable: []string{"spec.ports[].name"},
}, {
	name: "keys on a list map whose items are immutable",
	types: `// +immutable
type Port struct {
	Name string ` + "`json:\"name\"`" + `
}
type Spec struct {
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	Ports []Port ` + "`json:\"ports\"`" + `
}` + kind,
	keys:      []string{"spec.ports"},
	immutable: []string{"spec.ports[]"},
}, {
	name: "immutable set",
	types: `type Spec struct {
	// +listType=set
	// +immutable
	Tags []string ` + "`json:\"tags\"`" + `
}` + kind,
	immutable: []string{"spec.tags"},
}, {
	name: "redundant marker inside an immutable subtree is a note",
	types: `type Inner struct {
	// +immutable
	X string ` + "`json:\"x\"`" + `
}
type Spec struct {
	// +immutable
	Inner Inner ` + "`json:\"inner\"`" + `
}` + kind,
	immutable: []string{"spec.inner", "spec.inner.x"},
	diags:     []string{`types.go:6:\d+: info\[IG\d+\]: .*redundant: spec.inner.x is already immutable as part of spec.inner`},
}, {
	name: "marker inside set items has no effect",
	types: `// +immutable
type Name string
type Spec struct {
	// +listType=set
	Names []Name ` + "`json:\"names\"`" + `
}` + kind,
	immutable: []string{"spec.names[]"},
	diags:     []string{`types.go:5:\d+: warning\[IG\d+\]: .*no effect inside the items of the \+listType=set list spec.names`},
}, {
	name: "field named like a YAML 1.1 boolean",
	types: `type Spec struct {
	// +immutable
	Y string ` + "`json:\"y\"`" + `
	// +immutable
	On string ` + "`json:\"on\"`" + `
}` + kind,
	immutable: []string{"spec.y", "spec.on"},
}, {
	name: "metadata of an embedded template is ordinary data",
	types: `type Template struct {
	// +immutable
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}
type Spec struct {
	Template Template ` + "`json:\"template\"`" + `
}` + kind,
	immutable: []string{"spec.template.metadata"},
}, {
	name: "optional parent with immutable children",
	types: `type Inner struct {
	// +immutable
	X string ` + "`json:\"x\"`" + `
}
type Spec struct {
	// +optional
	Inner *Inner ` + "`json:\"inner,omitempty\"`" + `
}` + kind,
	immutable: []string{"spec.inner.x"},
}, {
	name: "near-miss spellings are warnings",
	types: `type Spec struct {
	// +imutable
	A string ` + "`json:\"a\"`" + `
	// +Immutable
	B string ` + "`json:\"b\"`" + `
	// +immutable:keys
	C map[string]string ` + "`json:\"c\"`" + `
	// +immutible=keys
	D map[string]string ` + "`json:\"d\"`" + `
}` + kind,
	diags: []string{
		`types.go:6:\d+: warning\[IG\d+\]: unknown marker \+imutable is ignored; did you mean \+immutable\?`,
		`types.go:8:\d+: warning\[IG\d+\]: unknown marker \+Immutable is ignored \(markers are case-sensitive\)`,
		`types.go:10:\d+: warning\[IG\d+\]: unknown marker \+immutable:keys is ignored; did you mean \+immutable=keys\?`,
		`types.go:12:\d+: warning\[IG\d+\]: unknown marker \+immutible=keys is ignored; did you mean \+immutable=keys\?`,
	},
}}

var errorCases = []ruleCase{{
	name: "root type of a kind",
	types: `type Spec struct {
	Name string ` + "`json:\"name\"`" + `
}
// +kubebuilder:object:root=true
// +immutable
type Kind struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec Spec ` + "`json:\"spec,omitempty\"`" + `
}`,
	diags: []string{`types.go:9:\d+: error\[IG\d+\]: \+immutable .*<root>.*not allowed on the root type of a kind`},
}, {
	name: "root metadata",
	types: `type Spec struct {
	Name string ` + "`json:\"name\"`" + `
}
// +kubebuilder:object:root=true
type Kind struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	// +immutable
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec Spec ` + "`json:\"spec,omitempty\"`" + `
}`,
	diags: []string{`types.go:11:\d+: error\[IG\d+\]: .*metadata\): not allowed on the object.s metadata`},
}, {
	name: "inline embedded field",
	types: `type Common struct {
	Name string ` + "`json:\"name\"`" + `
}
type Spec struct {
	// +immutable
	Common ` + "`json:\",inline\"`" + `
}` + kind,
	diags: []string{`types.go:10:\d+: .*not allowed on the embedded \(inline\) field Common`},
}, {
	name: "keys on a scalar",
	types: `type Spec struct {
	// +immutable=keys
	Name string ` + "`json:\"name\"`" + `
}` + kind,
	diags: []string{`types.go:6:\d+: error\[IG\d+\]: \+immutable=keys .*spec.name.*not allowed on a string value.*fix: use \+immutable`},
}, {
	name: "keys on a struct",
	types: `type Inner struct {
	X string ` + "`json:\"x\"`" + `
}
type Spec struct {
	// +immutable=keys
	Inner Inner ` + "`json:\"inner\"`" + `
}` + kind,
	diags: []string{`types.go:9:\d+: error\[IG\d+\]: .*not allowed on a struct`},
}, {
	name: "keys on a set",
	types: `type Spec struct {
	// +listType=set
	// +immutable=keys
	Tags []string ` + "`json:\"tags\"`" + `
}` + kind,
	diags: []string{`types.go:7:\d+: error\[IG\d+\]: .*not allowed on a \+listType=set list.*fix: use \+immutable`},
}, {
	name: "keys on an atomic list",
	types: `type Spec struct {
	// +immutable=keys
	Args []string ` + "`json:\"args\"`" + `
}` + kind,
	diags: []string{`types.go:6:\d+: error\[IG\d+\]: .*not allowed on an atomic list`},
}, {
	name: "keys on an atomic map",
	types: `type Spec struct {
	// +mapType=atomic
	// +immutable=keys
	Sel map[string]string ` + "`json:\"sel\"`" + `
}` + kind,
	diags: []string{`types.go:7:\d+: error\[IG\d+\]: .*not allowed on an atomic map`},
}, {
	name: "keys on a list map whose key is not immutable",
	types: `type Port struct {
	Name string ` + "`json:\"name\"`" + `
	Port int32 ` + "`json:\"port\"`" + `
}
type Spec struct {
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	Ports []Port ` + "`json:\"ports\"`" + `
}` + kind,
	diags: []string{`types.go:12:\d+: error\[IG\d+\]: .*requires its key "name" to be immutable.*fix: add // \+immutable to the key field .*Port.Name \(.*types.go:6:\d+\)`},
}, {
	name: "type immutable and field keys on one node",
	types: `// +immutable
type Labels map[string]string
type Spec struct {
	// +immutable=keys
	Labels Labels ` + "`json:\"labels\"`" + `
}` + kind,
	diags: []string{
		`types.go:8:\d+: error\[IG\d+\]: \+immutable=keys .*exclusive on one node, and \+immutable comes from type Labels`,
		`types.go:5:\d+: error\[IG\d+\]: \+immutable .*exclusive on one node, and \+immutable=keys comes from field Spec.Labels`,
	},
}, {
	name: "type keys and field immutable on one node",
	types: `// +immutable=keys
type Labels map[string]string
type Spec struct {
	// +immutable
	Labels Labels ` + "`json:\"labels\"`" + `
}` + kind,
	diags: []string{`types.go:8:\d+: error\[IG\d+\]: \+immutable .*exclusive on one node`},
}, {
	name: "the API server's own CRD validation runs and points at the marker",
	types: `type Port struct {
	// +immutable
	// +optional
	Name string ` + "`json:\"name,omitempty\"`" + `
}
type Spec struct {
	// +listType=map
	// +listMapKey=name
	// +immutable=keys
	Ports []Port ` + "`json:\"ports\"`" + `
}` + kind,
	diags: []string{`types.go:6:\d+: error\[IG\d+\]: CRD .* v1: spec.ports\[\*\].name: the API server refuses the CRD: .*must have a default or be a required property`},
}, {
	name: "ignoreOrder with no list map under it",
	types: `type Spec struct {
	// +immutable
	// +immutable:ignoreOrder
	Name string ` + "`json:\"name\"`" + `
}` + kind,
	diags: []string{`types.go:6:\d+: error\[IG\d+\]: \+immutable \(.*: spec.name\): \+immutable:ignoreOrder has no list map at or under spec.name.*fix: remove \+immutable:ignoreOrder`},
}, {
	name: "ignoreOrder without a form that compares whole",
	types: `type Spec struct {
	// +immutable:ignoreOrder
	Alone []string ` + "`json:\"alone\"`" + `
	// +immutable=keys
	// +immutable:ignoreOrder
	Keys map[string]string ` + "`json:\"keys\"`" + `
}` + kind,
	diags: []string{
		`types.go:\d+:\d+: .*\+immutable:ignoreOrder on field Spec.Alone has no immutability marker beside it`,
		`types.go:\d+:\d+: .*\+immutable:ignoreOrder on field Spec.Keys stands beside \+immutable=keys`,
	},
}, {
	name: "ignoreOrder with a value",
	types: `type Spec struct {
	// +immutable
	// +immutable:ignoreOrder=yes
	Valued []string ` + "`json:\"valued\"`" + `
}` + kind,
	diags: []string{`types.go:7:\d+: .*invalid marker \+immutable:ignoreOrder=yes: the marker takes no value`},
}, {
	name: "k8s:update with no form",
	types: `type Spec struct {
	// +k8s:update=NoAddItem
	A []string ` + "`json:\"a,omitempty\"`" + `
}` + kind,
	diags: []string{`types.go:7:\d+: .*\+k8s:update=NoAddItem on field Spec.A: immutable-gen has no form with these verdicts; the combinations that have one are .*\+k8s:update=NoAddItem,NoRemoveItem`},
}, {
	name: "k8s:update=NoModify on a list",
	types: `type Spec struct {
	// +k8s:update=NoModify
	L []string ` + "`json:\"l,omitempty\"`" + `
}` + kind,
	diags: []string{`types.go:7:\d+: .*validation-gen refuses NoModify on a list or map field; use \+k8s:eachVal=\+k8s:update=NoModify`},
}, {
	name: "k8s:eachVal on an atomic list",
	types: `type Spec struct {
	// +k8s:eachVal=+k8s:update=NoModify
	L []string ` + "`json:\"l,omitempty\"`" + `
}` + kind,
	diags: []string{`types.go:7:\d+: .*validation-gen requires the list to be a list map`},
}, {
	name: "k8s:update beside a marker that says something else",
	types: `type Spec struct {
	// +immutable
	// +k8s:update=NoModify
	A string ` + "`json:\"a,omitempty\"`" + `
}` + kind,
	diags: []string{`types.go:8:\d+: .*\+k8s:update=NoModify on field Spec.A stands beside \+immutable, which says something else: keep one of them`},
}, {
	name: "k8s:update unknown constraint",
	types: `type Spec struct {
	// +k8s:update=NoChange
	A string ` + "`json:\"a,omitempty\"`" + `
}` + kind,
	diags: []string{`types.go:6:\d+: .*unknown \+k8s:update constraint "NoChange"`},
}, {
	name: "when inside list items",
	types: `type Item struct {
	// +immutable
	// +immutable:when="has(oldSelf.spec.locked)"
	Name string ` + "`json:\"name\"`" + `
}
type Spec struct {
	Items []Item ` + "`json:\"items,omitempty\"`" + `
}` + kind,
	diags: []string{`types.go:6:\d+: error\[IG\d+\]: \+immutable .*\+immutable:when is only allowed on a field reached from the object's root through properties only, and spec.items\[\*\].name is inside list items or map values`},
}, {
	name: "when: errors at the condition's own line and column",
	types: `type Spec struct {
	// +immutable
	// +immutable:when="oldSelf.spec.a &&& true"
	A string ` + "`json:\"a\"`" + `
	// +immutable
	// +immutable:when="size(oldSelf.spec.b)"
	B string ` + "`json:\"b\"`" + `
	// +immutable
	// +immutable:when="oldSelf.status.conditions.exists(c, c.type == 'Ready')"
	C string ` + "`json:\"c\"`" + `
	// +immutable
	// +immutable:when="oldSelf.spec.d == \"x\" || oldSelf.spec.nope"
	D string ` + "`json:\"d\"`" + `
	// +immutable
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Ready')"
	E string ` + "`json:\"e\"`" + `
	// +immutable
	// +immutable:when="!oldSelf.spec.suspend"
	F string ` + "`json:\"f\"`" + `
	Suspend *bool ` + "`json:\"suspend,omitempty\"`" + `
}
type Status struct {
	Conditions []metav1.Condition ` + "`json:\"conditions,omitempty\"`" + `
}
// +kubebuilder:object:root=true
type Kind struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec Spec ` + "`json:\"spec,omitempty\"`" + `
	Status Status ` + "`json:\"status,omitempty\"`" + `
}
`,
	diags: []string{
		`types.go:7:39: error.*the condition ` + "`oldSelf.spec.a &&& true`" + ` is refused by the API server's CEL compiler: Syntax error`,
		`types.go:10:22: error.*must be a bool`,
		`types.go:13:22: error.*reads oldSelf.status.conditions, and oldSelf.status is optional.*fix: guard it: ` + "`has\\(oldSelf.status\\) && …`",
		`types.go:16:61: error.*undefined field 'nope'`,
		`types.go:22:23: error.*reads oldSelf.spec.suspend, and oldSelf.spec.suspend is optional`,
	},
}, {
	name: "when: outside the runtime's subset in the extensions output",
	types: `type Spec struct {
	// +immutable
	// +immutable:when="oldSelf.spec.a.matches('^x')"
	A string ` + "`json:\"a\"`" + `
	// +immutable
	// +immutable:when="oldSelf.spec.b == 'x' && oldSelf.spec.b.lowerAscii() == 'x'"
	B string ` + "`json:\"b\"`" + `
	// +immutable
	// +immutable:when="oldSelf.spec.c == 'x'"
	C string ` + "`json:\"c\"`" + `
}` + kind,
	diags: []string{
		`types.go:7:37: error\[IG049\]: .*the condition ` + "`oldSelf.spec.a.matches\\('\\^x'\\)`" + ` is outside what the runtime evaluates.*matches.*is not in the subset.*fix: rewrite the condition in the subset`,
		`types.go:10:62: error\[IG049\]: .*lowerAscii`,
	},
}, {
	name: "when alone or twice",
	types: `type Spec struct {
	// +immutable:when="true"
	A string ` + "`json:\"a\"`" + `
	// +immutable
	// +immutable:when="true"
	// +immutable:when="false"
	B string ` + "`json:\"b\"`" + `
}` + kind,
	diags: []string{
		`types.go:\d+:\d+: .*\+immutable:when on field Spec.A has no immutability marker beside it`,
		`types.go:\d+:\d+: .*\+immutable:when is written 2 times on one field or type`,
	},
}, {
	name: "invalid values",
	types: `type Spec struct {
	// +immutable=true
	A string ` + "`json:\"a\"`" + `
	// +immutable=false
	B string ` + "`json:\"b\"`" + `
	// +immutable=bogus
	C string ` + "`json:\"c\"`" + `
	// +immutable=Keys
	D map[string]string ` + "`json:\"d\"`" + `
}` + kind,
	diags: []string{
		`types.go:6:\d+: .*invalid marker \+immutable=true`,
		`types.go:8:\d+: .*invalid marker \+immutable=false`,
		`types.go:10:\d+: .*invalid marker \+immutable=bogus`,
		`types.go:12:\d+: .*invalid marker \+immutable=Keys`,
	},
}}

// TestPlacementRulesValid generates every valid case in one run and checks
// that the extensions sit at exactly the expected nodes.
func TestPlacementRulesValid(t *testing.T) {
	dir := writeCases(t, validCases)
	crds, lines, ok := generateCases(t, dir)
	if !ok {
		t.Fatalf("valid cases failed:\n%s", strings.Join(lines, "\n"))
	}
	for i, c := range validCases {
		t.Run(c.name, func(t *testing.T) {
			crd := crds[groupOf(i)]
			if crd == nil {
				t.Fatalf("no CRD for group %s", groupOf(i))
			}
			root := nested(crd, "spec", "versions").([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
			gotImm, gotKeys, gotOrder := map[string]bool{}, map[string]bool{}, map[string]bool{}
			walkRaw(root, "", func(path string, n map[string]any) {
				if v, ok := n["x-kubernetes-immutable"]; ok {
					if v != true {
						t.Errorf("%s: x-kubernetes-immutable is %#v, want the boolean true", path, v)
					}
					gotImm[path] = true
				}
				if v, ok := n["x-kubernetes-immutable-keys"]; ok {
					if v != true {
						t.Errorf("%s: x-kubernetes-immutable-keys is %#v, want the boolean true", path, v)
					}
					gotKeys[path] = true
				}
				if n["x-immutable-gen-ignore-order"] == true {
					gotOrder[path] = true
				}
			})
			if c.ignoreOrder != nil {
				compareSet(t, "x-immutable-gen-ignore-order", gotOrder, c.ignoreOrder)
			}
			compareSet(t, "x-kubernetes-immutable", gotImm, c.immutable)
			compareSet(t, "x-kubernetes-immutable-keys", gotKeys, c.keys)
			checkDiags(t, caseLines(lines, i), c.diags)
		})
	}
}

// TestPlacementRulesErrors generates every error case in one run: the run
// fails, and each case's error is reported at its line.
func TestPlacementRulesErrors(t *testing.T) {
	dir := writeCases(t, errorCases)
	_, lines, ok := generateCases(t, dir)
	if ok {
		t.Fatal("error cases generated without error")
	}
	for i, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			got := caseLines(lines, i)
			if len(got) == 0 {
				t.Fatal("no diagnostic")
			}
			checkDiags(t, got, c.diags)
		})
	}
}

func groupOf(i int) string { return "c" + string(rune('a'+i/26)) + string(rune('a'+i%26)) }

// caseLines are the diagnostics about case i's file.
func caseLines(lines []string, i int) []string {
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "/"+groupOf(i)+"/types.go:") {
			out = append(out, l)
		}
	}
	return out
}

func checkDiags(t *testing.T, got, want []string) {
	t.Helper()
	for _, w := range want {
		re := regexp.MustCompile(w)
		found := false
		for _, g := range got {
			found = found || re.MatchString(g)
		}
		if !found {
			t.Errorf("no diagnostic matches %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	wantsError := false
	for _, w := range want {
		wantsError = wantsError || strings.Contains(w, "error") || strings.Contains(w, "invalid marker") || strings.Contains(w, "not allowed")
	}
	if !wantsError {
		for _, g := range got {
			if strings.Contains(g, ": error[") || strings.Contains(g, ": error: ") {
				t.Errorf("unexpected error: %s", g)
			}
		}
	}
}

func compareSet(t *testing.T, what string, got map[string]bool, want []string) {
	t.Helper()
	for _, w := range want {
		if !got[w] {
			t.Errorf("%s missing at %s", what, w)
		}
		delete(got, w)
	}
	for g := range got {
		t.Errorf("%s at unexpected node %s", what, g)
	}
}

func walkRaw(n map[string]any, path string, fn func(string, map[string]any)) {
	fn(path, n)
	if props, ok := n["properties"].(map[string]any); ok {
		for k, v := range props {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walkRaw(v.(map[string]any), p, fn)
		}
	}
	if items, ok := n["items"].(map[string]any); ok {
		walkRaw(items, path+"[]", fn)
	}
	if values, ok := n["additionalProperties"].(map[string]any); ok {
		walkRaw(values, path+"{}", fn)
	}
}

// testModule returns the go.mod for a temporary module that requires
// exactly what this module requires, so packages load offline from the
// module cache.
var testModule = sync.OnceValues(func() ([]byte, error) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "go.mod"))
	if err != nil {
		return nil, err
	}
	return regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(b, []byte("module example.com/rules")), nil
})

func writeCases(t *testing.T, cases []ruleCase) string {
	t.Helper()
	gomod, err := testModule()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile("../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), gomod, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	for i, c := range cases {
		pkg := filepath.Join(dir, groupOf(i))
		must(t, os.MkdirAll(pkg, 0o755))
		doc := "// Package v1 is the case " + c.name + ".\n// +groupName=" + groupOf(i) + ".example.com\npackage v1\n"
		src := "package v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" + c.types + "\n"
		if strings.Contains(c.types, "corev1.") {
			src = strings.Replace(src, "\n\n", "\n\nimport corev1 \"k8s.io/api/core/v1\"\n", 1)
		}
		must(t, os.WriteFile(filepath.Join(pkg, "doc.go"), []byte(doc), 0o644))
		must(t, os.WriteFile(filepath.Join(pkg, "types.go"), []byte(src), 0o644))
	}
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// generateCases runs the crd generator in extensions mode on every package
// of the module in dir. It returns the CRDs by API group, every diagnostic
// and package error as a line, and whether the run succeeded.
func generateCases(t *testing.T, dir string) (map[string]map[string]any, []string, bool) {
	t.Helper()
	return generateCasesWith(t, dir, Generator{Immutability: ModeExtensions})
}

// generateCasesWith is generateCases with the generator g.
func generateCasesWith(t *testing.T, dir string, g Generator) (map[string]map[string]any, []string, bool) {
	t.Helper()
	var diags diag.List
	gen := genall.Generator(g.WithReport(func(d diag.List) { diags = append(diags, d...) }).WithServer(apiserver.InProcess{}))
	rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{Dir: dir}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	buf := &output.Buffer{}
	ctx := rt.GenerationContext
	ctx.OutputRule = buf.Rule(genall.OutputToDirectory(dir))
	genErr := gen.Generate(&ctx)
	var lines []string
	for _, d := range diags.Sort() {
		lines = append(lines, d.String())
	}
	failed := genErr != nil
	packages.Visit(rootsOf(rt), nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if e.Kind != packages.TypeError {
				lines = append(lines, e.Error())
				failed = true
			}
		}
	})
	crds := map[string]map[string]any{}
	for _, a := range buf.Artifacts {
		var obj map[string]any
		if err := yaml.Unmarshal(a.Data, &obj); err != nil {
			t.Fatal(err)
		}
		group, _ := nested(obj, "spec", "group").(string)
		crds[strings.TrimSuffix(group, ".example.com")] = obj
	}
	return crds, lines, !failed
}

func rootsOf(rt *genall.Runtime) []*packages.Package {
	var out []*packages.Package
	for _, r := range rt.Roots {
		out = append(out, r.Package)
	}
	return out
}
