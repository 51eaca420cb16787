package e2e

import (
	"path/filepath"
	"testing"
)

// clusterAPI is cluster-api's API module, from the Go module proxy at the
// pinned version: the newest release served when this test was written.
// Its core/v1beta2 uses encoding/json's omitzero throughout (structs
// holding slices and maps, object references).
const clusterAPI = "sigs.k8s.io/cluster-api/api@v1.14.2"

// TestValidatorsClusterAPI runs validatorsCopy on cluster-api's
// core/v1beta2 (Cluster, ClusterClass, Machine, MachineSet,
// MachineDeployment, MachinePool, MachineHealthCheck, MachineDrainRule),
// with markers where cluster-api's admission webhooks
// (sigs.k8s.io/cluster-api core/webhooks/admission) keep fields fixed:
// every marked kind generates, compiles, and its typed verdicts are the
// runtime's on random updates.
func TestValidatorsClusterAPI(t *testing.T) {
	src := filepath.Join(moduleDir(t, clusterAPI), "core", "v1beta2")
	validatorsCopy(t, typedCopy{
		src:      src,
		markers:  clusterAPIMarkers,
		perKind:  300,
		requires: []string{"sigs.k8s.io/cluster-api/api v1.14.2"},
	})
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
