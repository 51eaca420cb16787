package e2e

import (
	"flag"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain discards the API server's logs (klog), which would bury a
// failure's message; E2E_SERVER_LOGS=1 keeps them.
func TestMain(m *testing.M) {
	if os.Getenv("E2E_SERVER_LOGS") == "" {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
	}
	os.Exit(m.Run())
}
