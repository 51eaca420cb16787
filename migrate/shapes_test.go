package migrate

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/proofsize"
)

// shapesTypes is an API with the hand-written rules of real projects:
// JobSet (dependsOn, a list map under self == oldSelf inside the items of
// another list map; replicatedJobs immutable unless suspended), Kueue
// (clusterName fixed while set, topologyName set once, a QuotaReserved
// condition reading an optional field without has()), cert-manager (an
// issuer reference), Karpenter (a template with requirements, taints and
// labels), ACK ("Value is immutable once set" on optional fields and
// maps), sets, maps of structs and atomic lists of structs holding list
// maps, key rules on a list map, a defaulted field, free-form content, and
// a presence rule on a parent beside the child's own rule.
const shapesTypes = `package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DependsOn is a dependency.
type DependsOn struct {
	// +kubebuilder:validation:MaxLength=63
	Name string ` + "`json:\"name\"`" + `
	// +kubebuilder:validation:Enum=Ready;Complete
	Status string ` + "`json:\"status\"`" + `
}

// ReplicatedJob is a job.
type ReplicatedJob struct {
	// +kubebuilder:validation:MaxLength=63
	Name string ` + "`json:\"name\"`" + `
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable"
	// +kubebuilder:validation:MaxItems=5
	// +optional
	// +listType=map
	// +listMapKey=name
	DependsOn []DependsOn ` + "`json:\"dependsOn,omitempty\"`" + `
	Replicas int32 ` + "`json:\"replicas\"`" + `
}

// Network is the network.
type Network struct {
	// +optional
	EnableDNSHostnames *bool ` + "`json:\"enableDNSHostnames,omitempty\"`" + `
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Subdomain string ` + "`json:\"subdomain,omitempty\"`" + `
}

// SuccessPolicy is a policy.
type SuccessPolicy struct {
	// +kubebuilder:validation:Enum=All;Any
	Operator string ` + "`json:\"operator\"`" + `
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=63
	// +optional
	TargetReplicatedJobs []string ` + "`json:\"targetReplicatedJobs,omitempty\"`" + `
}

// IssuerRef is a reference (cert-manager).
type IssuerRef struct {
	// +kubebuilder:validation:MaxLength=63
	Name string ` + "`json:\"name\"`" + `
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Kind string ` + "`json:\"kind,omitempty\"`" + `
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Group string ` + "`json:\"group,omitempty\"`" + `
}

// Requirement is a node selector requirement (Karpenter).
type Requirement struct {
	// +kubebuilder:validation:MaxLength=63
	Key string ` + "`json:\"key\"`" + `
	// +kubebuilder:validation:Enum=In;NotIn;Exists
	Operator string ` + "`json:\"operator\"`" + `
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=63
	// +optional
	Values []string ` + "`json:\"values,omitempty\"`" + `
}

// Template is a Karpenter-ish template.
type Template struct {
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Requirements []Requirement ` + "`json:\"requirements,omitempty\"`" + `
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Taints []Taint ` + "`json:\"taints,omitempty\"`" + `
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	Labels map[string]string ` + "`json:\"labels,omitempty\"`" + `
}

// Taint is a taint.
type Taint struct {
	// +kubebuilder:validation:MaxLength=63
	Key string ` + "`json:\"key\"`" + `
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Value string ` + "`json:\"value,omitempty\"`" + `
}

// ThingSpec is the spec.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName",message="clusterName is immutable while set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.topologyName) || self.topologyName == oldSelf.topologyName",message="topologyName is set once"
// +kubebuilder:validation:XValidation:rule="(has(oldSelf.suspend) && oldSelf.suspend) || self.replicatedJobs == oldSelf.replicatedJobs",message="replicatedJobs are immutable unless suspended"
// +kubebuilder:validation:XValidation:rule="has(self.issuerRef) == has(oldSelf.issuerRef)",message="issuerRef may not be added or removed"
type ThingSpec struct {
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	ReplicatedJobs []ReplicatedJob ` + "`json:\"replicatedJobs\"`" + `
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable"
	// +optional
	Network *Network ` + "`json:\"network,omitempty\"`" + `
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable"
	// +optional
	SuccessPolicy *SuccessPolicy ` + "`json:\"successPolicy,omitempty\"`" + `
	// +optional
	Suspend *bool ` + "`json:\"suspend,omitempty\"`" + `
	// +kubebuilder:validation:MaxLength=63
	// +optional
	ClusterName string ` + "`json:\"clusterName,omitempty\"`" + `
	// +kubebuilder:validation:MaxLength=63
	// +optional
	TopologyName string ` + "`json:\"topologyName,omitempty\"`" + `
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="issuerRef is immutable"
	// +optional
	IssuerRef *IssuerRef ` + "`json:\"issuerRef,omitempty\"`" + `
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="template is immutable"
	Template Template ` + "`json:\"template\"`" + `
	// ACK style.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable once set"
	// +kubebuilder:validation:MaxLength=63
	// +optional
	BucketName *string ` + "`json:\"bucketName,omitempty\"`" + `
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable once set"
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	Tags map[string]string ` + "`json:\"tags,omitempty\"`" + `
	// +listType=set
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf"
	// +optional
	Zones []string ` + "`json:\"zones,omitempty\"`" + `
	// +kubebuilder:validation:MaxProperties=3
	// +kubebuilder:validation:XValidation:rule="self == oldSelf"
	// +optional
	Groups map[string]Template ` + "`json:\"groups,omitempty\"`" + `
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:XValidation:rule="self == oldSelf"
	// +optional
	Holders []Holder ` + "`json:\"holders,omitempty\"`" + `
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:XValidation:rule="oldSelf.all(x, self.exists(y, y.name == x.name)) && self.all(x, oldSelf.exists(y, y.name == x.name))"
	// +optional
	Ports []Port ` + "`json:\"ports,omitempty\"`" + `
	// +kubebuilder:default=3
	// +kubebuilder:validation:XValidation:rule="self == oldSelf"
	// +optional
	Shards int32 ` + "`json:\"shards,omitempty\"`" + `
	// +kubebuilder:validation:XValidation:rule="self == oldSelf"
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	Config *runtime.RawExtension ` + "`json:\"config,omitempty\"`" + `
	// +kubebuilder:validation:XValidation:rule="!has(oldSelf.mode) || has(self.mode)",message="mode may not be removed"
	// +optional
	Opts *Opts ` + "`json:\"opts,omitempty\"`" + `
}

// Opts are options.
type Opts struct {
	// +kubebuilder:validation:Enum=Fast;Slow
	// +kubebuilder:validation:XValidation:rule="self == oldSelf"
	// +optional
	Mode string ` + "`json:\"mode,omitempty\"`" + `
}

// Holder holds a list map.
type Holder struct {
	// +kubebuilder:validation:MaxLength=63
	Name string ` + "`json:\"name\"`" + `
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=3
	// +optional
	Taints []Taint ` + "`json:\"taints,omitempty\"`" + `
}

// Port is a port.
type Port struct {
	// +kubebuilder:validation:MaxLength=15
	Name string ` + "`json:\"name\"`" + `
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 ` + "`json:\"port\"`" + `
}

// ThingStatus is the status.
type ThingStatus struct {
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Conditions []metav1.Condition ` + "`json:\"conditions,omitempty\"`" + `
}

// +kubebuilder:object:root=true

// Thing is the kind.
// +kubebuilder:validation:XValidation:rule="!oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') || self.spec.suspend == oldSelf.spec.suspend"
type Thing struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec ThingSpec ` + "`json:\"spec\"`" + `
	// +optional
	Status ThingStatus ` + "`json:\"status,omitempty\"`" + `
}
`

// TestShapes migrates shapesTypes with two seeds: the same rewrites, the
// list maps under self == oldSelf (at any depth) with
// +immutable:ignoreOrder, sets and free-form content without it, every
// rewrite proven, and no difference found by a random update only.
func TestShapes(t *testing.T) {
	// Parallel with the other long proofs of the package (each works in
	// its own directory or in memory), so that this package, the last of
	// the proofs step to finish, uses both cores.
	proofsize.Long(t, "migrates a larger API twice")
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	o := planModule(t, root, planCase{files: map[string]string{"types.go": shapesTypes}})
	o.Updates = 300
	want := map[string]string{
		"ReplicatedJob.DependsOn": "+immutable on ReplicatedJob.DependsOn (+immutable:ignoreOrder) (+immutable:message)",
		"ThingSpec#98":            "+k8s:update=NoModify on ThingSpec.ClusterName (+immutable:message)",
		"ThingSpec#99":            "+immutable=once on ThingSpec.TopologyName (+immutable:message)",
		"ThingSpec#100":           `+immutable on ThingSpec.ReplicatedJobs (+immutable:ignoreOrder) (+immutable:when="!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)") (+immutable:message)`,
		"ThingSpec#101":           "+immutable on ThingSpec.IssuerRef (+immutable:message)",
		"ThingSpec.Network":       "+immutable on ThingSpec.Network (+immutable:message)",
		"ThingSpec.SuccessPolicy": "+immutable on ThingSpec.SuccessPolicy (+immutable:message)",
		"ThingSpec.IssuerRef":     "+immutable on ThingSpec.IssuerRef (+immutable:message)",
		"ThingSpec.Template":      "+immutable on ThingSpec.Template (+immutable:ignoreOrder) (+immutable:message)",
		"ThingSpec.BucketName":    "+immutable on ThingSpec.BucketName (+immutable:message)",
		"ThingSpec.Tags":          "+immutable on ThingSpec.Tags (+immutable:message)",
		"ThingSpec.Zones":         "+immutable on ThingSpec.Zones",
		"ThingSpec.Groups":        "+immutable on ThingSpec.Groups (+immutable:ignoreOrder)",
		"ThingSpec.Holders":       "+immutable on ThingSpec.Holders (+immutable:ignoreOrder)",
		"ThingSpec.Ports":         "+immutable=keys on ThingSpec.Ports, +immutable on its key Port.Name",
		"ThingSpec.Shards":        "+immutable on ThingSpec.Shards",
		"ThingSpec.Config":        "+immutable on ThingSpec.Config",
		"ThingSpec.Opts":          "+immutable=once on Opts.Mode (+immutable:message)",
		"Opts.Mode":               "+immutable=once on Opts.Mode (+immutable:message)",
		"Thing":                   "left: reads spec.suspend without has(), and suspend is optional",
	}
	var first string
	for _, seed := range []uint64{1, 4} {
		o.Seed = seed
		res, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		report := res.Report(root)
		if len(res.Rules) != len(want) {
			t.Fatalf("seed %d: %d rules, want %d:\n%s", seed, len(res.Rules), len(want), report)
		}
		for _, r := range res.Rules {
			key := r.On
			if key == "ThingSpec" {
				key = fmt.Sprintf("%s#%d", key, r.Pos.Line)
			}
			got := r.To
			if !r.Migrated() {
				got = "left: " + r.Reason
			}
			if w, ok := want[key]; !ok || !strings.HasPrefix(got, w) || (!strings.Contains(w, "ignoreOrder") && strings.Contains(got, "ignoreOrder")) {
				t.Errorf("seed %d, %s (%s):\n got %s\nwant %s", seed, key, r.Marker, got, w)
			}
		}
		if !res.Proven() {
			t.Errorf("seed %d: not proven:\n%s", seed, report)
		}
		for _, d := range append(res.Missing, res.Proof.Missing()...) {
			t.Errorf("seed %d: a targeted case missing: %s at %s, old %s, new %s", seed, d.Class, d.Field, js(d.Old), js(d.New))
		}
		if first == "" {
			first = res.Diff
		} else if res.Diff != first {
			t.Errorf("seed %d writes another diff than seed 1:\n%s\n---\n%s", seed, res.Diff, first)
		}
		if t.Failed() {
			t.Logf("seed %d:\n%s\n%s", seed, res.Diff, report)
			return
		}
	}
}
