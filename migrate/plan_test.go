package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/proofsize"
)

// planCase is a small API written for one shape: the rules on the spec
// type and on the kind's root type, and the spec's fields.
type planCase struct {
	name string
	// specRules and rootRules are marker lines (without "// ").
	specRules, rootRules []string
	fields               string
	options              func(*Options)
	// files are more files of the package, by name.
	files map[string]string
	// want is, for each rule (in order), what it became or why it stays
	// (a substring of Rule.To, or of Rule.Reason prefixed with "left: ").
	want []string
	// exclude is a text no rule may have become.
	exclude string
}

const planTypes = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Item is a list map item.
type Item struct {
	// +kubebuilder:validation:MaxLength=15
	Name string ` + "`json:\"name\"`" + `
	// +optional
	Paused bool ` + "`json:\"paused,omitempty\"`" + `
	// +optional
	Size int32 ` + "`json:\"size,omitempty\"`" + `
}

// Ref is a reference.
type Ref struct {
	// +kubebuilder:validation:MaxLength=15
	Group string ` + "`json:\"group\"`" + `
	// +kubebuilder:validation:MaxLength=15
	// +optional
	Name string ` + "`json:\"name,omitempty\"`" + `
}

// ThingStatus is the observed state.
type ThingStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Conditions []metav1.Condition ` + "`json:\"conditions,omitempty\"`" + `
}

%SPECRULES%
type ThingSpec struct {
%FIELDS%
}

// +kubebuilder:object:root=true
%ROOTRULES%
type Thing struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	// +required
	Spec ThingSpec ` + "`json:\"spec\"`" + `
	// +optional
	Status ThingStatus ` + "`json:\"status,omitempty\"`" + `
}
`

const planFields = `	// +kubebuilder:validation:MaxLength=15
	// +optional
	X string ` + "`json:\"x,omitempty\"`" + `
	// +optional
	Paused bool ` + "`json:\"paused,omitempty\"`" + `
	Size int32 ` + "`json:\"size\"`" + `
	// +kubebuilder:validation:MaxLength=15
	// +optional
	Topology string ` + "`json:\"topology,omitempty\"`" + `
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	Labels map[string]string ` + "`json:\"labels,omitempty\"`" + `
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Items []Item ` + "`json:\"items,omitempty\"`" + `
	// +optional
	Ref *Ref ` + "`json:\"ref,omitempty\"`" + `
`

// TestPlan migrates one small API per shape (the forms of issue 22:
// +k8s:update=NoModify, NoSet, +immutable:when; and what stays), through
// the whole command: plan, rewrite, the CRDs before and after, and the
// differential, which must prove each rewrite.
func TestPlan(t *testing.T) {
	t.Parallel() // beside the other long proofs (TestShapes)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const readyWhen = `has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')`
	// The sample keeps a case of each kind of outcome: a validation-gen
	// form written, presence, a condition, a rule left because typed
	// validators cannot compile it (IG047), ignoreOrder on a list map,
	// and a rule left because validation-gen refuses the form there; the
	// other cases (every spelling, every reason) run at full size.
	for _, c := range proofsize.Pick(t, "cases", []planCase{
		{name: "NoModify on the parent",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(oldSelf.x) || !has(self.x) || oldSelf.x == self.x",message="x is fixed while set"`},
			want:      []string{"+k8s:update=NoModify on ThingSpec.X (+immutable:message)"}},
		{name: "NoModify spelled equality first",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="self.x == oldSelf.x || !has(oldSelf.x) || !has(self.x)"`},
			want:      []string{"+k8s:update=NoModify on ThingSpec.X"}},
		{name: "NoModify as a ternary with guards",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="has(oldSelf.x) && has(self.x) ? oldSelf.x == self.x : true"`},
			want:      []string{"+k8s:update=NoModify on ThingSpec.X"}},
		{name: "NoSet and NoModify",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(self.x) || self.x == oldSelf.x"`},
			want:      []string{"+k8s:update=NoSet +k8s:update=NoModify on ThingSpec.X"}},
		{name: "presence alone: NoSet and NoUnset",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="has(self.x) == has(oldSelf.x)",message="x may not be added or removed"`},
			want:      []string{"+k8s:update=NoSet +k8s:update=NoUnset on ThingSpec.X (+immutable:message)"}},
		{name: "presence alone, both absent or both present",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(!has(oldSelf.x) && !has(self.x)) || (has(oldSelf.x) && has(self.x))"`},
			want:      []string{"+k8s:update=NoSet +k8s:update=NoUnset on ThingSpec.X"}},
		{name: "no removal alone: NoUnset",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(oldSelf.x) || has(self.x)"`},
			want:      []string{"+k8s:update=NoUnset on ThingSpec.X"}},
		{name: "no addition alone: NoSet",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(self.x) || has(oldSelf.x)"`},
			want:      []string{"+k8s:update=NoSet on ThingSpec.X"}},
		{name: "absence taken as a default",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(has(oldSelf.x) ? oldSelf.x : '') == (has(self.x) ? self.x : '')"`},
			want:      []string{"left: compares the value with absence taken as a default"}},
		{name: "conditional on the field itself, required",
			fields: strings.Replace(planFields, "\tSize int32 ", "\t// +kubebuilder:validation:XValidation:rule=\"oldSelf == 0 || self == oldSelf\"\n\tSize int32 ", 1),
			want:   []string{`+immutable on ThingSpec.Size (+immutable:when="!(oldSelf.spec.size == 0)")`}},
		{name: "conditional on the field itself, optional",
			fields: strings.Replace(planFields, "\tX string ", "\t// +kubebuilder:validation:XValidation:rule=\"oldSelf == '' || self == oldSelf\"\n\tX string ", 1),
			want:   []string{"left: conditional, on spec.x itself, which is optional"}},
		{name: "conditional on the parent, condition rebased",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(has(oldSelf.paused) && oldSelf.paused) || self.size == oldSelf.size"`},
			want:      []string{`+immutable on ThingSpec.Size (+immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)")`}},
		{name: "conditional ternary on the root, guards become NoModify",
			rootRules: []string{`+kubebuilder:validation:XValidation:rule="(` + readyWhen + `) && has(oldSelf.spec.x) && has(self.spec.x) ? oldSelf.spec.x == self.spec.x : true",message="x is fixed while ready"`},
			want:      []string{"+k8s:update=NoModify on ThingSpec.X (+immutable:when=`has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == \"Ready\" && c.status == \"True\")`) (+immutable:message)"}},
		{name: "conditional presence and value (Kueue nodeLabels)",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(oldSelf.topology) || (has(self.labels) == has(oldSelf.labels) && (!has(self.labels) || self.labels == oldSelf.labels))"`},
			want:      []string{`+immutable on ThingSpec.Labels (+immutable:when="has(oldSelf.spec.topology)")`}},
		{name: "conditional set once",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(has(oldSelf.paused) && oldSelf.paused) || !has(oldSelf.x) || self.x == oldSelf.x"`},
			want:      []string{`+immutable=once on ThingSpec.X (+immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)")`}},
		// The condition reads the optional paused without has(): the crd
		// generator refuses such a condition (IG046), so migrate writes
		// no marker it would refuse and leaves the rule, with the reason.
		{name: "conditional set once, the condition unguarded",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="oldSelf.paused || !has(oldSelf.x) || self.x == oldSelf.x"`},
			want:      []string{`left: the marker it would become is refused: the condition reads oldSelf.spec.paused, and oldSelf.spec.paused is optional`}},
		{name: "conditional child of a guarded parent",
			rootRules: []string{`+kubebuilder:validation:XValidation:rule="(` + readyWhen + `) && has(oldSelf.spec.ref) && has(self.spec.ref) ? oldSelf.spec.ref.group == self.spec.ref.group : true"`},
			want:      []string{"+immutable on Ref.Group (+immutable:when="}},
		{name: "conditional child of a guarded parent, the child optional",
			rootRules: []string{`+kubebuilder:validation:XValidation:rule="(` + readyWhen + `) && has(oldSelf.spec.ref) && has(self.spec.ref) ? oldSelf.spec.ref.name == self.spec.ref.name : true"`},
			want:      []string{"left: reads spec.ref.name without has(), and name is optional: the rule fails (\"no such key\") where it is absent and refuses every such update on which its condition holds"}},
		{name: "conditional rule on the item type (IG026)",
			files:  map[string]string{"item.go": "package v1\n\n// Other is a list item.\n// +kubebuilder:validation:XValidation:rule=\"oldSelf.paused || self.size == oldSelf.size\"\ntype Other struct {\n\t// +kubebuilder:validation:MaxLength=15\n\tName string `json:\"name\"`\n\t// +optional\n\tPaused bool `json:\"paused,omitempty\"`\n\tSize int32 `json:\"size\"`\n}\n"},
			fields: planFields + "\t// +listType=map\n\t// +listMapKey=name\n\t// +kubebuilder:validation:MaxItems=4\n\t// +optional\n\tOthers []Other `json:\"others,omitempty\"`\n",
			want:   []string{"left: conditional, on spec.others[], inside a list or map: +immutable:when's condition sees the whole objects and cannot say which item or value it is about (IG026)"}},
		{name: "conditional, the packages use typed validators (--validators=yes): they compile the condition",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(has(oldSelf.paused) && oldSelf.paused) || self.size == oldSelf.size"`},
			options:   func(o *Options) { o.Validators = ValidatorsYes },
			want:      []string{`+immutable on ThingSpec.Size (+immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)")`}},
		{name: "conditional, typed validators found",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(has(oldSelf.paused) && oldSelf.paused) || self.size == oldSelf.size"`},
			files:     map[string]string{"zz_generated.immutable.go": "package v1\n"},
			want:      []string{`+immutable on ThingSpec.Size (+immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)")`}},
		{name: "conditional on a list map compared whole, typed validators used: they cannot compile it (IG047), the rule stays",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(has(oldSelf.items) && oldSelf.items == []) || self.size == oldSelf.size"`},
			options:   func(o *Options) { o.Validators = ValidatorsYes },
			want:      []string{`left: the marker it would become is refused: the typed validators cannot check spec.size under its condition`}},
		{name: "conditional on a list map compared whole, no typed validators: written",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="(has(oldSelf.items) && oldSelf.items == []) || self.size == oldSelf.size"`},
			want:      []string{`+immutable on ThingSpec.Size (+immutable:when=`}},
		// Karpenter's NodeClassReference: a rule on one use of a shared
		// type becomes a marker on the type's field where every other use
		// is fixed already (there it is redundant), and stays otherwise.
		{name: "shared type, the other use fixed whole",
			fields: strings.Replace(planFields, "\tRef *Ref ", "\t// +kubebuilder:validation:XValidation:rule=\"self.group == oldSelf.group\"\n\tRef *Ref ", 1) +
				"\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n\t// +optional\n\tPinned *Ref `json:\"pinned,omitempty\"`\n",
			want: []string{"+immutable on Ref.Group", "on ThingSpec.Pinned"}},
		{name: "shared type, the other use free",
			fields: strings.Replace(planFields, "\tRef *Ref ", "\t// +kubebuilder:validation:XValidation:rule=\"self.group == oldSelf.group\"\n\tRef *Ref ", 1) +
				"\t// +optional\n\tPinned *Ref `json:\"pinned,omitempty\"`\n",
			want: []string{"left: names group of ThingSpec.Ref, whose type Ref is used by 2 fields: a marker on its field would reach all of them, and at things.plan.example.com v1 spec.pinned nothing fixes it already"}},
		{name: "unconditional forms are written with typed validators too",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(oldSelf.x) || !has(self.x) || oldSelf.x == self.x"`},
			options:   func(o *Options) { o.Validators = ValidatorsYes },
			want:      []string{"+k8s:update=NoModify on ThingSpec.X"}},
		{name: "two conditions on one field",
			specRules: []string{
				`+kubebuilder:validation:XValidation:rule="oldSelf.paused || self.size == oldSelf.size"`,
				`+kubebuilder:validation:XValidation:rule="has(oldSelf.topology) || has(self.size) == has(oldSelf.size)"`,
			},
			want: []string{"left: the rules about it hold under different conditions", "left: the rules about it hold under different conditions"}},
		{name: "a condition comparing self and oldSelf",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="self.paused == oldSelf.paused || self.size == oldSelf.size"`},
			want:      []string{"left: a conditional rule whose condition cannot be separated"}},
		{name: "immutability both unconditional and conditional in one rule",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="self.size == oldSelf.size && (oldSelf.paused || self.topology == oldSelf.topology)"`},
			want:      []string{"left: holds immutability both unconditionally and under a condition"}},
		{name: "keys may be added, not removed (NoRemoveItem alone)",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="oldSelf.labels.all(k, k in self.labels)",fieldPath=".labels"`},
			want:      []string{"left: reads spec.labels without has(), and labels is optional"}},
		{name: "self == oldSelf on a list map (JobSet dependsOn): ignoreOrder",
			fields: strings.Replace(planFields, "\t// +listType=map\n\t// +listMapKey=name\n", "\t// +listType=map\n\t// +listMapKey=name\n\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n", 1),
			want:   []string{"+immutable on ThingSpec.Items (+immutable:ignoreOrder)"}},
		{name: "self == oldSelf with the keys compared in order on a list map: +immutable, in order",
			fields:  strings.Replace(planFields, "\t// +listType=map\n\t// +listMapKey=name\n", "\t// +listType=map\n\t// +listMapKey=name\n\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf && self.map(x, x.name) == oldSelf.map(x, x.name)\"\n", 1),
			want:    []string{"+immutable on ThingSpec.Items"},
			exclude: "ignoreOrder"},
		{name: "self == oldSelf on a struct with list maps two levels below: ignoreOrder",
			files:  map[string]string{"group.go": "package v1\n\n// Group holds Inner.\ntype Group struct {\n\tInner Inner `json:\"inner\"`\n}\n\n// Inner holds a list map.\ntype Inner struct {\n\t// +listType=map\n\t// +listMapKey=name\n\t// +kubebuilder:validation:MaxItems=4\n\t// +optional\n\tDeps []Item `json:\"deps,omitempty\"`\n}\n"},
			fields: planFields + "\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n\t// +optional\n\tGroup *Group `json:\"group,omitempty\"`\n",
			want:   []string{"+immutable on ThingSpec.Group (+immutable:ignoreOrder)"}},
		{name: "NoModify on a list map: left, validation-gen refuses it there",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(oldSelf.items) || !has(self.items) || oldSelf.items == self.items"`},
			want:      []string{"left: fixed while present (+k8s:update=NoModify) on a list or map: validation-gen refuses NoModify there"}},
		{name: "set once on a list map: ignoreOrder",
			specRules: []string{`+kubebuilder:validation:XValidation:rule="!has(oldSelf.items) || self.items == oldSelf.items"`},
			want:      []string{"+immutable=once on ThingSpec.Items (+immutable:ignoreOrder)"}},
		{name: "self == oldSelf on a set and on an atomic list: no ignoreOrder",
			fields:  planFields + "\t// +listType=set\n\t// +kubebuilder:validation:MaxItems=4\n\t// +kubebuilder:validation:items:MaxLength=15\n\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n\tTags []string `json:\"tags\"`\n\t// +kubebuilder:validation:MaxItems=4\n\t// +kubebuilder:validation:items:MaxLength=15\n\t// +kubebuilder:validation:XValidation:rule=\"self == oldSelf\"\n\tArgs []string `json:\"args\"`\n",
			want:    []string{"+immutable on ThingSpec.Tags", "+immutable on ThingSpec.Args"},
			exclude: "ignoreOrder"},
		{name: "keys may be added, not removed, on the field",
			fields: strings.Replace(planFields, "\t// +kubebuilder:validation:MaxProperties=4\n", "\t// +kubebuilder:validation:MaxProperties=4\n\t// +kubebuilder:validation:XValidation:rule=\"oldSelf.all(k, k in self)\"\n", 1),
			want:   []string{"left: keys may be added, not removed: no marker form means that"}},
	}, 0, 4, 9, 21, 30, 33) {
		t.Run(c.name, func(t *testing.T) {
			o := planModule(t, root, c)
			res, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			report := res.Report(root)
			if len(res.Rules) != len(c.want) {
				t.Fatalf("%d rules, want %d:\n%s", len(res.Rules), len(c.want), report)
			}
			for i, r := range res.Rules {
				got := r.To
				if !r.Migrated() {
					got = "left: " + r.Reason
				}
				if !strings.Contains(got, c.want[i]) {
					t.Errorf("rule %d (%s):\n got %s\nwant %s", i, r.Marker, got, c.want[i])
				}
				if c.exclude != "" && strings.Contains(r.To, c.exclude) {
					t.Errorf("rule %d (%s) became %s, with %s", i, r.Marker, r.To, c.exclude)
				}
			}
			if !res.Proven() {
				t.Errorf("not proven:\n%s", report)
			}
			for _, d := range append(res.Missing, res.Proof.Missing()...) {
				t.Errorf("a targeted case missing: %s at %s, old %s, new %s", d.Class, d.Field, js(d.Old), js(d.New))
			}
			if t.Failed() {
				t.Logf("%s\n%s", res.Diff, report)
			}
		})
	}
}

// planModule writes c's package into a directory of the module (for its
// imports; removed after the test) and returns the options that migrate
// it, with c's options applied.
func planModule(t *testing.T, root string, c planCase) Options {
	t.Helper()
	// Inside the module, for its imports; removed after.
	parent := filepath.Join(root, "migrate", "testdata")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(parent, "plan-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Remove(parent) // when empty
	})
	comment := func(lines []string) string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString("// " + l + "\n")
		}
		return b.String()
	}
	fields := c.fields
	if fields == "" {
		fields = planFields
	}
	src := strings.NewReplacer("%SPECRULES%", "// ThingSpec is the desired state.\n"+comment(c.specRules), "%ROOTRULES%", "\n// Thing is the kind.\n"+comment(c.rootRules), "%FIELDS%", fields).Replace(planTypes)
	files := map[string]string{"types.go": src, "doc.go": "// +groupName=plan.example.com\npackage v1\n"}
	for n, s := range c.files {
		files[n] = s
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel, _ := filepath.Rel(root, dir)
	o := Options{Dir: root, Paths: []string{"./" + filepath.ToSlash(rel)}, Updates: proofsize.Of(t, "random updates per CRD version", 200, 20)}
	if c.options != nil {
		c.options(&o)
	}
	return o
}
