package v1

// Code written by TestWhenAPIUpToDate (validators/when_test.go, -update): one
// conditional field per condition, drawn from the subset's grammar or
// taken from the repository's corpus.

// Guarded holds the conditional fields of the differential.
type Guarded struct {
	// +immutable
	// +immutable:message="c0"
	// +immutable:when="1 <= 2.0"
	// +optional
	C0 *string `json:"c0,omitempty"`
	// +immutable=once
	// +immutable:message="c1"
	// +immutable:when="((has(self.status) && has(self.status.observed) && self.status.observed < 0) ? (has(self.spec.items) && self.spec.items.exists(i, i > 2 || (has(self.spec.items) && -1 in self.spec.items))) : (has(self.status) && has(self.status.observed) && self.status.observed <= -2.5)) ? (has(oldSelf.spec.labels) && oldSelf.spec.labels['c'] == 'b') : (has(oldSelf.spec.ports) && size(oldSelf.spec.ports) < 2.0)"
	// +optional
	C1 int32 `json:"c1,omitempty"`
	// +immutable
	// +immutable:message="c2"
	// +immutable:when="has(self.spec.started) && self.spec.started in [self.spec.started]"
	// +optional
	C2 []string `json:"c2,omitempty"`
	// +immutable=keys
	// +immutable:message="c3"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.ready) && oldSelf.status.ready"
	// +optional
	C3 map[string]string `json:"c3,omitempty"`
	// +immutable
	// +immutable:message="c4"
	// +immutable:when="((has(oldSelf.spec.topology) && has(oldSelf.spec.topology.inner) && has(oldSelf.spec.topology.inner.value) && 'c'.startsWith(oldSelf.spec.topology.inner.value)) ? -1 : 3) <= self.spec.mode.size()"
	// +optional
	C4 *Inner `json:"c4,omitempty"`
	// +immutable
	// +immutable:message="c5"
	// +immutable:when="(has(self.spec.items) && self.spec.items[2] != 2) ? ((has(self.spec.labels) && self.metadata.name in self.spec.labels) || (has(oldSelf.spec.ports) && oldSelf.spec.ports.exists(p, p.name == 'ab' || has(p.port) && p.port == 3))) : (0 >= 0.5)"
	// +optional
	C5 *string `json:"c5,omitempty"`
	// +immutable=once
	// +immutable:message="c6"
	// +immutable:when="has(oldSelf.spec.timeout) && oldSelf.spec.timeout < '0s'"
	// +optional
	C6 int32 `json:"c6,omitempty"`
	// +immutable
	// +immutable:message="c7"
	// +immutable:when="(has(oldSelf.spec.items) && oldSelf.spec.items[2] == 1) && ('c' <= oldSelf.metadata.name)"
	// +optional
	C7 []string `json:"c7,omitempty"`
	// +immutable=keys
	// +immutable:message="c8"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.value) && has(oldSelf.spec.tags) && self.spec.topology.inner.value in oldSelf.spec.tags"
	// +optional
	C8 map[string]string `json:"c8,omitempty"`
	// +immutable
	// +immutable:message="c9"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && has(self.spec.items) && self.spec.topology.inner.n in self.spec.items"
	// +optional
	C9 *Inner `json:"c9,omitempty"`
	// +immutable
	// +immutable:message="c10"
	// +immutable:when="has(self.spec.counts) && self.spec.counts[''] == 2"
	// +optional
	C10 *string `json:"c10,omitempty"`
	// +immutable=once
	// +immutable:message="c11"
	// +immutable:when="has(oldSelf.spec.items) && oldSelf.spec.items[1] == 0"
	// +optional
	C11 int32 `json:"c11,omitempty"`
	// +immutable
	// +immutable:message="c12"
	// +immutable:when="((oldSelf.spec.mode.size() <= 0.5) ? (has(oldSelf.spec.counts) && oldSelf.spec.counts['c'] >= 3) : (has(oldSelf.spec.queue) && oldSelf.spec.name.startsWith(oldSelf.spec.queue))) ? (oldSelf.spec.mode.size() in [1, 2, 1]) : (has(oldSelf.spec.note) && ''.startsWith(oldSelf.spec.note))"
	// +optional
	C12 []string `json:"c12,omitempty"`
	// +immutable=keys
	// +immutable:message="c13"
	// +immutable:when="has(oldSelf.spec.topology) && has(oldSelf.spec.topology.flag) && oldSelf.spec.topology.flag"
	// +optional
	C13 map[string]string `json:"c13,omitempty"`
	// +immutable
	// +immutable:message="c14"
	// +immutable:when="has(oldSelf.spec.labels) && 'c' in oldSelf.spec.labels"
	// +optional
	C14 *Inner `json:"c14,omitempty"`
	// +immutable
	// +immutable:message="c15"
	// +immutable:when="((has(self.spec.items) && self.spec.mode.size() in self.spec.items) && (has(oldSelf.spec.items) && self.spec.mode.size() in oldSelf.spec.items)) || (has(oldSelf.status) && has(oldSelf.status.phase) && oldSelf.status.phase in ['ab', 'c'])"
	// +optional
	C15 *string `json:"c15,omitempty"`
	// +immutable=once
	// +immutable:message="c16"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists_one(c, c.type == 'a' && c.status == 'False')"
	// +optional
	C16 int32 `json:"c16,omitempty"`
	// +immutable
	// +immutable:message="c17"
	// +immutable:when="has(self.status) && has(self.status.observed) && self.status.observed in [1, 2, -1]"
	// +optional
	C17 []string `json:"c17,omitempty"`
	// +immutable=keys
	// +immutable:message="c18"
	// +immutable:when="(has(oldSelf.spec.labels) && oldSelf.spec.labels['ab'] == 'a') ? (has(oldSelf.status) && has(oldSelf.status.phase) && has(self.spec.tags) && oldSelf.status.phase in self.spec.tags) : (has(self.spec.labels) && has(oldSelf.spec.labels) && self.spec.labels == oldSelf.spec.labels)"
	// +optional
	C18 map[string]string `json:"c18,omitempty"`
	// +immutable
	// +immutable:message="c19"
	// +immutable:when="has(oldSelf.spec.items) && 0 in oldSelf.spec.items"
	// +optional
	C19 *Inner `json:"c19,omitempty"`
	// +immutable
	// +immutable:message="c20"
	// +immutable:when="false"
	// +optional
	C20 *string `json:"c20,omitempty"`
	// +immutable=once
	// +immutable:message="c21"
	// +immutable:when="self.spec.mode.size() in [1, 2, -1]"
	// +optional
	C21 int32 `json:"c21,omitempty"`
	// +immutable
	// +immutable:message="c22"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.ready) && oldSelf.status.ready"
	// +optional
	C22 []string `json:"c22,omitempty"`
	// +immutable=keys
	// +immutable:message="c23"
	// +immutable:when="!(has(self.spec.paused) && self.spec.paused)"
	// +optional
	C23 map[string]string `json:"c23,omitempty"`
	// +immutable
	// +immutable:message="c24"
	// +immutable:when="!(has(oldSelf.spec.topology) && has(oldSelf.spec.topology.inner) && has(oldSelf.spec.topology.inner.n))"
	// +optional
	C24 *Inner `json:"c24,omitempty"`
	// +immutable
	// +immutable:message="c25"
	// +immutable:when="has(oldSelf.spec.items) && oldSelf.spec.items[1] < 0"
	// +optional
	C25 *string `json:"c25,omitempty"`
	// +immutable=once
	// +immutable:message="c26"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.observed) && oldSelf.status.observed in [1, 2, -1]"
	// +optional
	C26 int32 `json:"c26,omitempty"`
	// +immutable
	// +immutable:message="c27"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.value) && self.spec.topology.inner.value > self.spec.mode"
	// +optional
	C27 []string `json:"c27,omitempty"`
	// +immutable=keys
	// +immutable:message="c28"
	// +immutable:when="(has(self.spec.items) && self.spec.items[0] > 2) ? (has(self.spec.tags) && has(oldSelf.spec.items) && size(self.spec.tags) in oldSelf.spec.items) : (has(oldSelf.spec.items) && oldSelf.spec.items.exists_one(i, i > 1 || (has(oldSelf.spec.items) && oldSelf.spec.items[1] > 1)))"
	// +optional
	C28 map[string]string `json:"c28,omitempty"`
	// +immutable
	// +immutable:message="c29"
	// +immutable:when="has(self.spec.items) && self.spec.items[0] < 1"
	// +optional
	C29 *Inner `json:"c29,omitempty"`
	// +immutable
	// +immutable:message="c30"
	// +immutable:when="(((has(self.status) && has(self.status.observed) && has(self.spec.items) && self.status.observed in self.spec.items) ? 2 : 2) <= oldSelf.spec.mode.size()) && ('a' in ['ab', 'ab'])"
	// +optional
	C30 *string `json:"c30,omitempty"`
	// +immutable=once
	// +immutable:message="c31"
	// +immutable:when="(has(oldSelf.spec.labels) && oldSelf.spec.labels[''] == 'c') ? (size(oldSelf.spec.name) in [1, 2, 1]) : (has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.value) && 'b'.contains(self.spec.topology.inner.value))"
	// +optional
	C31 int32 `json:"c31,omitempty"`
	// +immutable
	// +immutable:message="c32"
	// +immutable:when="false"
	// +optional
	C32 []string `json:"c32,omitempty"`
	// +immutable=keys
	// +immutable:message="c33"
	// +immutable:when="has(oldSelf.spec.suspend) && oldSelf.spec.suspend"
	// +optional
	C33 map[string]string `json:"c33,omitempty"`
	// +immutable
	// +immutable:message="c34"
	// +immutable:when="((has(self.spec.items) && self.spec.items[2] > 0) || (size(self.spec.name) in [1, 2, -1])) ? (self.spec.name.contains('a')) : (true)"
	// +optional
	C34 *Inner `json:"c34,omitempty"`
	// +immutable
	// +immutable:message="c35"
	// +immutable:when="has(oldSelf.spec.note)"
	// +optional
	C35 *string `json:"c35,omitempty"`
	// +immutable=once
	// +immutable:message="c36"
	// +immutable:when="has(self.status) && has(self.status.phase)"
	// +optional
	C36 int32 `json:"c36,omitempty"`
	// +immutable
	// +immutable:message="c37"
	// +immutable:when="size(self.spec.name) != size(self.spec.name)"
	// +optional
	C37 []string `json:"c37,omitempty"`
	// +immutable=keys
	// +immutable:message="c38"
	// +immutable:when="has(self.spec.tags) && has(oldSelf.spec.tags) && self.spec.tags != oldSelf.spec.tags"
	// +optional
	C38 map[string]string `json:"c38,omitempty"`
	// +immutable
	// +immutable:message="c39"
	// +immutable:when="has(oldSelf.spec.suspend) && oldSelf.spec.suspend"
	// +optional
	C39 *Inner `json:"c39,omitempty"`
	// +immutable
	// +immutable:message="c40"
	// +immutable:when="-1 in [1, 2, 2]"
	// +optional
	C40 *string `json:"c40,omitempty"`
	// +immutable=once
	// +immutable:message="c41"
	// +immutable:when="has(self.status) && has(self.status.observed) && has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && self.status.observed != self.spec.topology.inner.n"
	// +optional
	C41 int32 `json:"c41,omitempty"`
	// +immutable
	// +immutable:message="c42"
	// +immutable:when="((has(oldSelf.spec.labels) && oldSelf.spec.labels['a'] == '') ? (has(self.spec.queue) && 'c' > self.spec.queue) : (size(self.spec.name) in [1, 2, 0])) || (((has(oldSelf.spec.items) && oldSelf.spec.items[1] < 3) ? 1 : 1) >= 3)"
	// +optional
	C42 []string `json:"c42,omitempty"`
	// +immutable=keys
	// +immutable:message="c43"
	// +immutable:when="(has(oldSelf.spec.queue) && oldSelf.spec.queue.endsWith(self.metadata.name)) || (has(oldSelf.spec.labels) && oldSelf.spec.labels.exists_one(k, k.startsWith('') || oldSelf.spec.labels[k] == 'b'))"
	// +optional
	C43 map[string]string `json:"c43,omitempty"`
	// +immutable
	// +immutable:message="c44"
	// +immutable:when="has(self.spec.items) && self.spec.items[2] == 0"
	// +optional
	C44 *Inner `json:"c44,omitempty"`
	// +immutable
	// +immutable:message="c45"
	// +immutable:when="has(self.spec.suspend) && self.spec.suspend"
	// +optional
	C45 *string `json:"c45,omitempty"`
	// +immutable=once
	// +immutable:message="c46"
	// +immutable:when="((has(self.spec.tags) && self.spec.tags.exists_one(t, t.size() < 3)) ? 1 : 2) > 0"
	// +optional
	C46 int32 `json:"c46,omitempty"`
	// +immutable
	// +immutable:message="c47"
	// +immutable:when="'a' <= ''"
	// +optional
	C47 []string `json:"c47,omitempty"`
	// +immutable=keys
	// +immutable:message="c48"
	// +immutable:when="has(oldSelf.spec.tags) && '' in oldSelf.spec.tags"
	// +optional
	C48 map[string]string `json:"c48,omitempty"`
	// +immutable
	// +immutable:message="c49"
	// +immutable:when="has(self.spec.queue) && has(self.spec.tags) && self.spec.queue in self.spec.tags"
	// +optional
	C49 *Inner `json:"c49,omitempty"`
	// +immutable
	// +immutable:message="c50"
	// +immutable:when="has(self.status) && has(self.status.observed) && ((has(self.spec.queue) && has(oldSelf.spec.labels) && self.spec.queue in oldSelf.spec.labels) ? -1 : 0) != self.status.observed"
	// +optional
	C50 *string `json:"c50,omitempty"`
	// +immutable=once
	// +immutable:message="c51"
	// +immutable:when="has(oldSelf.spec.items) && size(self.spec.name) in oldSelf.spec.items"
	// +optional
	C51 int32 `json:"c51,omitempty"`
	// +immutable
	// +immutable:message="c52"
	// +immutable:when="has(self.spec.counts) && self.spec.counts['b'] > 2"
	// +optional
	C52 []string `json:"c52,omitempty"`
	// +immutable=keys
	// +immutable:message="c53"
	// +immutable:when="has(oldSelf.spec.suspend) && oldSelf.spec.suspend"
	// +optional
	C53 map[string]string `json:"c53,omitempty"`
	// +immutable
	// +immutable:message="c54"
	// +immutable:when="(((0 >= -1) ? -1 : 2) <= 0) && (has(oldSelf.spec.labels) && size(oldSelf.spec.labels) > 0.5)"
	// +optional
	C54 *Inner `json:"c54,omitempty"`
	// +immutable
	// +immutable:message="c55"
	// +immutable:when="'b' in ['b', 'b']"
	// +optional
	C55 *string `json:"c55,omitempty"`
	// +immutable=once
	// +immutable:message="c56"
	// +immutable:when="(has(self.spec.tags) && 'b' in self.spec.tags) && ((has(oldSelf.spec.suspend) && oldSelf.spec.suspend) && (has(oldSelf.status) && has(oldSelf.status.phase) && has(self.spec.labels) && oldSelf.status.phase in self.spec.labels))"
	// +optional
	C56 int32 `json:"c56,omitempty"`
	// +immutable
	// +immutable:message="c57"
	// +immutable:when="has(self.spec.tags) && 'c' in self.spec.tags"
	// +optional
	C57 []string `json:"c57,omitempty"`
	// +immutable=keys
	// +immutable:message="c58"
	// +immutable:when="has(oldSelf.spec.tags) && oldSelf.spec.tags.exists_one(t, t.size() < 0)"
	// +optional
	C58 map[string]string `json:"c58,omitempty"`
	// +immutable
	// +immutable:message="c59"
	// +immutable:when="(has(self.spec.note) && self.spec.note in ['b', 'ab']) ? (has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.value) && self.spec.topology.inner.value.startsWith('a')) : (has(oldSelf.spec.queue))"
	// +optional
	C59 *Inner `json:"c59,omitempty"`
	// +immutable
	// +immutable:message="c60"
	// +immutable:when="has(oldSelf.spec.queue)"
	// +optional
	C60 *string `json:"c60,omitempty"`
	// +immutable=once
	// +immutable:message="c61"
	// +immutable:when="self.spec.mode.size() > self.spec.mode.size()"
	// +optional
	C61 int32 `json:"c61,omitempty"`
	// +immutable
	// +immutable:message="c62"
	// +immutable:when="has(self.spec.items) && size(self.spec.name) in self.spec.items"
	// +optional
	C62 []string `json:"c62,omitempty"`
	// +immutable=keys
	// +immutable:message="c63"
	// +immutable:when="'a' > 'ab'"
	// +optional
	C63 map[string]string `json:"c63,omitempty"`
	// +immutable
	// +immutable:message="c64"
	// +immutable:when="self.metadata.name.startsWith(oldSelf.spec.mode)"
	// +optional
	C64 *Inner `json:"c64,omitempty"`
	// +immutable
	// +immutable:message="c65"
	// +immutable:when="(has(oldSelf.spec.tags) && oldSelf.spec.tags.exists(t, t.size() < -1)) || (has(oldSelf.status) && has(oldSelf.status.phase) && has(oldSelf.status) && has(oldSelf.status.phase) && oldSelf.status.phase >= oldSelf.status.phase)"
	// +optional
	C65 *string `json:"c65,omitempty"`
	// +immutable=once
	// +immutable:message="c66"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.ready) && oldSelf.status.ready"
	// +optional
	C66 int32 `json:"c66,omitempty"`
	// +immutable
	// +immutable:message="c67"
	// +immutable:when="(!(has(self.spec.labels) && self.spec.labels['a'] == 'a')) ? (!(has(oldSelf.spec.topology) && has(oldSelf.spec.topology.inner) && has(oldSelf.spec.topology.inner.value) && has(self.spec.note) && oldSelf.spec.topology.inner.value == self.spec.note)) : (has(oldSelf.spec.queue) && 'a'.startsWith(oldSelf.spec.queue))"
	// +optional
	C67 []string `json:"c67,omitempty"`
	// +immutable=keys
	// +immutable:message="c68"
	// +immutable:when="has(oldSelf.spec.ports) && oldSelf.spec.ports.exists(p, p.name == 'c' || has(p.port) && p.port >= -1)"
	// +optional
	C68 map[string]string `json:"c68,omitempty"`
	// +immutable
	// +immutable:message="c69"
	// +immutable:when="false"
	// +optional
	C69 *Inner `json:"c69,omitempty"`
	// +immutable
	// +immutable:message="c70"
	// +immutable:when="has(oldSelf.spec.ports) && oldSelf.spec.ports.exists(p, p.name == 'c' || has(p.port) && p.port <= 2)"
	// +optional
	C70 *string `json:"c70,omitempty"`
	// +immutable=once
	// +immutable:message="c71"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.n) && self.spec.topology.inner.n < 1.0"
	// +optional
	C71 int32 `json:"c71,omitempty"`
	// +immutable
	// +immutable:message="c72"
	// +immutable:when="has(self.spec.items) && self.spec.items.all(i, i > 3 || ((has(self.spec.labels) && self.spec.labels.exists_one(k, k.startsWith('') || self.spec.labels[k] == 'ab')) || (has(oldSelf.spec.ports) && oldSelf.spec.ports.exists(p, p.name == 'b' || has(p.port) && p.port <= 3))))"
	// +optional
	C72 []string `json:"c72,omitempty"`
	// +immutable=keys
	// +immutable:message="c73"
	// +immutable:when="self.spec.mode.size() in [1, 2, 0]"
	// +optional
	C73 map[string]string `json:"c73,omitempty"`
	// +immutable
	// +immutable:message="c74"
	// +immutable:when="has(self.status) && has(self.status.phase) && self.status.phase.endsWith('a')"
	// +optional
	C74 *Inner `json:"c74,omitempty"`
	// +immutable
	// +immutable:message="c75"
	// +immutable:when="has(self.status) && has(self.status.ready) && self.status.ready"
	// +optional
	C75 *string `json:"c75,omitempty"`
	// +immutable=once
	// +immutable:message="c76"
	// +immutable:when="false"
	// +optional
	C76 int32 `json:"c76,omitempty"`
	// +immutable
	// +immutable:message="c77"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.inner) && has(self.spec.topology.inner.value)"
	// +optional
	C77 []string `json:"c77,omitempty"`
	// +immutable=keys
	// +immutable:message="c78"
	// +immutable:when="has(self.spec.items) && self.spec.items[0] >= -1"
	// +optional
	C78 map[string]string `json:"c78,omitempty"`
	// +immutable
	// +immutable:message="c79"
	// +immutable:when="(!(has(self.spec.locked) && self.spec.locked)) && (has(oldSelf.spec.items) && oldSelf.spec.items[2] <= 1)"
	// +optional
	C79 *Inner `json:"c79,omitempty"`
	// +immutable
	// +immutable:message="c80"
	// +immutable:when="has(self.spec.counts) && self.spec.counts[''] > 0"
	// +optional
	C80 *string `json:"c80,omitempty"`
	// +immutable=once
	// +immutable:message="c81"
	// +immutable:when="has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'a' && c.status == 'True')"
	// +optional
	C81 int32 `json:"c81,omitempty"`
	// +immutable
	// +immutable:message="c82"
	// +immutable:when="has(self.spec.topology) && has(self.spec.topology.flag)"
	// +optional
	C82 []string `json:"c82,omitempty"`
	// +immutable=keys
	// +immutable:message="c83"
	// +immutable:when="((has(self.spec.items) && size(self.spec.name) in self.spec.items) ? (has(oldSelf.spec.counts) && oldSelf.spec.counts['ab'] == 1) : (has(self.spec.size) && has(self.spec.items) && self.spec.size in self.spec.items)) || (has(self.status) && has(self.status.ready))"
	// +optional
	C83 map[string]string `json:"c83,omitempty"`
	// +immutable
	// +immutable:message="c84"
	// +immutable:when="has(oldSelf.spec.size) && ((has(self.spec.queue) && has(oldSelf.status) && has(oldSelf.status.phase) && self.spec.queue < oldSelf.status.phase) ? 0 : -1) < oldSelf.spec.size"
	// +optional
	C84 *Inner `json:"c84,omitempty"`
	// +immutable
	// +immutable:message="c85"
	// +immutable:when="!(has(oldSelf.spec.paused) && oldSelf.spec.paused)"
	// +optional
	C85 *string `json:"c85,omitempty"`
	// +immutable=once
	// +immutable:message="c86"
	// +immutable:when="!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)"
	// +optional
	C86 int32 `json:"c86,omitempty"`
	// +immutable
	// +immutable:message="c87"
	// +immutable:when="!has(self.spec.paused) || !self.spec.paused"
	// +optional
	C87 []string `json:"c87,omitempty"`
	// +immutable=keys
	// +immutable:message="c88"
	// +immutable:when="has(oldSelf.spec.topology)"
	// +optional
	C88 map[string]string `json:"c88,omitempty"`
	// +immutable
	// +immutable:message="c89"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == \"Ready\" && c.status == \"True\")"
	// +optional
	C89 *Inner `json:"c89,omitempty"`
	// +immutable
	// +immutable:message="c90"
	// +immutable:when="has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	// +optional
	C90 *string `json:"c90,omitempty"`
}
