package kubebuilder

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const (
	kubebuilderModule = "sigs.k8s.io/kubebuilder/v4"
	pluginKey         = "immutable-gen.immutable-gen.io/v1-alpha"
)

// releases are the kubebuilder releases the plugin is tested with, and the
// validator each one's go/v4 scaffolds (v4.16 renamed it; the plugin finds
// it by the registration's shape).
var releases = []struct{ version, validator string }{
	{"v4.15.0", "MemcachedCustomValidator"},
	{"v4.16.0", "MemcachedValidator"},
}

// step runs a command in dir and fails the test with its output if it fails.
func step(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("%.1fs: %s %s", time.Since(start).Seconds(), filepath.Base(name), strings.Join(args, " "))
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildKubebuilder builds kubebuilder from its module at the pinned version,
// in a throwaway module that requires it (go install pkg@version would ask
// the module proxy for the module's version list, which it may refuse).
func buildKubebuilder(t *testing.T, work, bin, kubebuilderVersion string) string {
	t.Helper()
	mod := filepath.Join(work, "kubebuilder-build")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mod, "go.mod"), "module kubebuilderbuild\n\ngo 1.26.0\n\nrequire "+kubebuilderModule+" "+kubebuilderVersion+"\n")
	exe := filepath.Join(bin, "kubebuilder")
	step(t, mod, nil, "go", "build", "-mod=mod", "-o", exe, kubebuilderModule)
	return exe
}

var fooField = regexp.MustCompile(`(?m)^\tFoo \*string ` + "`" + `json:"foo,omitempty"` + "`" + `$`)

// TestKubebuilderPlugin scaffolds a project with kubebuilder and the plugin
// as a user would, then marks a field +immutable and generates its CRD.
func TestKubebuilderPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubebuilder and scaffolds projects")
	}
	for _, r := range releases {
		t.Run(r.version, func(t *testing.T) { testRelease(t, r.version, r.validator) })
	}
}

func testRelease(t *testing.T, kubebuilderVersion, validator string) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	bin := filepath.Join(work, "bin")

	kubebuilder := buildKubebuilder(t, work, bin, kubebuilderVersion)
	plugin := filepath.Join(bin, "kubebuilder-immutable-gen")
	immutableGen := filepath.Join(bin, "immutable-gen")
	step(t, repo, nil, "go", "build", "-o", plugin, "./cmd/kubebuilder-immutable-gen")
	step(t, repo, nil, "go", "build", "-o", immutableGen, "./cmd/immutable-gen")

	// Install the plugin where kubebuilder looks for it.
	plugins := filepath.Join(work, "plugins")
	env := []string{"EXTERNAL_PLUGINS_PATH=" + plugins}
	installed := strings.TrimSpace(step(t, work, env, plugin, "install"))
	if want := filepath.Join(plugins, "immutable-gen.immutable-gen.io", "v1-alpha", "immutable-gen.immutable-gen.io"); installed != want {
		t.Fatalf("plugin installed at %s, want %s", installed, want)
	}
	if help := step(t, work, env, kubebuilder, "init", "--plugins", "go/v4,"+pluginKey, "--help"); !strings.Contains(help, "--immutable-gen-version") {
		t.Errorf("kubebuilder init --help does not show the plugin's flag:\n%s", help)
	}

	// kubebuilder init: go/v4 scaffolds, then the plugin wires the Makefile.
	project := filepath.Join(work, "demo")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	step(t, project, env, kubebuilder, "init", "--plugins", "go/v4,"+pluginKey, "--domain", "example.com", "--repo", "example.com/demo")
	makefile := readFile(t, filepath.Join(project, "Makefile"))
	const manifests = "\n\t\"$(IMMUTABLE_GEN)\" rbac:roleName=manager-role crd webhook paths=\"./...\" output:crd:artifacts:config=config/crd/bases\n"
	if !strings.Contains(makefile, manifests) || !strings.Contains(makefile, "\nmanifests: immutable-gen ") {
		t.Fatalf("the Makefile's manifests target does not run immutable-gen:\n%s", makefile)
	}
	if !strings.Contains(readFile(t, filepath.Join(project, "PROJECT")), "- "+pluginKey+"\n") {
		t.Errorf("PROJECT does not record the plugin in its layout")
	}

	// kubebuilder create api: go/v4 scaffolds the types (and runs make
	// generate with controller-gen), then the plugin adds its comment.
	step(t, project, env, kubebuilder, "create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached", "--resource", "--controller=false")
	typesPath := filepath.Join(project, "api", "v1", "memcached_types.go")
	types := readFile(t, typesPath)
	if !strings.Contains(types, "// immutable-gen: a field marked +immutable") {
		t.Fatalf("create api did not add the example comment:\n%s", types)
	}

	// Without a marker immutable-gen generates what controller-gen does: no rules.
	crdPath := filepath.Join(project, "config", "crd", "bases", "cache.example.com_memcacheds.yaml")
	step(t, project, nil, "make", "manifests", "IMMUTABLE_GEN="+immutableGen)
	if crd := readFile(t, crdPath); strings.Contains(crd, "x-kubernetes-validations") {
		t.Fatalf("CRD has validation rules before any marker:\n%s", crd)
	}

	// Mark foo immutable, as the example comment says, and regenerate.
	if !fooField.MatchString(types) {
		t.Fatalf("no field Foo in the scaffolded types:\n%s", types)
	}
	marked := strings.Replace(types, "\t// +optional\n\tFoo *string", "\t// +immutable\n\t// +optional\n\tFoo *string", 1)
	if marked == types {
		t.Fatalf("could not mark Foo:\n%s", types)
	}
	writeFile(t, typesPath, marked)
	out := step(t, project, nil, "make", "manifests", "IMMUTABLE_GEN="+immutableGen)
	if !strings.Contains(out, immutableGen) {
		t.Errorf("make manifests did not run %s:\n%s", immutableGen, out)
	}
	crd := readFile(t, crdPath)
	for _, want := range []string{
		// On foo: its value never changes.
		"                type: string\n                x-kubernetes-validations:\n                - message: field is immutable\n                  rule: self == oldSelf\n",
		// On spec: foo is optional, so it may not be added or removed either.
		"            x-kubernetes-validations:\n            - fieldPath: .foo\n",
		"              reason: FieldValueForbidden\n              rule: has(self.foo) == has(oldSelf.foo)\n",
	} {
		if !strings.Contains(crd, want) {
			t.Errorf("the CRD lacks\n%s\nin:\n%s", want, crd)
		}
	}
	if strings.Contains(crd, "immutable-gen:") {
		t.Errorf("the example comment leaked into the CRD's descriptions:\n%s", crd)
	}

	// The scaffolded project builds.
	step(t, project, nil, "go", "build", "./...")

	// kubebuilder edit with the plugin again changes nothing.
	step(t, project, env, kubebuilder, "edit", "--plugins", pluginKey)
	if got := readFile(t, filepath.Join(project, "Makefile")); got != makefile {
		t.Errorf("a second wiring changed the Makefile:\n%s", got)
	}
	if got := readFile(t, typesPath); got != marked {
		t.Errorf("kubebuilder edit changed the types file")
	}

	// A project initialized without the plugin gets the same Makefile from
	// kubebuilder edit.
	other := filepath.Join(work, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	step(t, other, env, kubebuilder, "init", "--plugins", "go/v4", "--domain", "example.com", "--repo", "example.com/other")
	before := readFile(t, filepath.Join(other, "Makefile"))
	if strings.Contains(before, "IMMUTABLE_GEN") {
		t.Fatal("go/v4 alone wired immutable-gen")
	}
	step(t, other, env, kubebuilder, "edit", "--plugins", pluginKey)
	got := readFile(t, filepath.Join(other, "Makefile"))
	if want := strings.ReplaceAll(makefile, "demo-", "other-"); got != want {
		t.Errorf("kubebuilder edit wired the Makefile differently from init:\n%s", lineDiff(want, got))
	}
	step(t, other, env, kubebuilder, "edit", "--plugins", pluginKey)
	if again := readFile(t, filepath.Join(other, "Makefile")); again != got {
		t.Errorf("a second kubebuilder edit changed the Makefile")
	}

	// The plugin's flag goes through kubebuilder: it repins the version.
	step(t, other, env, kubebuilder, "edit", "--plugins", pluginKey, "--immutable-gen-version", "v0.9.9")
	pinned := readFile(t, filepath.Join(other, "Makefile"))
	if want := regexp.MustCompile(`(?m)^IMMUTABLE_GEN_VERSION \?= .*$`).ReplaceAllString(got, "IMMUTABLE_GEN_VERSION ?= v0.9.9"); pinned != want || pinned == got {
		t.Errorf("--immutable-gen-version v0.9.9 did not repin the version alone:\n%s", lineDiff(want, pinned))
	}

	// kubebuilder create webhook: go/v4 scaffolds the validator, then the
	// plugin registers it inside ImmutableValidator (Foo is marked) and
	// makes make generate write the typed validators. The scaffold imports
	// this repository's runtime/webhook; go/v4 runs go mod tidy, so the
	// project requires its modules (runtime/webhook and the runtime it
	// builds on: docs/guide.md, "Libraries and their modules") from the
	// working tree.
	step(t, project, nil, "go", "mod", "edit",
		"-require=github.com/immutable-gen/immutable-gen/runtime/webhook@v0.0.0", "-replace=github.com/immutable-gen/immutable-gen/runtime/webhook="+filepath.Join(repo, "runtime", "webhook"),
		"-require=github.com/immutable-gen/immutable-gen/runtime@v0.0.0", "-replace=github.com/immutable-gen/immutable-gen/runtime="+filepath.Join(repo, "runtime"))
	step(t, project, env, kubebuilder, "create", "webhook", "--group", "cache", "--version", "v1", "--kind", "Memcached", "--programmatic-validation", "--make=false")
	webhookFile := readFile(t, filepath.Join(project, "internal", "webhook", "v1", "memcached_webhook.go"))
	if !strings.Contains(webhookFile, "WithValidator(&immutablewebhook.ImmutableValidator[*cachev1.Memcached]{Next: &"+validator+"{}})") {
		t.Fatalf("create webhook did not wrap the validator:\n%s", webhookFile)
	}
	if mk := readFile(t, filepath.Join(project, "Makefile")); !strings.Contains(mk, "\n\t\"$(IMMUTABLE_GEN)\" validators:headerFile=\"hack/boilerplate.go.txt\",year=$(YEAR) paths=\"./...\"\n") {
		t.Fatalf("the generate target does not run immutable-gen validators:\n%s", mk)
	}
	// A conditional marker: make generate compiles its condition into the
	// typed validator, with no finding.
	conditional := strings.Replace(readFile(t, typesPath), "\t// +immutable\n\t// +optional\n\tFoo *string",
		"\t// +immutable\n\t// +immutable:when=\"has(oldSelf.spec.foo)\"\n\t// +optional\n\tSize *int32 `json:\"size,omitempty\"`\n\n\t// +immutable\n\t// +optional\n\tFoo *string", 1)
	writeFile(t, typesPath, conditional)
	if out := step(t, project, nil, "make", "generate", "IMMUTABLE_GEN="+immutableGen); strings.Contains(out, "IG05") || strings.Contains(out, "IG04") {
		t.Errorf("make generate reported the conditional field:\n%s", out)
	}
	step(t, project, nil, "make", "manifests", "IMMUTABLE_GEN="+immutableGen)
	generated := readFile(t, filepath.Join(project, "api", "v1", "zz_generated.immutable.go"))
	if !strings.Contains(generated, "func (in *Memcached) ValidateImmutableUpdate(old *Memcached) field.ErrorList") || !strings.Contains(generated, "func whenCondMemcachedSize(") {
		t.Fatalf("make generate did not write ValidateImmutableUpdate:\n%s", generated)
	}
	// The project builds and vets with the wrapped validator.
	step(t, project, nil, "go", "build", "./...")
	step(t, project, nil, "go", "vet", "./internal/webhook/...")
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)) && b.Len() < 4000; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
