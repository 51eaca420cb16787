// Command webhook load-tests the immutability webhook (runtime/webhook) as
// a cluster uses it: served over TLS (HTTP/2, as kube-apiserver calls
// webhooks) on 127.0.0.1 by controller-runtime's webhook server, in a
// process of its own, driven by vegeta with AdmissionReviews of custom
// resources, allowed and denied updates mixed (one in four denied). Each
// workload (-workloads) is measured against a no-op webhook on the same
// server in the same run, alternating with it round by round at every
// concurrency level, and reported as ratios to it, per round and then the
// median, so that a loaded machine hits both alike:
//
//   - immutable: PodSets of about 9 KB whose bytes sit mostly under
//     immutable markers (apis/v1, testdata/podsets-crd.yaml);
//   - mutable: Workloads of about 9 KB whose bytes sit mostly in mutable
//     fields (testdata/workloads-crd.yaml);
//   - shapes: Shapes of about 9 KB whose immutable bytes are spread over
//     every shape the runtime enforces (testdata/shapes-crd.yaml);
//   - large: one PodSet of about 1 MB;
//   - typed: the PodSets through webhook.ImmutableValidator[*PodSet], on
//     the typed objects controller-runtime decodes, against a typed
//     validator that allows everything.
//
// The server's CPU time is read from /proc per attack: requests per
// CPU-second is its capacity per core. With -before, the webhook as it was
// before it decoded only what the check reads (both objects decoded in
// full) is measured beside them.
//
// Run it with make bench-webhook (the load test, about 7 minutes) or make
// soak-webhook (10 minutes at a moderate fixed rate, the server's heap,
// resident memory and goroutines reported every minute). Each workload's
// table ends with a line
//
//	webhook: N% of the no-op webhook's throughput at 64 clients, p99 M× the no-op's
//
// for scripts, and the load test ends with these lines again, one per
// workload in the order measured. Every request goes to 127.0.0.1; every
// attack is bounded in time and stops by itself, and the server process
// stops with its parent (when its standard input closes) or after two
// hours at most.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	_ "embed"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	benchv1 "github.com/immutable-gen/immutable-gen/bench/webhook/apis/v1"
	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

//go:embed testdata/workloads-crd.yaml
var workloadsCRD []byte

//go:embed testdata/podsets-crd.yaml
var podSetsCRD []byte

//go:embed testdata/shapes-crd.yaml
var shapesCRD []byte

// The paths the server process serves, beside webhook.Path.
const (
	noopPath      = "/noop"       // admission.Allowed("") for every request
	noop2Path     = "/noop2"      // the same, for the A/A workload
	typedPath     = "/typed"      // webhook.ImmutableValidator[*benchv1.PodSet]
	typedNoopPath = "/typed-noop" // a typed validator that allows everything
	wrappedPath   = "/wrapped"    // the webhook.Handler in an admission.Webhook of the user's own
)

func main() {
	var (
		duration    = flag.Duration("duration", time.Second, "length of one attack (one webhook at one concurrency level)")
		rounds      = flag.Int("rounds", 6, "attacks per webhook, workload and level; the order of the two webhooks alternates by round")
		clientsFlag = flag.String("clients", "1,16,64", "concurrency levels (concurrent clients, each one request at a time)")
		workloads   = flag.String("workloads", "immutable,shapes,mutable,large,typed", "the workloads to measure, in this order (see -help)")
		envs        = flag.Int("env", 22, "env entries per container of the mostly mutable workload: sets its object size")
		soak        = flag.Duration("soak", 0, "instead of the load test, soak the webhook this long at -soak-rate (mostly mutable workload)")
		soakRate    = flag.Int("soak-rate", 200, "requests per second during the soak")
		cpuprofile  = flag.String("cpuprofile", "", "write a CPU profile of the webhook server to this file, each webhook's requests labelled webhook=<path> (go tool pprof -tags; -tagfocus webhook=/noop)")
		before      = flag.Bool("before", false, "also measure the webhook as it was before it decoded only what the check reads (full decode), on the unstructured workloads")
		serveDir    = flag.String("serve", "", "internal: serve the webhooks with the certificate in this directory")
		port        = flag.Int("port", 0, "internal: the port to serve on")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run . [flags]\n\nworkloads:\n%s\nflags:\n", workloadHelp)
		flag.PrintDefaults()
	}
	flag.Parse()
	ctrllog.SetLogger(logr.Discard())
	var err error
	if *serveDir != "" {
		err = serveUntilEOF(*serveDir, *port, *cpuprofile)
	} else {
		err = run(*duration, *rounds, *clientsFlag, *workloads, *envs, *soak, *soakRate, *cpuprofile, *before)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-webhook:", err)
		os.Exit(1)
	}
}

const workloadHelp = `  immutable  PodSets of about 9 KB whose bytes sit mostly under immutable markers
             (testdata/podsets-crd.yaml: an immutable list map of containers, an
             immutable list of volumes, an immutable set, a map with immutable values)
  mutable    Workloads of about 9 KB whose bytes sit mostly in mutable fields
             (testdata/workloads-crd.yaml: a free-form pod template beside 5 markers)
  shapes     Shapes of about 9 KB whose immutable bytes are spread over every shape
             (testdata/shapes-crd.yaml: a list map immutable whole, a list map of
             immutable items, a map of immutable values, an immutable set, scalars)
  shapes-unchanged, shapes-mutable, shapes-denied
             (not by default) the Shapes with one kind of update each: unchanged,
             a mutable field and a list-map item's mutable field changed, an
             immutable change (all denied)
  large      one PodSet of about 1 MB, mostly immutable
  wrapped    (not by default) the immutable PodSets through the same handler
             registered as &admission.Webhook{Handler: h} rather than
             h.Webhook(): every byte validated, as when Handle is called directly
  aa         (not by default) the immutable PodSets sent to a second no-op
             against the no-op: how far apart two identical webhooks measure
  aa-shapes  (not by default) the same with the unchanged Shapes: the noise
             beside shapes-unchanged, whose check adds a few microseconds
  typed      the immutable PodSets through webhook.ImmutableValidator[*PodSet]
             (controller-runtime decodes the typed objects) against a typed
             validator that allows everything: what the generated check adds
  Of every four updates of a workload three are allowed and one is denied
  (but in the shapes workloads of one kind of update).
`

// comparison is one measured workload: a request mix sent to a checked
// webhook and to its no-op, alternating.
type comparison struct {
	name  string // the -workloads name
	about string
	m     mix
	path  string // the checked webhook
	noop  string // its no-op
	full  bool   // the full-decode webhook can check it too (-before)
}

func workloadsByName(names string, envs int) ([]comparison, error) {
	var ws []comparison
	for _, name := range strings.Split(names, ",") {
		var w comparison
		switch name = strings.TrimSpace(name); name {
		case "immutable":
			w = comparison{m: podSetRequests(defaultPodSet), path: webhook.Path, noop: noopPath, full: true,
				about: "mostly immutable: PodSets, unstructured webhook.Handler against the no-op"}
		case "mutable":
			w = comparison{m: requests(envs), path: webhook.Path, noop: noopPath, full: true,
				about: "mostly mutable: Workloads, unstructured webhook.Handler against the no-op"}
		case "large":
			w = comparison{m: podSetRequests(largePodSet), path: webhook.Path, noop: noopPath, full: true,
				about: "one large object: a PodSet, unstructured webhook.Handler against the no-op"}
		case "wrapped":
			w = comparison{m: podSetRequests(defaultPodSet), path: wrappedPath, noop: noopPath,
				about: "mostly immutable, wrapped: PodSets, &admission.Webhook{Handler: h} (no trusted mode) against the no-op"}
		case "aa", "aa-shapes":
			m := podSetRequests(defaultPodSet)
			if name == "aa-shapes" {
				m = shapeRequests(shapesUnchanged)
			}
			m.deny = make([]bool, len(m.deny)) // the second no-op allows everything
			w = comparison{m: m, path: noop2Path, noop: noopPath,
				about: "A/A: the no-op against a second no-op, the harness's own noise"}
		case shapesMixed, shapesUnchanged, shapesMutable, shapesDenied:
			w = comparison{m: shapeRequests(name), path: webhook.Path, noop: noopPath, full: true,
				about: "every shape (issue 34): Shapes, unstructured webhook.Handler against the no-op"}
		case "typed":
			w = comparison{m: podSetRequests(defaultPodSet), path: typedPath, noop: typedNoopPath,
				about: "typed, mostly immutable: PodSets, ImmutableValidator[*PodSet] against a typed no-op validator"}
		default:
			return nil, fmt.Errorf("-workloads: unknown workload %q\n%s", name, workloadHelp)
		}
		w.name = name
		ws = append(ws, w)
	}
	return ws, nil
}

func run(duration time.Duration, rounds int, clientsFlag, workloadNames string, envs int, soak time.Duration, soakRate int, cpuprofile string, before bool) error {
	var levels []uint64
	for _, s := range strings.Split(clientsFlag, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
		if err != nil || n == 0 || n > 1024 {
			return fmt.Errorf("-clients: %q is not a number in [1, 1024]", s)
		}
		levels = append(levels, n)
	}
	if duration <= 0 || duration > time.Minute || rounds < 1 || rounds > 50 {
		return errors.New("-duration must be in (0, 1m] and -rounds in [1, 50]")
	}
	if soak < 0 || soak > time.Hour || soakRate < 1 || soakRate > 5000 {
		return errors.New("-soak must be in [0, 1h] and -soak-rate in [1, 5000]")
	}
	ws, err := workloadsByName(workloadNames, envs)
	if err != nil {
		return err
	}
	if soak > 0 {
		ws = []comparison{{name: "mutable", m: requests(envs), path: webhook.Path}}
	}

	srv, err := startServer(cpuprofile, soak)
	if err != nil {
		return err
	}
	defer srv.stop()
	fmt.Printf("GOMAXPROCS %d, %d CPUs, %s/%s, %s\n", runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	for _, w := range ws {
		fmt.Printf("%-9s objects %d bytes (%d under immutable markers), AdmissionReview bodies %d–%d bytes; %d of %d requests are denials\n",
			w.name, w.m.objectSize, w.m.immutableSize, w.m.minBody, w.m.maxBody, w.m.denials, len(w.m.bodies))
	}
	if soak > 0 {
		return soakTest(srv, ws[0].m, soak, soakRate)
	}
	return loadTest(srv, ws, levels, duration, rounds, before)
}

// server is the webhook server process, as the load generator sees it.
type server struct {
	base      string
	tlsConfig *tls.Config
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stdout    *bufio.Reader
	dir       string
}

// startServer starts this program again as the webhook server (a process of
// its own, as a webhook is a pod of its own: its CPU time is measured apart
// from the load generator's), on 127.0.0.1 with a fresh self-signed
// certificate. The server stops when its standard input closes, and in any
// case after a bounded time.
func startServer(cpuprofile string, soak time.Duration) (*server, error) {
	dir, err := os.MkdirTemp("", "bench-webhook-")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir}
	pool, err := writeCertificate(dir)
	if err != nil {
		s.stop()
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		s.stop()
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		s.stop()
		return nil, err
	}
	args := []string{"-serve", dir, "-port", strconv.Itoa(port)}
	if cpuprofile != "" {
		abs, err := filepath.Abs(cpuprofile)
		if err != nil {
			s.stop()
			return nil, err
		}
		args = append(args, "-cpuprofile", abs)
	}
	s.cmd = exec.Command(exe, args...)
	s.cmd.Stderr = os.Stderr
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		s.stop()
		return nil, err
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		s.stop()
		return nil, err
	}
	s.stdout = bufio.NewReader(out)
	if err := s.cmd.Start(); err != nil {
		s.stop()
		return nil, err
	}
	line, err := s.stdout.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		s.stop()
		return nil, fmt.Errorf("the webhook server did not start: %q %v", line, err)
	}
	s.base = fmt.Sprintf("https://127.0.0.1:%d", port)
	s.tlsConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return s, nil
}

// stop closes the server's standard input, waits for it to exit and removes
// its certificate.
func (s *server) stop() {
	if s.stdin != nil {
		s.stdin.Close()
	}
	if s.cmd != nil && s.cmd.Process != nil {
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
	os.RemoveAll(s.dir)
}

// cpu returns the CPU time the server process has used so far (user and
// system, all threads), from /proc; Linux counts it in ticks of 10ms.
func (s *server) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses: state is the
	// first, utime the 12th and stime the 13th.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("/proc/PID/stat: too few fields")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("/proc/PID/stat: bad utime or stime")
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// stats asks the server for its live heap, resident memory and goroutines.
func (s *server) stats() (string, error) {
	if _, err := io.WriteString(s.stdin, "stats\n"); err != nil {
		return "", err
	}
	line, err := s.stdout.ReadString('\n')
	return strings.TrimSpace(line), err
}

// maxServe bounds how long a server process lives, whatever its parent does.
const maxServe = 2 * time.Hour

// labelled serves hook with the profiler label webhook=path, so that a
// -cpuprofile tells each webhook's own CPU time apart (go tool pprof
// -tagfocus webhook=/noop); the garbage collector's background work is
// nobody's.
func labelled(path string, hook http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pprof.Do(r.Context(), pprof.Labels("webhook", path), func(ctx context.Context) {
			hook.ServeHTTP(w, r.WithContext(ctx))
		})
	})
}

// serveUntilEOF is the server process: controller-runtime's webhook server
// on 127.0.0.1:port with the certificate in dir, serving the immutability
// webhook at webhook.Path and a no-op webhook at noopPath. It prints
// "ready" once serving, answers "stats" lines on standard input, and stops
// when standard input closes or after maxServe.
func serveUntilEOF(dir string, port int, cpuprofile string) error {
	ctx, cancel := context.WithTimeout(context.Background(), maxServe)
	defer cancel()
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	resources, err := benchResources()
	if err != nil {
		return err
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		return err
	}
	noop := &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})}
	scheme := k8sruntime.NewScheme()
	if err := benchv1.AddToScheme(scheme); err != nil {
		return err
	}
	srv := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	register := func(path string, hook http.Handler) {
		if cpuprofile != "" {
			hook = labelled(path, hook)
		}
		srv.Register(path, hook)
	}
	register(webhook.Path, h.Webhook())
	register(noopPath, noop)
	register(wrappedPath, &admission.Webhook{Handler: h})
	register(noop2Path, &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})})
	register(typedPath, admission.WithValidator[*benchv1.PodSet](scheme, &webhook.ImmutableValidator[*benchv1.PodSet]{}))
	register(typedNoopPath, admission.WithValidator[*benchv1.PodSet](scheme, allowAll{}))
	full, err := fullDecodeHandler()
	if err != nil {
		return err
	}
	register(beforePath, &admission.Webhook{Handler: full})
	errCh := make(chan error, 1)
	go func() { errCh <- srv.Start(ctx) }()

	deadline := time.Now().Add(30 * time.Second)
	for srv.StartedChecker()(nil) != nil {
		select {
		case err := <-errCh:
			return fmt.Errorf("webhook server: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("the webhook server did not start within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Println("ready")

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				cancel()
				<-errCh
				return nil
			}
			if line == "stats" {
				heap, rss, g := memory()
				fmt.Printf("heap %s rss %s goroutines %d\n", mib(heap), mib(rss), g)
			}
		case <-ctx.Done():
			return <-errCh
		}
	}
}

// writeCertificate writes a self-signed serving certificate for 127.0.0.1
// as tls.crt and tls.key into dir, and returns a pool trusting it.
func writeCertificate(dir string) (*x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "bench-webhook"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool, nil
}

// benchResources are the checked resources of the CRDs: workloads,
// podsets and shapes.
func benchResources() ([]enforce.Resource, error) {
	var all []enforce.Resource
	for _, crd := range [][]byte{workloadsCRD, podSetsCRD, shapesCRD} {
		rs, err := enforce.FromCRD(crd)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	return all, nil
}

// allowAll is the typed no-op: a validator that allows every PodSet.
type allowAll struct{}

func (allowAll) ValidateCreate(context.Context, *benchv1.PodSet) (admission.Warnings, error) {
	return nil, nil
}

func (allowAll) ValidateUpdate(context.Context, *benchv1.PodSet, *benchv1.PodSet) (admission.Warnings, error) {
	return nil, nil
}

func (allowAll) ValidateDelete(context.Context, *benchv1.PodSet) (admission.Warnings, error) {
	return nil, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// mix is the request mix: AdmissionReview bodies, each with the verdict it
// must get from the immutability webhook.
type mix struct {
	bodies        [][]byte
	deny          []bool
	denials       int
	objectSize    int
	immutableSize int // bytes of the objects under immutable markers
	minBody       int
	maxBody       int
}

func (m *mix) add(deny bool, body []byte) {
	m.bodies = append(m.bodies, body)
	m.deny = append(m.deny, deny)
	if deny {
		m.denials++
	}
	if m.minBody == 0 || len(body) < m.minBody {
		m.minBody = len(body)
	}
	m.maxBody = max(m.maxBody, len(body))
}

// requests builds the mostly mutable mix: of every four updates, three are
// allowed (the image, the replicas, a mutable storage field change) and
// one is denied (the service name and a port change).
func requests(envs int) mix {
	old := workload(envs, "checkout", "registry.example.com/team/checkout:v1.2.3", 3)
	var m mix
	m.objectSize = len(mustJSON(old))
	spec := old["spec"].(map[string]interface{})
	for _, k := range []string{"serviceName", "selector", "labels", "ports"} {
		m.immutableSize += len(mustJSON(spec[k]))
	}
	add := func(deny bool, obj map[string]interface{}) {
		m.add(deny, reviewBody(fmt.Sprintf("uid-%d", len(m.bodies)), "Workload", obj, old, "workloads"))
	}
	add(false, workload(envs, "checkout", "registry.example.com/team/checkout:v1.2.4", 3))
	add(false, workload(envs, "checkout", "registry.example.com/team/checkout:v1.2.3", 5))
	resized := workload(envs, "checkout", "registry.example.com/team/checkout:v1.2.3", 3)
	resized["spec"].(map[string]interface{})["storage"].(map[string]interface{})["size"] = "40Gi"
	add(false, resized)
	denied := workload(envs, "checkout-v2", "registry.example.com/team/checkout:v1.2.4", 3)
	denied["spec"].(map[string]interface{})["ports"].([]interface{})[0].(map[string]interface{})["port"] = int64(8080)
	add(true, denied)
	return m
}

// targeter cycles through the mix, marking each target with the verdict it
// must get in the query string (which the webhook server ignores).
func targeter(url string, m mix, noop bool) vegeta.Targeter {
	var next atomic.Uint64
	hdr := http.Header{"Content-Type": []string{"application/json"}}
	return func(t *vegeta.Target) error {
		i := int(next.Add(1)-1) % len(m.bodies)
		expect := "allow"
		if m.deny[i] && !noop {
			expect = "deny"
		}
		*t = vegeta.Target{Method: http.MethodPost, URL: url + "?expect=" + expect, Body: m.bodies[i], Header: hdr}
		return nil
	}
}

// check reports why a result is not the intended answer, or "".
func check(r *vegeta.Result) string {
	if r.Error != "" {
		return r.Error
	}
	if r.Code != http.StatusOK {
		return fmt.Sprintf("HTTP %d", r.Code)
	}
	allowed := bytes.Contains(r.Body, []byte(`"allowed":true`))
	switch {
	case strings.HasSuffix(r.URL, "expect=allow") && !allowed:
		return "denied an allowed update: " + string(r.Body)
	case strings.HasSuffix(r.URL, "expect=deny") && (allowed || !bytes.Contains(r.Body, []byte(`"code":422`))):
		return "did not deny a forbidden update with 422: " + string(r.Body)
	}
	return ""
}

func newAttacker(tlsConfig *tls.Config, clients uint64) *vegeta.Attacker {
	return vegeta.NewAttacker(
		vegeta.TLSConfig(tlsConfig),
		vegeta.HTTP2(true), // as kube-apiserver calls webhooks; the server offers h2
		vegeta.KeepAlive(true),
		vegeta.Workers(clients),
		vegeta.MaxWorkers(clients),
		vegeta.Connections(int(clients)),
		vegeta.Timeout(10*time.Second), // the longest timeoutSeconds a cluster would wait is 30s
	)
}
