package main

import (
	"go/format"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// The request testdata/requests/create-webhook.json is the PluginRequest
// kubebuilder v4.15.0 sent for `kubebuilder create webhook --group cache
// --version v1 --kind Memcached --programmatic-validation --make=false` in a
// project initialized with go/v4 and this plugin, after `create api`
// (captured from a real run, the universe cut down to the files the plugin
// reads; the Makefile and types file are the ones this plugin wired and
// annotated, testdata/golden/Makefile.golden and
// memcached_types.go.golden).

const (
	webhookPath = "internal/webhook/v1/memcached_webhook.go"
	typesPath   = "api/v1/memcached_types.go"
)

// markFoo marks the scaffolded example field Foo +immutable, as a user
// following the example comment would.
func markFoo(t *testing.T, req PluginRequest) {
	t.Helper()
	types := req.Universe[typesPath]
	marked := strings.Replace(types, "\t// +optional\n\tFoo *string", "\t// +immutable\n\t// +optional\n\tFoo *string", 1)
	if marked == types {
		t.Fatal("no field Foo to mark")
	}
	req.Universe[typesPath] = marked
}

// TestCreateWebhook: with a marked field, the scaffolded validator is
// registered inside ImmutableValidator and make generate writes the typed
// validators; running the plugin again changes nothing.
func TestCreateWebhook(t *testing.T) {
	req := loadRequest(t, "create-webhook")
	markFoo(t, req)
	resp, stderr := roundTrip(t, req)
	if resp.Error || stderr != "" {
		t.Fatalf("error: %v %s", resp.ErrorMsgs, stderr)
	}
	if len(resp.Universe) != 2 {
		t.Fatalf("want the Makefile and %s in the response universe, got %d files", webhookPath, len(resp.Universe))
	}
	got := resp.Universe[webhookPath]
	golden.Check(t, filepath.Join("testdata", "golden", "memcached_webhook.go.golden"), []byte(got))
	if formatted, err := format.Source([]byte(got)); err != nil || string(formatted) != got {
		t.Errorf("the edited file is not gofmt-formatted (%v)", err)
	}
	const wrappedCall = "WithValidator(&immutablewebhook.ImmutableValidator[*cachev1.Memcached]{Next: &MemcachedCustomValidator{}})"
	if !strings.Contains(got, wrappedCall) || strings.Contains(got, "WithValidator(&MemcachedCustomValidator{})") {
		t.Errorf("the validator is not wrapped:\n%s", got)
	}

	makefile := resp.Universe["Makefile"]
	golden.Check(t, filepath.Join("testdata", "golden", "Makefile-webhook.golden"), []byte(makefile))
	want := strings.Replace(req.Universe["Makefile"],
		".PHONY: generate\ngenerate: controller-gen ## Generate code containing DeepCopy, DeepCopyInto, and DeepCopyObject method implementations.\n"+
			"\t\"$(CONTROLLER_GEN)\" object:headerFile=\"hack/boilerplate.go.txt\",year=$(YEAR) paths=\"./...\"\n",
		generateComment+"\n.PHONY: generate\ngenerate: controller-gen immutable-gen ## Generate code containing DeepCopy, DeepCopyInto, and DeepCopyObject method implementations.\n"+
			"\t\"$(CONTROLLER_GEN)\" object:headerFile=\"hack/boilerplate.go.txt\",year=$(YEAR) paths=\"./...\"\n"+
			"\t\"$(IMMUTABLE_GEN)\" validators:headerFile=\"hack/boilerplate.go.txt\",year=$(YEAR) paths=\"./...\"\n", 1)
	if makefile != want {
		t.Errorf("the Makefile changed elsewhere than in the generate target")
	}

	for file, content := range resp.Universe {
		req.Universe[file] = content
	}
	if resp, stderr := roundTrip(t, req); resp.Error || len(resp.Universe) != 0 || stderr != "" {
		t.Errorf("second run: error %v, changed %d files, notes %q", resp.ErrorMsgs, len(resp.Universe), stderr)
	}
}

// TestCreateWebhookWithoutMarkers: the kind has no marker yet (only the
// plugin's example comment), so the generated method would not exist: the
// webhook is left alone, with a note saying how to wrap it later; the
// Makefile is wired all the same.
func TestCreateWebhookWithoutMarkers(t *testing.T) {
	req := loadRequest(t, "create-webhook")
	resp, stderr := roundTrip(t, req)
	if resp.Error {
		t.Fatalf("error: %v", resp.ErrorMsgs)
	}
	if _, ok := resp.Universe[webhookPath]; ok || resp.Universe["Makefile"] == "" || len(resp.Universe) != 1 {
		t.Errorf("want the Makefile alone in the response universe, got %d files", len(resp.Universe))
	}
	for _, want := range []string{
		"Memcached has no +immutable marker yet",
		"WithValidator(&immutablewebhook.ImmutableValidator[*cachev1.Memcached]{Next: &MemcachedCustomValidator{}})",
		`import immutablewebhook "github.com/immutable-gen/immutable-gen/runtime/webhook"`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the note lacks %q:\n%s", want, stderr)
		}
	}
}

// TestCreateWebhookNothingToDo: no validator scaffolded, or none found.
func TestCreateWebhookNothingToDo(t *testing.T) {
	req := loadRequest(t, "create-webhook")
	markFoo(t, req)
	req.Args = []string{"--group", "cache", "--version", "v1", "--kind", "Memcached", "--defaulting"}
	if resp, stderr := roundTrip(t, req); resp.Error || len(resp.Universe) != 0 || stderr != "" {
		t.Errorf("--defaulting only: %+v, notes %q", resp, stderr)
	}

	req = loadRequest(t, "create-webhook")
	markFoo(t, req)
	// A validator of any name is found by the registration's shape.
	req.Universe[webhookPath] = strings.Replace(req.Universe[webhookPath], "WithValidator(&MemcachedCustomValidator{})", "WithValidator(&MyValidator{})", 1)
	if resp, stderr := roundTrip(t, req); resp.Error || !strings.Contains(resp.Universe[webhookPath], "{Next: &MyValidator{}}") || stderr != "" {
		t.Errorf("validator renamed: %d files, notes %q", len(resp.Universe), stderr)
	}
	// No registration at all: a note that says what to register.
	req.Universe[webhookPath] = strings.Replace(req.Universe[webhookPath], "WithValidator(&MyValidator{}).", "", 1)
	resp, stderr := roundTrip(t, req)
	if resp.Error || len(resp.Universe) != 1 || !strings.Contains(stderr, "no memcached_webhook.go registering a validator for Memcached found") {
		t.Errorf("no registration: %d files, notes %q", len(resp.Universe), stderr)
	}
	// The note's registration compiles when pasted: the kind's type is
	// qualified by go/v4's import alias, and the import is given.
	for _, want := range []string{
		"WithValidator(&immutablewebhook.ImmutableValidator[*cachev1.Memcached]{Next: &MemcachedValidator{}})",
		`import immutablewebhook "github.com/immutable-gen/immutable-gen/runtime/webhook"`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the note lacks %q:\n%s", want, stderr)
		}
	}
}

// TestCreateWebhookV416: kubebuilder v4.16 scaffolds <Kind>Validator, not
// <Kind>CustomValidator: the plugin finds the registration by its shape and
// wraps whatever validator it names.
func TestCreateWebhookV416(t *testing.T) {
	req := loadRequest(t, "create-webhook")
	markFoo(t, req)
	req.Universe[webhookPath] = strings.ReplaceAll(req.Universe[webhookPath], "MemcachedCustomValidator", "MemcachedValidator")
	resp, stderr := roundTrip(t, req)
	if resp.Error || stderr != "" {
		t.Fatalf("error: %v %s", resp.ErrorMsgs, stderr)
	}
	got := resp.Universe[webhookPath]
	const wrappedCall = "WithValidator(&immutablewebhook.ImmutableValidator[*cachev1.Memcached]{Next: &MemcachedValidator{}})"
	if !strings.Contains(got, wrappedCall) || strings.Contains(got, "WithValidator(&MemcachedValidator{})") {
		t.Errorf("the validator is not wrapped:\n%s", got)
	}
	if formatted, err := format.Source([]byte(got)); err != nil || string(formatted) != got {
		t.Errorf("the edited file is not gofmt-formatted (%v)", err)
	}
}

func TestHasImmutableMarkers(t *testing.T) {
	for src, want := range map[string]bool{
		"\t// +immutable\n":                    true,
		"\t// +immutable=keys\n":               true,
		"// +immutable=once\n":                 true,
		"\t//\t// +immutable\n":                false, // the plugin's example comment
		"\t// +immutable:message=\"x\"\n":      false,
		"\t// Foo is +immutable, see below.\n": false,
	} {
		u := map[string]string{"api/v1/x_types.go": src, "api/v2/y_types.go": "// +immutable\n"}
		if got := hasImmutableMarkers(u, "api/v1"); got != want {
			t.Errorf("hasImmutableMarkers(%q) = %v, want %v", src, got, want)
		}
	}
}

// TestWebhookLayouts: the webhook file and the kind's Go type in go/v4's
// layouts: single group, multigroup, and the legacy one in the API package.
func TestWebhookLayouts(t *testing.T) {
	const scaffolded = "return ctrl.NewWebhookManagedBy(mgr, &shipv2.Frigate{}).\n\t\tWithValidator(&FrigateCustomValidator{}).\n"
	const v416 = "return ctrl.NewWebhookManagedBy(mgr, &shipv2.Frigate{}).\n\t\tWithValidator(&FrigateValidator{}).\n"
	const legacy = "return ctrl.NewWebhookManagedBy(mgr, r).\n\t\tWithValidator(&FrigateCustomValidator{}).\n"
	for _, tc := range []struct {
		universe                    map[string]string
		wantFile, wantTy, validator string
	}{
		{map[string]string{"internal/webhook/v2/frigate_webhook.go": scaffolded}, "internal/webhook/v2/frigate_webhook.go", "*shipv2.Frigate", "FrigateCustomValidator"},
		{map[string]string{"internal/webhook/v2/frigate_webhook.go": v416}, "internal/webhook/v2/frigate_webhook.go", "*shipv2.Frigate", "FrigateValidator"},
		{map[string]string{"internal/webhook/ship/v2/frigate_webhook.go": scaffolded, "internal/webhook/ship/v1/frigate_webhook.go": scaffolded}, "internal/webhook/ship/v2/frigate_webhook.go", "*shipv2.Frigate", "FrigateCustomValidator"},
		{map[string]string{"api/v2/frigate_webhook.go": legacy}, "api/v2/frigate_webhook.go", "*Frigate", "FrigateCustomValidator"},
		{map[string]string{"internal/webhook/v2/sloop_webhook.go": strings.Replace(scaffolded, "Frigate", "Sloop", -1)}, "", "", ""},
		{map[string]string{"internal/webhook/v2/frigate_webhook.go": "return ctrl.NewWebhookManagedBy(mgr, &shipv2.Frigate{}).\n\t\tComplete()\n"}, "", "", ""},
	} {
		file, validator := webhookFile(tc.universe, "Frigate", "v2")
		if file != tc.wantFile || validator != tc.validator {
			t.Errorf("webhookFile(%v) = %q, %q, want %q, %q", tc.universe, file, validator, tc.wantFile, tc.validator)
		}
		if file != "" {
			if got := objectType(tc.universe[file], "Frigate"); got != tc.wantTy {
				t.Errorf("objectType(%s) = %q, want %q", file, got, tc.wantTy)
			}
		}
	}
}
