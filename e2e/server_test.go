package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apiextensions-apiserver/test/integration/fixtures"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// server is one in-process apiextensions-apiserver with its clients.
type server struct {
	config *rest.Config
	crds   clientset.Interface
	dyn    dynamic.Interface
}

// startServer starts an embedded etcd and an apiextensions-apiserver, both
// listening on 127.0.0.1 only, and stops them when the test ends. Only one
// may run at a time in a process: the server registers global state.
func startServer(t testing.TB) *server {
	t.Helper()
	fixCertFixturePathUnderTrimpath(t)

	etcdURL := startEtcd(t)
	// fixtures.StartDefaultServer reads the etcd address from this variable
	// (it defaults to 127.0.0.1:2379).
	t.Setenv("KUBE_INTEGRATION_ETCD_URL", etcdURL)

	start := time.Now()
	tearDown, config, _, err := fixtures.StartDefaultServer(t)
	if err != nil {
		t.Fatalf("starting apiextensions-apiserver: %v", err)
	}
	t.Cleanup(tearDown)
	t.Logf("apiextensions-apiserver on %s, ready in %v", config.Host, time.Since(start).Round(time.Millisecond))

	config = rest.CopyConfig(config)
	config.QPS, config.Burst = -1, 0 // no client-side throttling: every request is sequential anyway
	config.Timeout = 30 * time.Second
	s := &server{config: config}
	if s.crds, err = clientset.NewForConfig(config); err != nil {
		t.Fatal(err)
	}
	if s.dyn, err = dynamic.NewForConfig(config); err != nil {
		t.Fatal(err)
	}
	return s
}

// startEtcd starts an embedded single-member etcd on 127.0.0.1 (ports chosen
// by the kernel) and returns its client URL.
func startEtcd(t testing.TB) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.UnsafeNoFsync = true // a throwaway single-member test store
	cfg.LogLevel = "error"
	if os.Getenv("E2E_SERVER_LOGS") == "" {
		cfg.LogLevel = "fatal" // not even the errors of its shutdown
	}
	cfg.LogOutputs = []string{"stderr"}
	local := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls = []url.URL{local}
	cfg.AdvertiseClientUrls = []url.URL{local}
	cfg.ListenPeerUrls = []url.URL{local}
	cfg.AdvertisePeerUrls = []url.URL{local}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ListenMetricsUrls = nil

	start := time.Now()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("starting embedded etcd: %v", err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		t.Fatalf("embedded etcd: %v", err)
	case <-time.After(60 * time.Second):
		e.Server.Stop()
		t.Fatal("embedded etcd did not become ready within 60s")
	}
	if len(e.Clients) == 0 {
		t.Fatal("embedded etcd has no client listener")
	}
	addr := "http://" + e.Clients[0].Addr().String()
	t.Logf("embedded etcd on %s, ready in %v", addr, time.Since(start).Round(time.Millisecond))
	return addr
}

// fixCertFixturePathUnderTrimpath: the test server finds its serving
// certificate fixtures next to its own source file, named by runtime.Caller.
// Under -trimpath that name is module-relative and the server refuses to
// start unless TEST_SRCDIR and TEST_WORKSPACE make it absolute again. When
// this file's own name is not absolute, we were built with -trimpath, and
// the module cache is where the server's sources are.
func fixCertFixturePathUnderTrimpath(t testing.TB) {
	_, self, _, _ := runtime.Caller(0)
	if filepath.IsAbs(self) || (os.Getenv("TEST_SRCDIR") != "" && os.Getenv("TEST_WORKSPACE") != "") {
		return
	}
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			t.Fatalf("built with -trimpath: set TEST_SRCDIR=$(go env GOMODCACHE) TEST_WORKSPACE=. (go env GOMODCACHE: %v)", err)
		}
		modcache = strings.TrimSpace(string(out))
	}
	t.Logf("built with -trimpath: TEST_SRCDIR=%s TEST_WORKSPACE=.", modcache)
	t.Setenv("TEST_SRCDIR", modcache)
	t.Setenv("TEST_WORKSPACE", ".")
}

// installCRD creates the CRD in file (as generated, unchanged) and waits,
// bounded, until it is Established and its resource answers a list.
func (s *server) installCRD(t testing.TB, file string) (*apiextensionsv1.CustomResourceDefinition, schema.GroupVersionResource) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	ctx := context.Background()
	created, err := s.crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
	if err != nil {
		t.Fatalf("the API server refused the generated CRD %s: %v", file, err)
	}
	if len(created.Spec.Versions) != 1 {
		t.Fatalf("%s: want one version, got %d", file, len(created.Spec.Versions))
	}
	gvr := schema.GroupVersionResource{Group: created.Spec.Group, Version: created.Spec.Versions[0].Name, Resource: created.Spec.Names.Plural}

	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := s.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		established := false
		for _, c := range got.Status.Conditions {
			switch {
			case c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue:
				established = true
			case c.Type == apiextensionsv1.NamesAccepted && c.Status == apiextensionsv1.ConditionFalse:
				return false, fmt.Errorf("names not accepted: %s", c.Message)
			}
		}
		if !established {
			return false, nil
		}
		// Established is set before every handler has the CRD in its
		// cache; wait until the resource really answers.
		_, err = s.dyn.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("CRD %s not ready: %v", created.Name, err)
	}
	return created, gvr
}
