package kubeapiserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binDir holds kube-apiserver and etcd for envtest.
var binDir string

// TestMain makes sure the control-plane binaries exist before any test:
// KUBEBUILDER_ASSETS when set (binaries of one's own, e.g. from
// setup-envtest), else bin/, built by binaries/build.sh, which returns at
// once when they are up to date. The first, cold build takes long: run
// binaries/build.sh before go test, as make e2e-webhook does, or give go
// test a -timeout that covers it.
func TestMain(m *testing.M) {
	dir, err := ensureBinaries()
	if err != nil {
		fmt.Fprintf(os.Stderr, "control-plane binaries: %v\n", err)
		os.Exit(1)
	}
	binDir = dir
	os.Exit(m.Run())
}

func ensureBinaries() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	dir, err := filepath.Abs("bin")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("bash", filepath.Join("binaries", "build.sh"), dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("binaries/build.sh: %w", err)
	}
	return dir, nil
}
