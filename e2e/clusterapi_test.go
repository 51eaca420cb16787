package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// clusterAPI is cluster-api's API module, from the Go module proxy at the
// pinned version: the newest release served when this test was written.
// Its core/v1beta2 uses encoding/json's omitzero throughout (structs
// holding slices and maps, object references).
const clusterAPI = "sigs.k8s.io/cluster-api/api@v1.14.2"

// clusterAPIWebhooks is the module of cluster-api's admission webhooks
// (core/webhooks/admission, importable), the same release.
const clusterAPIWebhooks = "sigs.k8s.io/cluster-api v1.14.2"

// TestValidatorsClusterAPI runs validatorsCopy on cluster-api's v1beta2
// API packages — core (Cluster, ClusterClass, Machine, MachineSet,
// MachineDeployment, MachinePool, MachineHealthCheck, MachineDrainRule),
// addons (ClusterResourceSet, ClusterResourceSetBinding) and ipam
// (IPAddress, IPAddressClaim) — with markers where cluster-api's admission
// webhooks (sigs.k8s.io/cluster-api core/webhooks/admission) keep fields
// fixed: every marked kind generates, compiles, and its typed verdicts are
// the runtime's on random updates. On the same kind of random updates of
// the kinds whose webhooks check the marked fields, the typed verdict on
// each marked field is the webhook's (cluster-api's own code, imported in
// the copy): a disagreement fails the test.
func TestValidatorsClusterAPI(t *testing.T) {
	t.Parallel() // after the tests that serve an API server or set variables, beside the other long ones
	api := moduleDir(t, clusterAPI)
	for _, p := range []struct {
		dir      string
		markers  map[string][]insertion
		webhooks string
	}{
		{"core", clusterAPIMarkers, clusterAPICoreWebhooks},
		{"addons", clusterAPIAddonsMarkers, clusterAPIAddonsWebhooks},
		{"ipam", clusterAPIIPAMMarkers, clusterAPIIPAMWebhooks},
	} {
		t.Run(p.dir, func(t *testing.T) {
			out := validatorsCopy(t, typedCopy{
				src:      filepath.Join(api, p.dir, "v1beta2"),
				markers:  p.markers,
				perKind:  600,
				requires: []string{strings.Replace(clusterAPI, "@", " ", 1), clusterAPIWebhooks},
				tests:    map[string]string{"harness_e2e_test.go": clusterAPIWebhookHarness, "webhooks_e2e_test.go": p.webhooks},
			})
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "webhook agrees") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}

// clusterAPIMarkers are the markers added to cluster-api's core/v1beta2,
// per file: before the given line. Each is a check of cluster-api's
// webhooks on update:
//   - Machine, MachineSet, MachineDeployment, MachinePool and
//     MachineHealthCheck: spec.clusterName "field is immutable" (the
//     Machine's marker is on MachineSpec, which the templates of MachineSet,
//     MachineDeployment and MachinePool hold too; their webhooks require the
//     template's clusterName to equal spec.clusterName);
//   - Cluster: spec.infrastructureRef, spec.controlPlaneRef and
//     spec.topology "cannot be removed" (+k8s:update=NoUnset), the webhook
//     deciding by IsDefined, which is "not zero" for the first two and
//     "not deep-equal to the zero value" for the topology: encoding/json's
//     omitzero on these types;
//   - ClusterClass: its webhook refuses removing a machine deployment class
//     while a Cluster uses it; the marker keeps every class
//     (+immutable=keys), a stricter form of the same check, which the
//     webhook cannot make without reading Clusters.
//
// MachineDrainRule has no update check in the webhooks and no marker.
var clusterAPIMarkers = map[string][]insertion{
	"machine_types.go": {
		{"\tClusterName string `json:\"clusterName,omitempty\"`", "\t// +immutable"},
	},
	"machineset_types.go": {
		{"\tClusterName string `json:\"clusterName,omitempty\"`", "\t// +immutable"},
	},
	"machinedeployment_types.go": {
		{"\tClusterName string `json:\"clusterName,omitempty\"`", "\t// +immutable"},
	},
	"machinepool_types.go": {
		{"\tClusterName string `json:\"clusterName,omitempty\"`", "\t// +immutable"},
	},
	"machinehealthcheck_types.go": {
		{"\tClusterName string `json:\"clusterName,omitempty\"`", "\t// +immutable"},
	},
	"cluster_types.go": {
		{"\tControlPlaneRef ContractVersionedObjectReference `json:\"controlPlaneRef,omitempty,omitzero\"`", "\t// +k8s:update=NoUnset"},
		{"\tInfrastructureRef ContractVersionedObjectReference `json:\"infrastructureRef,omitempty,omitzero\"`", "\t// +k8s:update=NoUnset"},
		{"\tTopology Topology `json:\"topology,omitempty,omitzero\"`", "\t// +k8s:update=NoUnset"},
	},
	"clusterclass_types.go": {
		{"\tMachineDeployments []MachineDeploymentClass `json:\"machineDeployments,omitempty\"`", "\t// +immutable=keys"},
		// The list map's key, which =keys needs immutable (the first
		// class field of the file is MachineDeploymentClass's).
		{"\tClass string `json:\"class,omitempty\"`", "\t// +immutable"},
	},
}

// clusterAPIWebhookHarness is written into the copy beside the generated
// check (same package, its describe and validated): webhookCheck makes
// random updates from a CRD schema as the check does, decodes them into the
// copy's kind and into cluster-api's own (the webhooks' types), and on each
// marked path the typed validator must report an error exactly when the
// webhook does. The webhooks run as cluster-api registers them, with its
// default feature gates (ClusterTopology off: the Cluster webhook then
// refuses a topology without reading ClusterClasses).
const clusterAPIWebhookHarness = `package PKG_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
)

// webhookPaths reports the marked paths among the webhook's errors.
func webhookPaths(err error, marked map[string]string) map[string]bool {
	got := map[string]bool{}
	if err == nil {
		return got
	}
	var fe *field.Error
	var se *apierrors.StatusError
	switch {
	case errors.As(err, &fe):
		if strings.Contains(fe.Detail, marked[fe.Field]) && marked[fe.Field] != "" {
			got[fe.Field] = true
		}
	case errors.As(err, &se) && se.ErrStatus.Details != nil:
		for _, c := range se.ErrStatus.Details.Causes {
			if want, ok := marked[c.Field]; ok && strings.Contains(c.Message, want) {
				got[c.Field] = true
			}
		}
	}
	return got
}

// missesRequired reports whether a required property is absent from v or
// from a value below it, by the schema s.
func missesRequired(s map[string]any, v any) bool {
	switch v := v.(type) {
	case map[string]any:
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := v[r.(string)]; !ok {
				return true
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, c := range v {
			if ps, ok := props[k].(map[string]any); ok && missesRequired(ps, c) {
				return true
			}
			if as, ok := s["additionalProperties"].(map[string]any); ok && missesRequired(as, c) {
				return true
			}
		}
	case []any:
		if is, ok := s["items"].(map[string]any); ok {
			for _, c := range v {
				if missesRequired(is, c) {
					return true
				}
			}
		}
	}
	return false
}

func webhookCheck[T any, PT validated[T], W any](t *testing.T, kind, crdFile string, n int, marked map[string]string, validate func(old, obj *W) (cradmission.Warnings, error)) {
	manifest, err := os.ReadFile(filepath.Join("..", "..", "crds", crdFile))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Group    string
			Versions []struct {
				Name    string
				Storage bool
				Schema  struct{ OpenAPIV3Schema map[string]any }
			}
		}
	}
	if err := yaml.Unmarshal(manifest, &crd); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	var version string
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			schema, version = v.Schema.OpenAPIV3Schema, v.Name
		}
	}
	props := map[string]any{}
	for k, v := range schema["properties"].(map[string]any) {
		if k != "metadata" && k != "apiVersion" && k != "kind" {
			props[k] = v
		}
	}
	// The root's required properties (spec) stay required: the API
	// server refuses an object without them, which no webhook sees.
	var required []any
	for _, r := range schema["required"].([]any) {
		if r != "metadata" && r != "apiVersion" && r != "kind" {
			required = append(required, r)
		}
	}
	wrapped := map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": props, "required": required}}}
	// decode turns generated content into the copy's typed object and
	// cluster-api's, both decoded from the JSON of the copy's typed object
	// (what a Go client sends and the server stores).
	decode := func(content any) (PT, *W, bool) {
		obj := map[string]any{}
		for k, v := range content.(map[string]any) {
			obj[k] = v
		}
		obj["apiVersion"], obj["kind"], obj["metadata"] = crd.Spec.Group+"/"+version, kind, map[string]any{"name": "x", "namespace": "default"}
		data, _ := json.Marshal(obj)
		var x T
		if err := json.Unmarshal(data, &x); err != nil {
			return nil, nil, false
		}
		data, err := json.Marshal(&x)
		if err != nil {
			return nil, nil, false
		}
		// Without a required property, at any depth (a zero spec is left
		// out by omitzero; a required string left empty by omitempty), the
		// API server refuses the object: no webhook sees it.
		var m map[string]any
		if err := utiljson.Unmarshal(data, &m); err != nil {
			return nil, nil, false
		}
		for _, r := range required {
			if _, ok := m[r.(string)]; !ok {
				return nil, nil, false
			}
		}
		if missesRequired(schema, m) {
			return nil, nil, false
		}
		// What a webhook gets is that JSON, decoded: both the copy's kind
		// and cluster-api's are decoded from it. (Decoding can lose what
		// omitzero saw: {"matchLabels":{}} is written {} and read back
		// as the zero selector, which omitzero then leaves out.)
		var y T
		if err := json.Unmarshal(data, &y); err != nil {
			return nil, nil, false
		}
		var w W
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, nil, false
		}
		return PT(&y), &w, true
	}
	updates, refused, disagreements, panics, skipped := 0, 0, 0, 0, 0
	for seed := range uint64(n) {
		g := preflighttest.New(wrapped, seed)
		g.Invalid = 0
		content := g.Spec()
		if _, ok := content.(map[string]any); !ok {
			continue
		}
		changed, _ := g.Mutate(content)
		if _, ok := changed.(map[string]any); !ok {
			continue
		}
		old, wold, ok1 := decode(content)
		obj, wobj, ok2 := decode(changed)
		if !ok1 || !ok2 {
			skipped++
			continue
		}
		var werr error
		panicked := func() (p bool) {
			defer func() {
				if recover() != nil {
					p = true
				}
			}()
			_, werr = validate(wold, wobj)
			return false
		}()
		if panicked {
			panics++
			continue
		}
		updates++
		webhook := webhookPaths(werr, marked)
		typed := map[string]bool{}
		for _, e := range obj.ValidateImmutableUpdate((*T)(old)) {
			if _, ok := marked[e.Field]; ok {
				typed[e.Field] = true
			}
		}
		if len(webhook) > 0 {
			refused++
		}
		if fmt.Sprint(webhook) != fmt.Sprint(typed) {
			disagreements++
			if disagreements <= 3 {
				a, _ := json.Marshal(old)
				b, _ := json.Marshal(obj)
				c, _ := json.Marshal(wold)
				d, _ := json.Marshal(wobj)
				t.Errorf("%s seed %d: the webhook refuses %v, the typed validator %v (webhook: %v)\nold %s\nnew %s\nwold %s\nwnew %s", kind, seed, webhook, typed, werr, a, b, c, d)
			}
		}
	}
	fmt.Printf("%s: the webhook agrees on %d of %d updates (%d refused on a marked field; %d not decodable or refused by the schema, %d panicked in the webhook: not counted)\n", kind, updates-disagreements, updates, refused, skipped, panics)
	if updates == 0 {
		t.Errorf("%s: no update could be decoded", kind)
	}
}
`

// clusterAPICoreWebhooks checks the webhooks of core/v1beta2's kinds.
const clusterAPICoreWebhooks = `package PKG_test

import (
	"context"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/core/webhooks/admission"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	v1 "example.com/typedcopy/apis/v1"
)

func TestWebhooks(t *testing.T) {
	ctx := context.Background()
	const n = 1000
	clusterName := map[string]string{"spec.clusterName": "field is immutable"}
	t.Run("Machine", func(t *testing.T) {
		webhookCheck[v1.Machine](t, "Machine", "cluster.x-k8s.io_machines.yaml", n, clusterName, func(old, obj *clusterv1.Machine) (cradmission.Warnings, error) {
			return (&admission.Machine{}).ValidateUpdate(ctx, old, obj)
		})
	})
	t.Run("MachineSet", func(t *testing.T) {
		webhookCheck[v1.MachineSet](t, "MachineSet", "cluster.x-k8s.io_machinesets.yaml", n, clusterName, func(old, obj *clusterv1.MachineSet) (cradmission.Warnings, error) {
			return (&admission.MachineSet{}).ValidateUpdate(ctx, old, obj)
		})
	})
	t.Run("MachineDeployment", func(t *testing.T) {
		webhookCheck[v1.MachineDeployment](t, "MachineDeployment", "cluster.x-k8s.io_machinedeployments.yaml", n, clusterName, func(old, obj *clusterv1.MachineDeployment) (cradmission.Warnings, error) {
			return (&admission.MachineDeployment{}).ValidateUpdate(ctx, old, obj)
		})
	})
	t.Run("MachinePool", func(t *testing.T) {
		webhookCheck[v1.MachinePool](t, "MachinePool", "cluster.x-k8s.io_machinepools.yaml", n, clusterName, func(old, obj *clusterv1.MachinePool) (cradmission.Warnings, error) {
			return (&admission.MachinePool{}).ValidateUpdate(ctx, old, obj)
		})
	})
	t.Run("MachineHealthCheck", func(t *testing.T) {
		webhookCheck[v1.MachineHealthCheck](t, "MachineHealthCheck", "cluster.x-k8s.io_machinehealthchecks.yaml", n, clusterName, func(old, obj *clusterv1.MachineHealthCheck) (cradmission.Warnings, error) {
			return (&admission.MachineHealthCheck{}).ValidateUpdate(ctx, old, obj)
		})
	})
	t.Run("Cluster", func(t *testing.T) {
		removed := map[string]string{
			"spec.infrastructureRef": "cannot be removed",
			"spec.controlPlaneRef":   "cannot be removed",
			"spec.topology":          "cannot be removed",
		}
		webhookCheck[v1.Cluster](t, "Cluster", "cluster.x-k8s.io_clusters.yaml", n, removed, func(old, obj *clusterv1.Cluster) (cradmission.Warnings, error) {
			return (&admission.Cluster{}).ValidateUpdate(ctx, old, obj)
		})
	})
}
`

// clusterAPIAddonsMarkers are the markers of addons/v1beta2, each a check
// of its webhooks on update: ClusterResourceSet's spec.clusterSelector
// "field is immutable" (reflect.DeepEqual of the selectors: +immutable)
// and spec.strategy "field is immutable" once set (+immutable=once: the
// webhook lets an empty strategy be set); ClusterResourceSetBinding's
// spec.clusterName, once set (+immutable=once).
var clusterAPIAddonsMarkers = map[string][]insertion{
	"clusterresourceset_types.go": {
		{"\tClusterSelector metav1.LabelSelector `json:\"clusterSelector,omitempty,omitzero\"`", "\t// +immutable"},
		{"\tStrategy string `json:\"strategy,omitempty\"`", "\t// +immutable=once"},
	},
	"clusterresourcesetbinding_types.go": {
		{"\tClusterName string `json:\"clusterName,omitempty\"`", "\t// +immutable=once"},
	},
}

// clusterAPIAddonsWebhooks checks the webhooks of addons/v1beta2's kinds.
const clusterAPIAddonsWebhooks = `package PKG_test

import (
	"context"
	"testing"

	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	"sigs.k8s.io/cluster-api/core/webhooks/admission"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	v1 "example.com/typedcopy/apis/v1"
)

func TestWebhooks(t *testing.T) {
	ctx := context.Background()
	const n = 1000
	t.Run("ClusterResourceSet", func(t *testing.T) {
		marked := map[string]string{"spec.clusterSelector": "field is immutable", "spec.strategy": "field is immutable"}
		webhookCheck[v1.ClusterResourceSet](t, "ClusterResourceSet", "addons.cluster.x-k8s.io_clusterresourcesets.yaml", n, marked, func(old, obj *addonsv1.ClusterResourceSet) (cradmission.Warnings, error) {
			return (&admission.ClusterResourceSet{}).ValidateUpdate(ctx, old, obj)
		})
	})
	t.Run("ClusterResourceSetBinding", func(t *testing.T) {
		marked := map[string]string{"spec.clusterName": "field is immutable"}
		webhookCheck[v1.ClusterResourceSetBinding](t, "ClusterResourceSetBinding", "addons.cluster.x-k8s.io_clusterresourcesetbindings.yaml", n, marked, func(old, obj *addonsv1.ClusterResourceSetBinding) (cradmission.Warnings, error) {
			return (&admission.ClusterResourceSetBinding{}).ValidateUpdate(ctx, old, obj)
		})
	})
}
`

// clusterAPIIPAMMarkers are the markers of ipam/v1beta2: IPAddress's and
// IPAddressClaim's webhooks refuse any change of spec ("spec is
// immutable", comparing the Go values): +immutable on spec.
var clusterAPIIPAMMarkers = map[string][]insertion{
	"ipaddress_types.go": {
		{"\tSpec IPAddressSpec `json:\"spec,omitempty,omitzero\"`", "\t// +immutable"},
	},
	"ipaddressclaim_types.go": {
		{"\tSpec IPAddressClaimSpec `json:\"spec,omitempty,omitzero\"`", "\t// +immutable"},
	},
}

// clusterAPIIPAMWebhooks checks the webhooks of ipam/v1beta2's kinds.
const clusterAPIIPAMWebhooks = `package PKG_test

import (
	"context"
	"testing"

	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/cluster-api/core/webhooks/admission"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	v1 "example.com/typedcopy/apis/v1"
)

func TestWebhooks(t *testing.T) {
	ctx := context.Background()
	const n = 1000
	t.Run("IPAddress", func(t *testing.T) {
		marked := map[string]string{"spec": "IPAddress spec is immutable"}
		webhookCheck[v1.IPAddress](t, "IPAddress", "ipam.cluster.x-k8s.io_ipaddresses.yaml", n, marked, func(old, obj *ipamv1.IPAddress) (cradmission.Warnings, error) {
			return (&admission.IPAddress{}).ValidateUpdate(ctx, old, obj)
		})
	})
	t.Run("IPAddressClaim", func(t *testing.T) {
		marked := map[string]string{"spec": "IPAddressClaim spec is immutable"}
		webhookCheck[v1.IPAddressClaim](t, "IPAddressClaim", "ipam.cluster.x-k8s.io_ipaddressclaims.yaml", n, marked, func(old, obj *ipamv1.IPAddressClaim) (cradmission.Warnings, error) {
			return (&admission.IPAddressClaim{}).ValidateUpdate(ctx, old, obj)
		})
	})
}
`
