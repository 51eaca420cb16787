package e2e

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// snapshots is the +immutable=once test API: set-once fields of every shape
// and +immutable:message beside each form (testdata/apis/crd/once/v1).
var snapshots = &kind{
	name:           "Snapshots",
	crdFile:        "../testdata/golden/crd/once/once.example.com_snapshots.yaml",
	extensionsFile: "../testdata/golden/crd/once-extensions/once.example.com_snapshots.yaml",
	apiGroup:       "once.example.com/v1",
	kindName:       "Snapshot",
	base: `
source: vol-a                 # +immutable, required; message "source is immutable"
class: fast                   # +immutable=once, required: immutable
volumeHandle: h-1             # +immutable=once; message "volumeHandle may not change once set"
endpoint: {host: db}          # type Endpoint +immutable=once
zones: [a, b]                 # +listType=set +immutable=once
ports:                        # list map; Port.nodePort +immutable=once
- {name: http, nodePort: 30080}
- {name: grpc}
disks: [{name: d0, serial: s0}, {name: d1}]   # atomic list; Disk.serial +immutable=once
labels: {team: red}           # map +immutable=keys; message "labels may not be added or removed"
note: first                   # mutable
`,
}

const (
	onceMsg       = "field is immutable once set"
	volumeMsg     = "volumeHandle may not change once set"
	onceRemoveMsg = "is immutable once set: it may not be removed"
)

func onceInvalid(field, msg string) cause {
	return cause{metav1.CauseTypeFieldValueInvalid, field, msg}
}

var snapshotCases = []tcase{
	{
		name: "source: +immutable with a message",
		updates: []update{
			{name: "change the mutable note", patch: `spec: {note: second}`},
			{name: "change source", patch: `spec: {source: vol-b}`, want: []cause{onceInvalid("spec.source", "source is immutable")}},
		},
	},
	{
		name: "class: required +immutable=once is immutable",
		updates: []update{
			{name: "change class", patch: `spec: {class: slow}`, want: []cause{onceInvalid("spec.class", onceMsg)}},
		},
	},
	{
		name: "volumeHandle: +immutable=once scalar with a message, set",
		updates: []update{
			{name: "change it", patch: `spec: {volumeHandle: h-2}`, want: []cause{onceInvalid("spec.volumeHandle", volumeMsg)}},
			{name: "remove it", patch: `spec: {volumeHandle: null}`, want: []cause{forbidden("spec.volumeHandle", volumeMsg)}},
		},
	},
	{
		name: "volumeHandle: +immutable=once scalar, absent at create",
		from: `spec: {volumeHandle: null}`,
		updates: []update{
			{name: "leave it absent", patch: `spec: {note: second}`},
			{name: "set it later", patch: `spec: {volumeHandle: h-9}`},
			{name: "set it later to the empty string", patch: `spec: {volumeHandle: ""}`},
		},
	},
	{
		name: "endpoint: +immutable=once struct, set",
		updates: []update{
			{name: "change a field inside", patch: `spec: {endpoint: {host: db2}}`, want: []cause{onceInvalid("spec.endpoint", onceMsg)}},
			{name: "add a field inside", patch: `spec: {endpoint: {port: 5432}}`, want: []cause{onceInvalid("spec.endpoint", onceMsg)}},
			{name: "remove it", patch: `spec: {endpoint: null}`, want: []cause{forbidden("spec.endpoint", "endpoint "+onceRemoveMsg)}},
		},
	},
	{
		name: "endpoint: +immutable=once struct, absent at create",
		from: `spec: {endpoint: null}`,
		updates: []update{
			{name: "set it later", patch: `spec: {endpoint: {host: db, port: 5432}}`},
		},
	},
	{
		name: "zones: +immutable=once set, set",
		updates: []update{
			{name: "reorder (a set ignores order)", patch: `spec: {zones: [b, a]}`},
			{name: "add a zone", patch: `spec: {zones: [a, b, c]}`, want: []cause{onceInvalid("spec.zones", onceMsg)}},
			{name: "remove it", patch: `spec: {zones: null}`, want: []cause{forbidden("spec.zones", "zones "+onceRemoveMsg)}},
		},
	},
	{
		name: "zones: +immutable=once set, absent at create",
		from: `spec: {zones: null}`,
		updates: []update{
			{name: "set it later", patch: `spec: {zones: [c]}`},
		},
	},
	{
		name: "ports[*].nodePort: +immutable=once in list map items",
		updates: []update{
			{name: "set grpc's later", patch: `spec: {ports: [{name: http, nodePort: 30080}, {name: grpc, nodePort: 30090}]}`},
			{name: "change http's", patch: `spec: {ports: [{name: http, nodePort: 30081}, {name: grpc}]}`,
				want: []cause{onceInvalid("spec.ports[0].nodePort", onceMsg)}},
			{name: "remove http's", patch: `spec: {ports: [{name: http}, {name: grpc}]}`,
				want: []cause{forbidden("spec.ports[0].nodePort", "nodePort "+onceRemoveMsg)}},
			{name: "remove the http item with it", patch: `spec: {ports: [{name: grpc}]}`},
		},
	},
	{
		name: "disks[*].serial: +immutable=once in atomic list items",
		updates: []update{
			{name: "set d1's later", patch: `spec: {disks: [{name: d0, serial: s0}, {name: d1, serial: s1}]}`},
			{name: "change d0's", patch: `spec: {disks: [{name: d0, serial: s9}, {name: d1}]}`, want: []cause{itemsChanged("spec.disks")}},
			{name: "append a disk", patch: `spec: {disks: [{name: d0, serial: s0}, {name: d1}, {name: d2, serial: s2}]}`},
		},
	},
	{
		name: "labels: +immutable=keys with a message",
		updates: []update{
			{name: "change a value", patch: `spec: {labels: {team: blue}}`},
			{name: "add a key", patch: `spec: {labels: {env: dev}}`, want: []cause{forbidden("spec.labels", "labels may not be added or removed")}},
		},
	},
}
