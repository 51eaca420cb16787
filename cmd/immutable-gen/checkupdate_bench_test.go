package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/internal/cputime"
	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
)

// BenchmarkCheckUpdateDirectory runs check-update on 1,000 object pairs
// read from two directories (100 files of 10 YAML documents each, the
// rules CRD of testdata/check-update/rules), as a GitOps pipeline would:
// reading, pairing, checking and rendering JSON, per iteration.
//
//	go test ./cmd/immutable-gen -run '^$' -bench CheckUpdateDirectory -benchmem
func BenchmarkCheckUpdateDirectory(b *testing.B) {
	const crdFile = "../../testdata/check-update/rules/crd.yaml"
	dir := b.TempDir()
	writePairs(b, crdFile, dir, 1000)
	args := []string{"check-update", "--schema", crdFile, "--old", filepath.Join(dir, "old"), "--new", filepath.Join(dir, "new"), "-o", "json"}
	if exit := run(args, io.Discard, io.Discard); exit != 1 {
		b.Fatalf("exit status %d, want 1 (some updates are refused)", exit)
	}
	cpu0 := cputime.Process()
	for b.Loop() {
		run(args, io.Discard, io.Discard)
	}
	// CPU time, all threads: on a shared machine it varies less than the
	// wall time.
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// writePairs writes n random valid objects of the CRD to dir/old and a
// random update of each to dir/new.
func writePairs(b *testing.B, crdFile, dir string, n int) {
	objs, err := preflight.Load(crdFile)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := yaml.Marshal(objs[0].Object)
	if err != nil {
		b.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		b.Fatal(err)
	}
	c, err := preflight.NewChecker([]preflight.CRD{{Source: crdFile, Raw: js}})
	if err != nil {
		b.Fatal(err)
	}
	var crd map[string]interface{}
	if err := utiljson.Unmarshal(js, &crd); err != nil {
		b.Fatal(err)
	}
	v := crd["spec"].(map[string]interface{})["versions"].([]interface{})[0].(map[string]interface{})
	g := preflighttest.New(v["schema"].(map[string]interface{})["openAPIV3Schema"].(map[string]interface{}), 1)
	g.Invalid = 5
	var olds, news [][]byte
	for len(olds) < n {
		obj := func(spec interface{}) map[string]interface{} {
			return map[string]interface{}{"apiVersion": "preflight.example.com/v1", "kind": "Rule",
				"metadata": map[string]interface{}{"name": fmt.Sprintf("r%04d", len(olds)), "namespace": "apps"}, "spec": spec}
		}
		old := obj(g.Spec())
		if res, _ := c.Create(old); !res.Allowed() {
			continue
		}
		spec, _ := g.Mutate(old["spec"])
		for _, o := range []map[string]interface{}{old, obj(spec)} {
			y, err := yaml.Marshal(o)
			if err != nil {
				b.Fatal(err)
			}
			if len(olds) == len(news) {
				olds = append(olds, y)
			} else {
				news = append(news, y)
			}
		}
	}
	for side, docs := range map[string][][]byte{"old": olds, "new": news} {
		if err := os.MkdirAll(filepath.Join(dir, side), 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f*10 < len(docs); f++ {
			var data []byte
			for _, d := range docs[f*10 : min(len(docs), f*10+10)] {
				data = append(append(data, "---\n"...), d...)
			}
			if err := os.WriteFile(filepath.Join(dir, side, fmt.Sprintf("rules-%03d.yaml", f)), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
}
