package main

import (
	"runtime/debug"
	"strings"
)

// modulePath is the module this command is built from.
const modulePath = "github.com/immutable-gen/immutable-gen"

// moduleVersion is the version of this command's module, from the build
// information the go command records in the binary: the main module's
// version when the binary was built in this module (a release tag with go
// install …@VERSION, a pseudo-version from a version-control checkout), or
// the version required of it when it was built as a dependency (go tool,
// go run in a user's module), with the replacement named when there is one.
// "(devel)" is what the go command records when it knows no version; then
// the version-control revision is added if the binary carries one.
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return versionFrom(info)
}

// versionFrom is moduleVersion for given build information.
func versionFrom(info *debug.BuildInfo) string {
	mod := &info.Main
	if mod.Path != modulePath {
		mod = nil
		for _, dep := range info.Deps {
			if dep.Path == modulePath {
				mod = dep
				break
			}
		}
	}
	if mod == nil {
		return "(unknown)"
	}
	v := mod.Version
	if v == "" {
		v = "(devel)"
	}
	if r := mod.Replace; r != nil {
		to := r.Path
		if r.Version != "" {
			to += "@" + r.Version
		}
		v += " (replaced by " + to + ")"
	}
	if strings.HasPrefix(v, "(devel)") {
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		if rev != "" && mod == &info.Main {
			v += " (revision " + rev + modified + ")"
		}
	}
	return v
}
