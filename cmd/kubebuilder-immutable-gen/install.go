package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// pluginsRoot is where kubebuilder v4 looks for external plugins:
// $EXTERNAL_PLUGINS_PATH, else $XDG_CONFIG_HOME/kubebuilder/plugins, else
// ~/.config/kubebuilder/plugins on Linux and
// ~/Library/Application Support/kubebuilder/plugins on macOS.
func pluginsRoot() (string, error) {
	if p := os.Getenv("EXTERNAL_PLUGINS_PATH"); p != "" {
		return p, nil
	}
	rel := filepath.Join("kubebuilder", "plugins")
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, rel), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	switch runtime.GOOS {
	case "linux":
		return filepath.Join(home, ".config", rel), nil
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", rel), nil
	}
	return "", fmt.Errorf("kubebuilder supports external plugins on linux and darwin only, not on %s", runtime.GOOS)
}

// install copies the running executable to
// <root>/<pluginName>/<pluginVersion>/<pluginName>, root being dir or else
// pluginsRoot(), and returns that path. The copy is written to a temporary
// file and renamed, so a running kubebuilder never sees half a binary.
func install(dir string) (string, error) {
	root := dir
	if root == "" {
		var err error
		if root, err = pluginsRoot(); err != nil {
			return "", fmt.Errorf("finding kubebuilder's plugins directory: %w (use -dir)", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this executable: %w", err)
	}
	target := filepath.Join(root, pluginName, pluginVersion, pluginName)
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return "", err
	}
	if err := copyExecutable(self, target); err != nil {
		return "", fmt.Errorf("installing %s: %w", target, err)
	}
	return target, nil
}

func copyExecutable(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	// Not in dst's directory: kubebuilder refuses a version directory holding
	// a file whose name starts with a dot, and skips plain files one level up.
	tmp, err := os.CreateTemp(filepath.Dir(filepath.Dir(dst)), "kubebuilder-immutable-gen.tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err = io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err = tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
