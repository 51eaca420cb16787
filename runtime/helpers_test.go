package runtime_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// schemaFromYAML decodes a schema written in YAML, extensions included.
func schemaFromYAML(t testing.TB, y string) *spec.Schema {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("schema YAML: %v", err)
	}
	s := &spec.Schema{}
	if err := s.UnmarshalJSON(j); err != nil {
		t.Fatalf("schema JSON: %v", err)
	}
	return s
}

// compileYAML compiles a schema written in YAML.
func compileYAML(t testing.TB, y string) *runtime.Checker {
	t.Helper()
	c, err := runtime.Compile(schemaFromYAML(t, y))
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

// widget compiles testdata/widget-schema.yaml.
func widget(t testing.TB) *runtime.Checker {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "widget-schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return compileYAML(t, string(b))
}

// object decodes a YAML object as the API server would: integers as int64,
// other numbers as float64.
func object(t testing.TB, y string) map[string]interface{} {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("object YAML: %v", err)
	}
	var m map[string]interface{}
	if err := utiljson.Unmarshal(j, &m); err != nil {
		t.Fatalf("object JSON: %v", err)
	}
	return m
}

// checkMessages compares errors with the wanted "path: message" lines.
func checkMessages(t testing.TB, errs field.ErrorList, want []string) {
	t.Helper()
	got := messages(errs)
	if len(got) != len(want) {
		t.Errorf("got %d errors, want %d:\ngot:\n  %s\nwant:\n  %s", len(got), len(want), strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("error %d:\ngot:  %s\nwant: %s", i, got[i], want[i])
		}
	}
}

// messages renders errors as "path: message" lines, as field.Error does
// from apimachinery v0.33 on whatever version the tests are built with: a
// composite value (map, slice, struct) as JSON, which earlier versions
// render with %#v.
func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		msg := e.Error()
		if v := reflect.ValueOf(e.BadValue); v.IsValid() {
			switch v.Kind() {
			case reflect.Map, reflect.Slice, reflect.Struct:
				if js, err := json.Marshal(e.BadValue); err == nil {
					msg = strings.Replace(msg, fmt.Sprintf("%#v", e.BadValue), string(js), 1)
				}
			}
		}
		out = append(out, msg)
	}
	return out
}

// database compiles testdata/database-crd.yaml, the realistic schema.
func database(t testing.TB) *runtime.Checker {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "database-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := runtime.CompileCRD(b, runtime.CRDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// realisticPair returns testdata/database.yaml and a deep copy of it, as an
// API server would have them: decoded separately, sharing nothing.
func realisticPair(t testing.TB) (old, new map[string]interface{}) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "database.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	old = object(t, string(b))
	return old, deepCopy(old)
}

// deepCopy copies unstructured content.
func deepCopy(m map[string]interface{}) map[string]interface{} {
	return k8sruntime.DeepCopyJSON(m)
}
