package genericapiserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/util/wait"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/openapi"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"

	immutableadmission "github.com/immutable-gen/immutable-gen/runtime/admission"
)

func init() {
	// The server applies logging options; a second application in one
	// process must not fail.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

// startServer starts an embedded etcd and an apiextensions-apiserver with
// the ImmutableFields plugin registered and enabled, configured by the
// admission configuration file admissionConfig, all on 127.0.0.1; both stop
// when the test ends. It returns the server's loopback client config.
//
// This is what the apiextensions-apiserver's own test server does
// (k8s.io/apiextensions-apiserver/pkg/cmd/server/testing), plus the two
// lines an aggregated API server adds to its options to wire the plugin:
// Register on RecommendedOptions.Admission.Plugins, and PluginOrder on
// RecommendedOptions.Admission.RecommendedPluginOrder.
func startServer(t *testing.T, admissionConfig string) *rest.Config {
	t.Helper()
	etcdURL := startEtcd(t)
	dir := t.TempDir()

	// Authentication and authorization need a kubeconfig to start; the
	// loopback client this test uses never consults it.
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: unused, cluster: {server: "http://127.0.0.1:1"}}]
contexts: [{name: unused, context: {cluster: unused, user: unused}}]
current-context: unused
users: [{name: unused, user: {token: unused}}]
`), 0o600); err != nil {
		t.Fatal(err)
	}

	o := options.NewCustomResourceDefinitionsServerOptions(io.Discard, io.Discard)
	// Wire the plugin, as an aggregated API server does in its options.
	immutableadmission.Register(o.RecommendedOptions.Admission.Plugins)
	o.RecommendedOptions.Admission.RecommendedPluginOrder = immutableadmission.PluginOrder(o.RecommendedOptions.Admission.RecommendedPluginOrder)

	// A component registry of its own, as the upstream test server does.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	effectiveVersion := compatibility.DefaultKubeEffectiveVersionForTest()
	effectiveVersion.SetEmulationVersion(featureGate.EmulationVersion())
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, effectiveVersion, featureGate); err != nil {
		t.Fatal(err)
	}
	o.ServerRunOptions.ComponentGlobalsRegistry = registry

	fs := pflag.NewFlagSet("apiextensions-apiserver", pflag.ContinueOnError)
	o.AddFlags(fs)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.RecommendedOptions.SecureServing.Listener = ln
	o.RecommendedOptions.SecureServing.BindPort = ln.Addr().(*net.TCPAddr).Port
	o.RecommendedOptions.SecureServing.ServerCert.CertDirectory = dir
	o.RecommendedOptions.SecureServing.ExternalAddress = net.IPv4(127, 0, 0, 1)
	if err := fs.Parse([]string{
		"--etcd-servers", etcdURL,
		"--authentication-skip-lookup",
		"--authentication-kubeconfig", kubeconfig,
		"--authorization-kubeconfig", kubeconfig,
		"--kubeconfig", kubeconfig,
		"--enable-priority-and-fairness=false",
		// Plugins that need a kube-apiserver behind them are off, as in the
		// upstream test server; ours is on and configured by file.
		"--disable-admission-plugins", "NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy",
		"--enable-admission-plugins", immutableadmission.PluginName,
		"--admission-control-config-file", admissionConfig,
	}); err != nil {
		t.Fatal(err)
	}
	if err := registry.Set(); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	config, err := o.Config()
	if err != nil {
		t.Fatalf("server config: %v", err)
	}
	config.GenericConfig.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(
		openapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions),
		openapinamer.NewDefinitionNamer(apiserver.Scheme))
	server, err := config.Complete().New(genericapiserver.NewEmptyDelegate())
	if err != nil {
		t.Fatalf("creating the server: %v", err)
	}

	start := time.Now()
	ctx, cancel := context.WithCancelCause(context.Background())
	errCh := make(chan error, 1)
	go func() {
		errCh <- server.GenericAPIServer.PrepareRun().RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel(errors.New("test ends"))
		select {
		case err := <-errCh:
			if err != nil {
				t.Logf("server stopped: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Error("server did not stop within 60s")
		}
	})

	loopback := rest.CopyConfig(server.GenericAPIServer.LoopbackClientConfig)
	client, err := kubernetes.NewForConfig(loopback)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-errCh:
			return false, fmt.Errorf("server exited: %v", err)
		default:
		}
		status := 0
		client.CoreV1().RESTClient().Get().AbsPath("/healthz").Do(ctx).StatusCode(&status)
		return status == 200, nil
	})
	if err != nil {
		t.Fatalf("waiting for /healthz: %v", err)
	}
	t.Logf("apiextensions-apiserver with %s on %s, ready in %v", immutableadmission.PluginName, loopback.Host, time.Since(start).Round(time.Millisecond))
	loopback.QPS, loopback.Burst = -1, 0
	loopback.Timeout = 30 * time.Second
	return loopback
}

// startEtcd starts an embedded single-member etcd on 127.0.0.1 (ports chosen
// by the kernel) and returns its client URL.
func startEtcd(t *testing.T) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.UnsafeNoFsync = true // a throwaway single-member test store
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{"stderr"}
	local := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls = []url.URL{local}
	cfg.AdvertiseClientUrls = []url.URL{local}
	cfg.ListenPeerUrls = []url.URL{local}
	cfg.AdvertisePeerUrls = []url.URL{local}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ListenMetricsUrls = nil

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
	return "http://" + e.Clients[0].Addr().String()
}
