package lint

import (
	"fmt"
	"os"
	"path"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/diag"
)

// IgnoreAnnotationPrefix starts the annotations that silence a finding a
// team has judged, on the CRD itself, as kube-linter's
// ignore-check.kube-linter.io/CHECK annotations do:
//
//	metadata:
//	  annotations:
//	    ignore-check.immutable-gen.io/IG014: "the webhook enforces it"
//
// silences every IG014 of that CRD; the value is the reason (required, for
// the reader). For one path, use a config file (Ignore).
const IgnoreAnnotationPrefix = "ignore-check.immutable-gen.io/"

// Ignore silences findings: those with the ID, of the CRD (a CRD name,
// or "" for all), at the path (a schema path, where `*` matches one
// segment as in path.Match, or "" for all); Reason says why.
type Ignore struct {
	ID     diag.ID `json:"id"`
	CRD    string  `json:"crd,omitempty"`
	Path   string  `json:"path,omitempty"`
	Reason string  `json:"reason"`
}

// Options tune a run.
type Options struct {
	// Ignore silences the findings it matches (a config file's).
	Ignore []Ignore
}

// ReadConfig reads a config file (YAML or JSON):
//
//	ignore:
//	- id: IG014
//	  crd: azuremanagedcontrolplanes.infrastructure.cluster.x-k8s.io
//	  path: spec.dnsPrefix
//	  reason: enforced by the CAPZ webhook
func ReadConfig(file string) (Options, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Options{}, err
	}
	var cfg struct {
		Ignore []Ignore `json:"ignore"`
	}
	if err := sigsyaml.UnmarshalStrict(data, &cfg); err != nil {
		return Options{}, fmt.Errorf("%s: %v", file, err)
	}
	for i, ig := range cfg.Ignore {
		if ig.ID == "" || strings.TrimSpace(ig.Reason) == "" {
			return Options{}, fmt.Errorf("%s: ignore[%d]: id and reason are required", file, i)
		}
		if _, err := path.Match(ig.Path, ""); err != nil {
			return Options{}, fmt.Errorf("%s: ignore[%d]: path %q: %v", file, i, ig.Path, err)
		}
	}
	return Options{Ignore: cfg.Ignore}, nil
}

// silenced reports whether an ignore entry matches f.
func (o Options) silenced(f diag.Diagnostic) bool {
	for _, ig := range o.Ignore {
		if ig.ID != f.ID || (ig.CRD != "" && ig.CRD != f.CRD) {
			continue
		}
		if ig.Path == "" || ig.Path == f.Path {
			return true
		}
		if ok, _ := path.Match(strings.ReplaceAll(ig.Path, ".", "/"), strings.ReplaceAll(f.Path, ".", "/")); ok {
			return true
		}
	}
	return false
}

// annotationIgnores returns the IDs the CRD's annotations silence.
func annotationIgnores(ann map[string]string) map[diag.ID]bool {
	var out map[diag.ID]bool
	for k := range ann {
		if id, ok := strings.CutPrefix(k, IgnoreAnnotationPrefix); ok {
			if out == nil {
				out = map[diag.ID]bool{}
			}
			out[diag.ID(id)] = true
		}
	}
	return out
}
