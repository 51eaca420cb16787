package v1

// Code written by TestWhenAPIUpToDate (validators/when_test.go, -update): one
// conditional field per condition, drawn from the subset's grammar or
// taken from the repository's corpus.

// Guarded holds the conditional fields of the differential.
type Guarded struct {
	// +immutable
	// +immutable:message="c0"
	// +immutable:when="(size(oldSelf.spec.name) >= 0.5) || (has(oldSelf.spec.ports) && oldSelf.spec.ports.all(p, p.name == 'b' || has(p.port) && p.port >= 3))"
	// +optional
	C0 *string `json:"c0,omitempty"`
	// +immutable=once
	// +immutable:message="c1"
	// +immutable:when="((('b'.startsWith('ab')) ? (self.spec.mode.size() < 3) : (has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && self.spec.topology.inner.n < 1.0)) ? 2 : 0) > size(oldSelf.spec.name)"
	// +optional
	C1 int32 `json:"c1,omitempty"`
	// +immutable
	// +immutable:message="c2"
	// +immutable:when="(has(self.status) && has(self.status.phase) && self.status.phase < 'a') ? (((has(self.spec.items) && self.spec.items[1] <= 0) ? -1 : -1) < size(self.spec.name)) : (has(self.status) && has(self.status.observed) && has(self.spec.items) && self.status.observed in self.spec.items)"
	// +optional
	C2 []string `json:"c2,omitempty"`
	// +immutable=keys
	// +immutable:message="c3"
	// +immutable:when="has(self.spec.replicas)"
	// +optional
	C3 map[string]string `json:"c3,omitempty"`
	// +immutable
	// +immutable:message="c4"
	// +immutable:when="!(((self.metadata.name in ['b', '']) ? 2 : -1) == oldSelf.spec.mode.size())"
	// +optional
	C4 *Inner `json:"c4,omitempty"`
	// +immutable
	// +immutable:message="c5"
	// +immutable:when="false"
	// +optional
	C5 *string `json:"c5,omitempty"`
	// +immutable=once
	// +immutable:message="c6"
	// +immutable:when="(true) && (!(size(oldSelf.spec.name) in [1, 2, 3]))"
	// +optional
	C6 int32 `json:"c6,omitempty"`
	// +immutable
	// +immutable:message="c7"
	// +immutable:when="has(oldSelf.spec.items) && size(oldSelf.spec.items) <= size(oldSelf.spec.name)"
	// +optional
	C7 []string `json:"c7,omitempty"`
	// +immutable=keys
	// +immutable:message="c8"
	// +immutable:when="!(has(self.spec.items) && self.spec.items[1] <= 3)"
	// +optional
	C8 map[string]string `json:"c8,omitempty"`
	// +immutable
	// +immutable:message="c9"
	// +immutable:when="has(oldSelf.spec.queue) && has(self.spec.labels) && oldSelf.spec.queue in self.spec.labels"
	// +optional
	C9 *Inner `json:"c9,omitempty"`
	// +immutable
	// +immutable:message="c10"
	// +immutable:when="(true) ? (!('b' > 'c')) : (false)"
	// +optional
	C10 *string `json:"c10,omitempty"`
	// +immutable=once
	// +immutable:message="c11"
	// +immutable:when="has(oldSelf.spec.items) && oldSelf.spec.items[2] == 1"
	// +optional
	C11 int32 `json:"c11,omitempty"`
	// +immutable
	// +immutable:message="c12"
	// +immutable:when="!(has(oldSelf.spec.topology) && has(oldSelf.spec.topology.flag))"
	// +optional
	C12 []string `json:"c12,omitempty"`
	// +immutable=keys
	// +immutable:message="c13"
	// +immutable:when="has(oldSelf.spec.labels) && oldSelf.spec.labels.all(k, k.startsWith('c') || oldSelf.spec.labels[k] == 'a')"
	// +optional
	C13 map[string]string `json:"c13,omitempty"`
	// +immutable
	// +immutable:message="c14"
	// +immutable:when="(self.spec.mode.size() <= -2.5) || (has(self.spec.queue) && oldSelf.spec.name.endsWith(self.spec.queue))"
	// +optional
	C14 *Inner `json:"c14,omitempty"`
	// +immutable
	// +immutable:message="c15"
	// +immutable:when="has(oldSelf.spec.topology) && has(oldSelf.spec.topology.flag)"
	// +optional
	C15 *string `json:"c15,omitempty"`
	// +immutable=once
	// +immutable:message="c16"
	// +immutable:when="((oldSelf.spec.mode.size() <= 0.5) || (has(oldSelf.spec.note))) ? (has(self.spec.tags) && ((has(oldSelf.spec.replicas) && has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && oldSelf.spec.replicas != self.spec.topology.inner.n) ? 1 : 2) < size(self.spec.tags)) : (has(oldSelf.spec.items) && -1 in oldSelf.spec.items)"
	// +optional
	C16 int32 `json:"c16,omitempty"`
	// +immutable
	// +immutable:message="c17"
	// +immutable:when="('c' in ['a', 'c']) && (has(self.spec.labels) && self.spec.labels['c'] == 'ab')"
	// +optional
	C17 []string `json:"c17,omitempty"`
	// +immutable=keys
	// +immutable:message="c18"
	// +immutable:when="(has(oldSelf.spec.labels) && oldSelf.spec.labels['b'] == 'b') || (has(oldSelf.spec.counts) && oldSelf.spec.counts[''] > -1)"
	// +optional
	C18 map[string]string `json:"c18,omitempty"`
	// +immutable
	// +immutable:message="c19"
	// +immutable:when="(has(oldSelf.spec.size) && oldSelf.spec.size > 0.5) || (has(oldSelf.spec.items) && self.spec.mode.size() in oldSelf.spec.items)"
	// +optional
	C19 *Inner `json:"c19,omitempty"`
	// +immutable
	// +immutable:message="c20"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.observed) && oldSelf.status.observed in [1, 2, -1]"
	// +optional
	C20 *string `json:"c20,omitempty"`
	// +immutable=once
	// +immutable:message="c21"
	// +immutable:when="!(has(self.spec.tags) && self.spec.tags.exists_one(t, t.size() < 0))"
	// +optional
	C21 int32 `json:"c21,omitempty"`
	// +immutable
	// +immutable:message="c22"
	// +immutable:when="(has(oldSelf.status) && has(oldSelf.status.observed) && oldSelf.status.observed < size(self.spec.name)) ? (has(self.spec.items) && size(self.spec.name) in self.spec.items) : (false)"
	// +optional
	C22 []string `json:"c22,omitempty"`
	// +immutable=keys
	// +immutable:message="c23"
	// +immutable:when="self.spec.mode.size() in [1, 2, -1]"
	// +optional
	C23 map[string]string `json:"c23,omitempty"`
	// +immutable
	// +immutable:message="c24"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.ready) && oldSelf.status.ready"
	// +optional
	C24 *Inner `json:"c24,omitempty"`
	// +immutable
	// +immutable:message="c25"
	// +immutable:when="has(self.spec.labels) && self.spec.labels.all(k, k.startsWith('b') || self.spec.labels[k] == 'a')"
	// +optional
	C25 *string `json:"c25,omitempty"`
	// +immutable=once
	// +immutable:message="c26"
	// +immutable:when="(!('a' in ['a', 'b'])) ? ((has(self.spec.paused)) && (has(oldSelf.spec.tags) && has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && size(oldSelf.spec.tags) != self.spec.topology.inner.n)) : (has(oldSelf.spec.topology) && has(oldSelf.spec.topology.flag))"
	// +optional
	C26 int32 `json:"c26,omitempty"`
	// +immutable
	// +immutable:message="c27"
	// +immutable:when="(has(self.spec.note) && has(self.spec.queue) && self.spec.note != self.spec.queue) || (has(oldSelf.spec.paused) && oldSelf.spec.paused)"
	// +optional
	C27 []string `json:"c27,omitempty"`
	// +immutable=keys
	// +immutable:message="c28"
	// +immutable:when="has(self.spec.queue) && has(self.spec.tags) && self.spec.queue in self.spec.tags"
	// +optional
	C28 map[string]string `json:"c28,omitempty"`
	// +immutable
	// +immutable:message="c29"
	// +immutable:when="has(self.status) && has(self.status.conditions) && self.status.conditions.all(c, c.type == 'Admitted' && c.status == 'False')"
	// +optional
	C29 *Inner `json:"c29,omitempty"`
	// +immutable
	// +immutable:message="c30"
	// +immutable:when="has(oldSelf.spec.topology) && has(oldSelf.spec.topology.inner) && has(oldSelf.spec.topology.inner.value) && oldSelf.spec.topology.inner.value in ['b', 'c']"
	// +optional
	C30 *string `json:"c30,omitempty"`
	// +immutable=once
	// +immutable:message="c31"
	// +immutable:when="!(has(oldSelf.spec.items) && self.spec.mode.size() in oldSelf.spec.items)"
	// +optional
	C31 int32 `json:"c31,omitempty"`
	// +immutable
	// +immutable:message="c32"
	// +immutable:when="has(oldSelf.spec.items) && oldSelf.spec.items[2] > 1"
	// +optional
	C32 []string `json:"c32,omitempty"`
	// +immutable=keys
	// +immutable:message="c33"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.flag) && self.spec.topology.flag"
	// +optional
	C33 map[string]string `json:"c33,omitempty"`
	// +immutable
	// +immutable:message="c34"
	// +immutable:when="has(oldSelf.spec.queue) && '' < oldSelf.spec.queue"
	// +optional
	C34 *Inner `json:"c34,omitempty"`
	// +immutable
	// +immutable:message="c35"
	// +immutable:when="'a' in ['ab', 'ab']"
	// +optional
	C35 *string `json:"c35,omitempty"`
	// +immutable=once
	// +immutable:message="c36"
	// +immutable:when="(has(oldSelf.spec.items) && oldSelf.spec.items[2] == 2) && ((has(oldSelf.spec.replicas)) && (has(oldSelf.spec.topology) && has(oldSelf.spec.topology.inner) && has(oldSelf.spec.topology.inner.value) && self.spec.mode.endsWith(oldSelf.spec.topology.inner.value)))"
	// +optional
	C36 int32 `json:"c36,omitempty"`
	// +immutable
	// +immutable:message="c37"
	// +immutable:when="has(oldSelf.spec.counts) && oldSelf.spec.counts[''] > 0"
	// +optional
	C37 []string `json:"c37,omitempty"`
	// +immutable=keys
	// +immutable:message="c38"
	// +immutable:when="((has(self.spec.items) && self.spec.items[2] > 0) || (size(self.spec.name) in [1, 2, -1])) ? (self.spec.name.contains('a')) : (true)"
	// +optional
	C38 map[string]string `json:"c38,omitempty"`
	// +immutable
	// +immutable:message="c39"
	// +immutable:when="has(oldSelf.spec.note)"
	// +optional
	C39 *Inner `json:"c39,omitempty"`
	// +immutable
	// +immutable:message="c40"
	// +immutable:when="has(self.status) && has(self.status.phase)"
	// +optional
	C40 *string `json:"c40,omitempty"`
	// +immutable=once
	// +immutable:message="c41"
	// +immutable:when="size(self.spec.name) != size(self.spec.name)"
	// +optional
	C41 int32 `json:"c41,omitempty"`
	// +immutable
	// +immutable:message="c42"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && ((has(oldSelf.spec.suspend) && oldSelf.spec.suspend) ? 3 : 0) == self.spec.topology.inner.n"
	// +optional
	C42 []string `json:"c42,omitempty"`
	// +immutable=keys
	// +immutable:message="c43"
	// +immutable:when="has(self.spec.ports) && has(self.spec.size) && size(self.spec.ports) < self.spec.size"
	// +optional
	C43 map[string]string `json:"c43,omitempty"`
	// +immutable
	// +immutable:message="c44"
	// +immutable:when="(has(oldSelf.spec.queue) && oldSelf.spec.queue >= oldSelf.metadata.name) || (true)"
	// +optional
	C44 *Inner `json:"c44,omitempty"`
	// +immutable
	// +immutable:message="c45"
	// +immutable:when="has(oldSelf.spec.note) && has(oldSelf.spec.topology) && has(oldSelf.spec.topology.inner) && has(oldSelf.spec.topology.inner.value) && oldSelf.spec.note <= oldSelf.spec.topology.inner.value"
	// +optional
	C45 *string `json:"c45,omitempty"`
	// +immutable=once
	// +immutable:message="c46"
	// +immutable:when="has(self.status) && has(self.status.phase) && 'b' == self.status.phase"
	// +optional
	C46 int32 `json:"c46,omitempty"`
	// +immutable
	// +immutable:message="c47"
	// +immutable:when="has(self.spec.labels) && self.spec.labels.exists_one(k, k.startsWith('ab') || self.spec.labels[k] == 'b')"
	// +optional
	C47 []string `json:"c47,omitempty"`
	// +immutable=keys
	// +immutable:message="c48"
	// +immutable:when="has(oldSelf.spec.replicas) && ((has(oldSelf.spec.size) && has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && oldSelf.spec.size != self.spec.topology.inner.n) ? 3 : 1) > oldSelf.spec.replicas"
	// +optional
	C48 map[string]string `json:"c48,omitempty"`
	// +immutable
	// +immutable:message="c49"
	// +immutable:when="has(oldSelf.spec.labels) && oldSelf.spec.labels['b'] == 'b'"
	// +optional
	C49 *Inner `json:"c49,omitempty"`
	// +immutable
	// +immutable:message="c50"
	// +immutable:when="('c' > oldSelf.metadata.name) || (has(self.status) && has(self.status.phase) && has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.value) && self.status.phase.endsWith(self.spec.topology.inner.value))"
	// +optional
	C50 *string `json:"c50,omitempty"`
	// +immutable=once
	// +immutable:message="c51"
	// +immutable:when="has(oldSelf.spec.items) && oldSelf.spec.items[0] <= -1"
	// +optional
	C51 int32 `json:"c51,omitempty"`
	// +immutable
	// +immutable:message="c52"
	// +immutable:when="has(self.spec.items) && self.spec.items[0] == 1"
	// +optional
	C52 []string `json:"c52,omitempty"`
	// +immutable=keys
	// +immutable:message="c53"
	// +immutable:when="has(oldSelf.spec.queue) && has(self.spec.note) && oldSelf.spec.queue.startsWith(self.spec.note)"
	// +optional
	C53 map[string]string `json:"c53,omitempty"`
	// +immutable
	// +immutable:message="c54"
	// +immutable:when="size(self.spec.name) == oldSelf.spec.mode.size()"
	// +optional
	C54 *Inner `json:"c54,omitempty"`
	// +immutable
	// +immutable:message="c55"
	// +immutable:when="has(oldSelf.spec.topology) && has(oldSelf.spec.topology.inner) && has(oldSelf.spec.topology.inner.value)"
	// +optional
	C55 *string `json:"c55,omitempty"`
	// +immutable=once
	// +immutable:message="c56"
	// +immutable:when="has(self.spec.labels) && self.spec.labels['c'] == 'c'"
	// +optional
	C56 int32 `json:"c56,omitempty"`
	// +immutable
	// +immutable:message="c57"
	// +immutable:when="has(oldSelf.spec.suspend) && oldSelf.spec.suspend"
	// +optional
	C57 []string `json:"c57,omitempty"`
	// +immutable=keys
	// +immutable:message="c58"
	// +immutable:when="((has(oldSelf.spec.locked) && oldSelf.spec.locked) ? (has(self.spec.suspend) && self.spec.suspend) : (has(self.spec.locked))) || ((has(oldSelf.spec.labels) && size(oldSelf.spec.name) > size(oldSelf.spec.labels)) && ('b' < self.spec.mode))"
	// +optional
	C58 map[string]string `json:"c58,omitempty"`
	// +immutable
	// +immutable:message="c59"
	// +immutable:when="(has(self.spec.queue) && self.spec.name < self.spec.queue) || (has(self.spec.queue) && self.spec.queue in ['c', ''])"
	// +optional
	C59 *Inner `json:"c59,omitempty"`
	// +immutable
	// +immutable:message="c60"
	// +immutable:when="''.endsWith('ab')"
	// +optional
	C60 *string `json:"c60,omitempty"`
	// +immutable=once
	// +immutable:message="c61"
	// +immutable:when="has(oldSelf.spec.counts) && oldSelf.spec.counts['a'] == 3"
	// +optional
	C61 int32 `json:"c61,omitempty"`
	// +immutable
	// +immutable:message="c62"
	// +immutable:when="has(self.spec.note) && self.spec.note in ['b', 'ab']"
	// +optional
	C62 []string `json:"c62,omitempty"`
	// +immutable=keys
	// +immutable:message="c63"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.value) && self.spec.topology.inner.value.startsWith('a')"
	// +optional
	C63 map[string]string `json:"c63,omitempty"`
	// +immutable
	// +immutable:message="c64"
	// +immutable:when="has(oldSelf.spec.queue)"
	// +optional
	C64 *Inner `json:"c64,omitempty"`
	// +immutable
	// +immutable:message="c65"
	// +immutable:when="has(oldSelf.spec.queue)"
	// +optional
	C65 *string `json:"c65,omitempty"`
	// +immutable=once
	// +immutable:message="c66"
	// +immutable:when="self.spec.mode.size() > self.spec.mode.size()"
	// +optional
	C66 int32 `json:"c66,omitempty"`
	// +immutable
	// +immutable:message="c67"
	// +immutable:when="has(self.spec.tags) && 'c' in self.spec.tags"
	// +optional
	C67 []string `json:"c67,omitempty"`
	// +immutable=keys
	// +immutable:message="c68"
	// +immutable:when="size(oldSelf.spec.name) >= size(self.spec.name)"
	// +optional
	C68 map[string]string `json:"c68,omitempty"`
	// +immutable
	// +immutable:message="c69"
	// +immutable:when="has(self.spec.labels) && self.spec.labels.all(k, k.startsWith('c') || self.spec.labels[k] == '')"
	// +optional
	C69 *Inner `json:"c69,omitempty"`
	// +immutable
	// +immutable:message="c70"
	// +immutable:when="has(oldSelf.spec.items) && oldSelf.spec.items[0] <= 2"
	// +optional
	C70 *string `json:"c70,omitempty"`
	// +immutable=once
	// +immutable:message="c71"
	// +immutable:when="has(oldSelf.spec.tags) && oldSelf.spec.tags.exists(t, t.size() < -1)"
	// +optional
	C71 int32 `json:"c71,omitempty"`
	// +immutable
	// +immutable:message="c72"
	// +immutable:when="has(oldSelf.spec.labels) && ((has(self.spec.labels) && self.spec.labels['ab'] == 'ab') ? 2 : -1) > size(oldSelf.spec.labels)"
	// +optional
	C72 []string `json:"c72,omitempty"`
	// +immutable=keys
	// +immutable:message="c73"
	// +immutable:when="has(oldSelf.spec.items) && oldSelf.spec.items[0] < 0"
	// +optional
	C73 map[string]string `json:"c73,omitempty"`
	// +immutable
	// +immutable:message="c74"
	// +immutable:when="has(self.status) && has(self.status.observed) && has(self.spec.items) && self.status.observed in self.spec.items"
	// +optional
	C74 *Inner `json:"c74,omitempty"`
	// +immutable
	// +immutable:message="c75"
	// +immutable:when="('c' in ['a', '']) ? (has(self.spec.note) && has(oldSelf.spec.tags) && self.spec.note in oldSelf.spec.tags) : (has(oldSelf.spec.queue) && 'a'.startsWith(oldSelf.spec.queue))"
	// +optional
	C75 *string `json:"c75,omitempty"`
	// +immutable=once
	// +immutable:message="c76"
	// +immutable:when="has(self.spec.counts) && self.spec.counts['ab'] != 2"
	// +optional
	C76 int32 `json:"c76,omitempty"`
	// +immutable
	// +immutable:message="c77"
	// +immutable:when="has(self.spec.replicas) && has(oldSelf.spec.items) && self.spec.replicas > size(oldSelf.spec.items)"
	// +optional
	C77 []string `json:"c77,omitempty"`
	// +immutable=keys
	// +immutable:message="c78"
	// +immutable:when="((has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && self.spec.topology.inner.n > size(self.spec.name)) && (has(self.spec.counts) && self.spec.counts['ab'] >= 2)) && (has(self.spec.items) && ((has(oldSelf.spec.queue) && oldSelf.spec.queue <= 'b') ? 3 : 2) < size(self.spec.items))"
	// +optional
	C78 map[string]string `json:"c78,omitempty"`
	// +immutable
	// +immutable:message="c79"
	// +immutable:when="has(self.spec.items) && self.spec.items[2] < 0"
	// +optional
	C79 *Inner `json:"c79,omitempty"`
	// +immutable
	// +immutable:message="c80"
	// +immutable:when="'ab'.startsWith('b')"
	// +optional
	C80 *string `json:"c80,omitempty"`
	// +immutable=once
	// +immutable:message="c81"
	// +immutable:when="has(self.spec.suspend) && self.spec.suspend"
	// +optional
	C81 int32 `json:"c81,omitempty"`
	// +immutable
	// +immutable:message="c82"
	// +immutable:when="has(oldSelf.spec.tags) && oldSelf.spec.name in oldSelf.spec.tags"
	// +optional
	C82 []string `json:"c82,omitempty"`
	// +immutable=keys
	// +immutable:message="c83"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.observed) && oldSelf.status.observed >= 1.0"
	// +optional
	C83 map[string]string `json:"c83,omitempty"`
	// +immutable
	// +immutable:message="c84"
	// +immutable:when="has(self.status) && has(self.status.ready) && self.status.ready"
	// +optional
	C84 *Inner `json:"c84,omitempty"`
	// +immutable
	// +immutable:message="c85"
	// +immutable:when="has(self.spec.suspend) && self.spec.suspend"
	// +optional
	C85 *string `json:"c85,omitempty"`
	// +immutable=once
	// +immutable:message="c86"
	// +immutable:when="false"
	// +optional
	C86 int32 `json:"c86,omitempty"`
	// +immutable
	// +immutable:message="c87"
	// +immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)"
	// +optional
	C87 []string `json:"c87,omitempty"`
	// +immutable=keys
	// +immutable:message="c88"
	// +immutable:when="!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)"
	// +optional
	C88 map[string]string `json:"c88,omitempty"`
	// +immutable
	// +immutable:message="c89"
	// +immutable:when="has(oldSelf.spec.locked) && oldSelf.spec.locked"
	// +optional
	C89 *Inner `json:"c89,omitempty"`
	// +immutable
	// +immutable:message="c90"
	// +immutable:when="has(oldSelf.spec.topology)"
	// +optional
	C90 *string `json:"c90,omitempty"`
	// +immutable=once
	// +immutable:message="c91"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == \"Ready\" && c.status == \"True\")"
	// +optional
	C91 int32 `json:"c91,omitempty"`
	// +immutable
	// +immutable:message="c92"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	// +optional
	C92 []string `json:"c92,omitempty"`
}
