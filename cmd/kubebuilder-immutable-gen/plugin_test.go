package main

import (
	"bytes"
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// The requests under testdata/requests are the PluginRequests kubebuilder
// v4.15.0 sent to this plugin (captured from a real run of `kubebuilder init
// --plugins go/v4,immutable-gen.immutable-gen.io/v1-alpha --domain
// example.com --repo example.com/demo`, `kubebuilder create api --group cache
// --version v1 --kind Memcached --resource --controller=false --make=false`
// and, in a project initialized with go/v4 alone, `kubebuilder edit --plugins
// immutable-gen.immutable-gen.io/v1-alpha`), re-indented, with the universe
// cut down to a few of the project's files: kubebuilder sends them all. The
// Makefile and types file in them are kubebuilder v4.15.0's scaffolds.

func loadRequest(t *testing.T, name string) PluginRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "requests", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var req PluginRequest
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return req
}

// roundTrip runs the plugin as kubebuilder does: request JSON on stdin,
// response JSON on stdout.
func roundTrip(t *testing.T, req PluginRequest) (PluginResponse, string) {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(nil, bytes.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var resp PluginResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		t.Fatalf("response is not a PluginResponse: %v\n%s", err, stdout.String())
	}
	if resp.APIVersion != protocolVersion || resp.Command != req.Command {
		t.Errorf("response apiVersion %q, command %q; want %q, %q", resp.APIVersion, resp.Command, protocolVersion, req.Command)
	}
	return resp, stderr.String()
}

// TestResponseJSON pins the JSON keys kubebuilder's Go types decode: its
// PluginResponse has JSON tags, its Flag and SubcommandMetadata have none.
func TestResponseJSON(t *testing.T) {
	out, err := json.Marshal(handle(loadRequest(t, "flags-init"), os.Stderr))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"apiVersion", "command", "flags", "metadata", "universe"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("response keys %v, want %v", keys, want)
	}
	flag := m["flags"].([]any)[0].(map[string]any)
	for _, k := range []string{"Name", "Type", "Default", "Usage"} {
		if _, ok := flag[k]; !ok {
			t.Errorf("flag has no key %q: %v", k, flag)
		}
	}
	meta := m["metadata"].(map[string]any)
	for _, k := range []string{"Description", "Examples"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("metadata has no key %q: %v", k, meta)
		}
	}
}

func TestFlagsAndMetadata(t *testing.T) {
	for _, sub := range []string{"init", "edit", "api", "webhook"} {
		t.Run(sub, func(t *testing.T) {
			resp, _ := roundTrip(t, loadRequest(t, "flags-"+sub))
			if resp.Error {
				t.Fatalf("flags: %v", resp.ErrorMsgs)
			}
			wantFlags := sub == "init" || sub == "edit"
			if got := len(resp.Flags) == 1 && resp.Flags[0].Name == flagVersion && resp.Flags[0].Type == "string"; got != wantFlags {
				t.Errorf("flags %+v; want the --%s flag: %v", resp.Flags, flagVersion, wantFlags)
			}
			resp, _ = roundTrip(t, loadRequest(t, "metadata-"+sub))
			if resp.Error || resp.Metadata.Description == "" {
				t.Errorf("metadata %+v, errors %v", resp.Metadata, resp.ErrorMsgs)
			}
			if len(resp.Universe) != 0 {
				t.Errorf("a query returned files: %v", resp.Universe)
			}
		})
	}
}

// TestInit wires the Makefile kubebuilder v4.15.0 scaffolds, and nothing else.
func TestInit(t *testing.T) {
	resp, stderr := roundTrip(t, loadRequest(t, "init"))
	if resp.Error {
		t.Fatalf("error: %v", resp.ErrorMsgs)
	}
	if len(resp.Universe) != 1 || resp.Universe["Makefile"] == "" {
		t.Fatalf("want the Makefile alone in the response universe, got %d files", len(resp.Universe))
	}
	if stderr != "" {
		t.Errorf("unexpected notes: %s", stderr)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "Makefile.golden"), []byte(resp.Universe["Makefile"]))
}

// TestEdit wires a project initialized without the plugin exactly as init
// does; a second edit changes nothing; --immutable-gen-version updates the
// pinned version and nothing else.
func TestEdit(t *testing.T) {
	req := loadRequest(t, "edit")
	resp, _ := roundTrip(t, req)
	if resp.Error {
		t.Fatalf("error: %v", resp.ErrorMsgs)
	}
	wired := resp.Universe["Makefile"]
	// The two projects differ only in their names, p1 and p2.
	golden.Check(t, filepath.Join("testdata", "golden", "Makefile.golden"), []byte(strings.ReplaceAll(wired, "p2-", "p1-")))

	req.Universe["Makefile"] = wired
	if resp, _ := roundTrip(t, req); resp.Error || len(resp.Universe) != 0 {
		t.Errorf("second edit: error %v, changed %d files", resp.ErrorMsgs, len(resp.Universe))
	}

	req.Args = []string{"--" + flagVersion, "v0.3.0"}
	resp, _ = roundTrip(t, req)
	if resp.Error {
		t.Fatalf("error: %v", resp.ErrorMsgs)
	}
	want := strings.Replace(wired, "IMMUTABLE_GEN_VERSION ?= latest\n", "IMMUTABLE_GEN_VERSION ?= v0.3.0\n", 1)
	if got := resp.Universe["Makefile"]; got != want || got == wired {
		t.Errorf("--%s v0.3.0 changed more than the version line:\n%s", flagVersion, got)
	}

	req.Args = []string{"--" + flagVersion + "=main; rm -rf /"}
	if resp, _ := roundTrip(t, req); !resp.Error || !strings.Contains(resp.ErrorMsgs[0], "want a module version") {
		t.Errorf("a bad version was accepted: %+v", resp)
	}
}

// TestInitWithVersion pins the version given on the command line.
func TestInitWithVersion(t *testing.T) {
	req := loadRequest(t, "init")
	req.Args = append(req.Args, "--"+flagVersion+"=v0.1.0")
	resp, _ := roundTrip(t, req)
	if !strings.Contains(resp.Universe["Makefile"], "\nIMMUTABLE_GEN_VERSION ?= v0.1.0\n") {
		t.Errorf("version not pinned: %v", resp.ErrorMsgs)
	}
}

// TestWiredMakefileRuns runs the wired Makefile with make: manifests runs
// the binary named by IMMUTABLE_GEN with controller-gen's arguments, and
// without it the immutable-gen target go-installs the pinned version.
func TestWiredMakefileRuns(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make in PATH")
	}
	original := loadRequest(t, "init").Universe["Makefile"]
	const args = `rbac:roleName=manager-role crd webhook paths="./..." output:crd:artifacts:config=config/crd/bases`
	if !strings.Contains(original, "\n\t\"$(CONTROLLER_GEN)\" "+args+"\n") {
		t.Fatal("the kubebuilder Makefile's manifests recipe is not the one this test expects")
	}
	resp, _ := roundTrip(t, loadRequest(t, "init"))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(resp.Universe["Makefile"]), 0o644); err != nil {
		t.Fatal(err)
	}
	makeIn := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("make", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// The shell removes the quotes around ./... as it did for controller-gen.
	want := strings.ReplaceAll(args, `"`, "") + "\n"
	if got := makeIn(nil, "-s", "manifests", "IMMUTABLE_GEN=/bin/echo"); got != want {
		t.Errorf("make manifests IMMUTABLE_GEN=/bin/echo ran:\n%s\nwant:\n%s", got, want)
	}
	if got := makeIn([]string{"IMMUTABLE_GEN=/bin/echo"}, "-s", "manifests"); got != want {
		t.Errorf("IMMUTABLE_GEN=/bin/echo make manifests ran:\n%s\nwant:\n%s", got, want)
	}
	if got := makeIn(nil, "-n", "immutable-gen"); !strings.Contains(got, "package="+toolPackage+"@latest") {
		t.Errorf("make -n immutable-gen does not install %s@latest:\n%s", toolPackage, got)
	}
}

// TestWireGoV3Makefile wires a Makefile in the style of kubebuilder's go/v3
// layout: no go-install-tool macro, $(CONTROLLER_GEN) unquoted.
func TestWireGoV3Makefile(t *testing.T) {
	const src = `.PHONY: manifests
manifests: controller-gen ## Generate WebhookConfiguration, ClusterRole and CustomResourceDefinition objects.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd webhook paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate code containing DeepCopy, DeepCopyInto, and DeepCopyObject method implementations.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
CONTROLLER_TOOLS_VERSION ?= v0.14.0

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Download controller-gen locally if necessary.
$(CONTROLLER_GEN): $(LOCALBIN)
	test -s $(LOCALBIN)/controller-gen && $(LOCALBIN)/controller-gen --version | grep -q $(CONTROLLER_TOOLS_VERSION) || \
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)
`
	const want = `.PHONY: manifests
manifests: immutable-gen ## Generate WebhookConfiguration, ClusterRole and CustomResourceDefinition objects.
	$(IMMUTABLE_GEN) rbac:roleName=manager-role crd webhook paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate code containing DeepCopy, DeepCopyInto, and DeepCopyObject method implementations.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
IMMUTABLE_GEN ?= $(LOCALBIN)/immutable-gen
CONTROLLER_TOOLS_VERSION ?= v0.14.0
IMMUTABLE_GEN_VERSION ?= v1.2.3

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Download controller-gen locally if necessary.
$(CONTROLLER_GEN): $(LOCALBIN)
	test -s $(LOCALBIN)/controller-gen && $(LOCALBIN)/controller-gen --version | grep -q $(CONTROLLER_TOOLS_VERSION) || \
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)

# immutable-gen replaces controller-gen in the manifests target (` + guideURL + `).
# make manifests IMMUTABLE_GEN=/path/to/immutable-gen uses that binary as it is.
.PHONY: immutable-gen
immutable-gen: $(LOCALBIN) ## Download immutable-gen locally if necessary.
ifeq ($(origin IMMUTABLE_GEN),file)
	test -s "$(IMMUTABLE_GEN)" || GOBIN="$(LOCALBIN)" go install ` + toolPackage + `@$(IMMUTABLE_GEN_VERSION)
endif
`
	got, err := wireMakefile(src, "v1.2.3", false)
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Replace(got, manifestsComment+"\n", "", 1)
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWireErrors(t *testing.T) {
	for name, tc := range map[string]struct{ makefile, want string }{
		"not kubebuilder":      {"all:\n\tgo build ./...\n", "no LOCALBIN variable"},
		"no manifests target":  {"LOCALBIN ?= bin\nall:\n\tgo build ./...\n", "no manifests target"},
		"manifests by another": {"LOCALBIN ?= bin\nmanifests:\n\t./hack/gen.sh\n", "does not run $(CONTROLLER_GEN)"},
	} {
		t.Run(name, func(t *testing.T) {
			req := loadRequest(t, "edit")
			req.Universe["Makefile"] = tc.makefile
			resp, _ := roundTrip(t, req)
			if !resp.Error || len(resp.ErrorMsgs) != 1 || !strings.Contains(resp.ErrorMsgs[0], tc.want) {
				t.Errorf("got error %v, messages %q; want one containing %q", resp.Error, resp.ErrorMsgs, tc.want)
			}
			if len(resp.Universe) != 0 {
				t.Errorf("a failed edit returned files")
			}
		})
	}
	req := loadRequest(t, "init")
	delete(req.Universe, "Makefile")
	if resp, _ := roundTrip(t, req); !resp.Error || !strings.Contains(resp.ErrorMsgs[0], "go/v4,"+pluginKey) {
		t.Errorf("init without a Makefile: %+v", resp)
	}
}

// TestCreateAPI adds the example comment to the types file kubebuilder
// v4.15.0 scaffolds, and nothing else; the result is gofmt-formatted, and a
// second run changes nothing.
func TestCreateAPI(t *testing.T) {
	req := loadRequest(t, "create-api")
	resp, stderr := roundTrip(t, req)
	if resp.Error || stderr != "" {
		t.Fatalf("error: %v %s", resp.ErrorMsgs, stderr)
	}
	const file = "api/v1/memcached_types.go"
	got, ok := resp.Universe[file]
	if !ok || len(resp.Universe) != 1 {
		t.Fatalf("want %s alone in the response universe, got %d files", file, len(resp.Universe))
	}
	golden.Check(t, filepath.Join("testdata", "golden", "memcached_types.go.golden"), []byte(got))
	if formatted, err := format.Source([]byte(got)); err != nil || string(formatted) != got {
		t.Errorf("the edited file is not gofmt-formatted (%v)", err)
	}
	if want := strings.Replace(req.Universe[file], "\n\t// foo is an example field", "\n"+strings.Join(exampleComment("Memcached", "\t"), "\n")+"\n\n\t// foo is an example field", 1); got != want {
		t.Error("the file changed elsewhere than above the doc comment of Foo")
	}
	for _, l := range strings.Split(got, "\n") {
		if text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "//")); strings.HasPrefix(text, "+immutable") {
			t.Errorf("the example comment holds a live +immutable marker: %s", l)
		}
	}

	req.Universe[file] = got
	if resp, _ := roundTrip(t, req); resp.Error || len(resp.Universe) != 0 {
		t.Errorf("second run: error %v, changed %d files", resp.ErrorMsgs, len(resp.Universe))
	}
}

func TestCreateAPINothingToDo(t *testing.T) {
	req := loadRequest(t, "create-api")
	req.Args = []string{"--group", "cache", "--version", "v1", "--kind", "Memcached", "--resource=false"}
	if resp, _ := roundTrip(t, req); resp.Error || len(resp.Universe) != 0 {
		t.Errorf("--resource=false: %+v", resp)
	}

	req = loadRequest(t, "create-api")
	delete(req.Universe, "api/v1/memcached_types.go")
	resp, stderr := roundTrip(t, req)
	if resp.Error || len(resp.Universe) != 0 || !strings.Contains(stderr, "no api/v1/memcached_types.go") {
		t.Errorf("missing types file: %+v, notes %q", resp, stderr)
	}

	req = loadRequest(t, "create-api")
	req.Universe["api/v1/memcached_types.go"] = "package v1\n\ntype MemcachedSpec struct{}\n"
	resp, stderr = roundTrip(t, req)
	if resp.Error || len(resp.Universe) != 0 || !strings.Contains(stderr, "no example field Foo in MemcachedSpec") {
		t.Errorf("empty spec: %+v, notes %q", resp, stderr)
	}
}

func TestTypesFile(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		config map[string]any
		want   string
	}{
		{[]string{"--group", "cache", "--version", "v1", "--kind", "Memcached"}, nil, "api/v1/memcached_types.go"},
		{[]string{"--group=cache", "--version=v1beta1", "--kind=CacheCluster"}, map[string]any{"multigroup": true}, "api/cache/v1beta1/cachecluster_types.go"},
		{[]string{"--group", "ship", "--version", "v2", "--kind", "Frigate"}, map[string]any{
			"repo": "example.com/demo",
			"resources": []any{map[string]any{
				"group": "ship", "version": "v2", "kind": "Frigate", "path": "example.com/demo/pkg/apis/ship/v2",
			}},
		}, "pkg/apis/ship/v2/frigate_types.go"},
	} {
		if got := typesFile(PluginRequest{Args: tc.args, Config: tc.config}); got != tc.want {
			t.Errorf("typesFile(%v, %v) = %s, want %s", tc.args, tc.config, got, tc.want)
		}
	}
}

func TestBadRequests(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(nil, strings.NewReader("{not json"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var resp PluginResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil || !resp.Error || !strings.Contains(resp.ErrorMsgs[0], "reading the PluginRequest") {
		t.Errorf("malformed request: %v %+v", err, resp)
	}
	if resp, _ := roundTrip(t, PluginRequest{APIVersion: protocolVersion, Command: "delete api"}); !resp.Error || !strings.Contains(resp.ErrorMsgs[0], `unknown command "delete api"`) {
		t.Errorf("unknown command: %+v", resp)
	}
	if resp, _ := roundTrip(t, PluginRequest{APIVersion: protocolVersion, Command: "create webhook"}); resp.Error || len(resp.Universe) != 0 {
		t.Errorf("create webhook: %+v", resp)
	}
}

func TestInstall(t *testing.T) {
	root := t.TempDir()
	t.Setenv("EXTERNAL_PLUGINS_PATH", root)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"install"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := filepath.Join(root, "immutable-gen.immutable-gen.io", "v1-alpha", "immutable-gen.immutable-gen.io")
	if got := strings.TrimSpace(stdout.String()); got != want {
		t.Errorf("installed at %s, want %s", got, want)
	}
	fi, err := os.Stat(want)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("installed plugin: %v, %v", err, fi)
	}
	self, _ := os.Executable()
	a, _ := os.ReadFile(self)
	b, _ := os.ReadFile(want)
	if !bytes.Equal(a, b) {
		t.Error("the installed plugin is not a copy of the executable")
	}
	// Nothing else may be left in kubebuilder's plugin directories: it
	// refuses a version directory that holds a file starting with a dot.
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if len(files) != 1 {
		t.Errorf("files under the plugins root: %v", files)
	}
}
