package fullbuild

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/validation"
	"github.com/immutable-gen/immutable-gen/validation/apiserver"
)

// childEnv selects what the test binary does when a test starts it as the
// child: "serve" serves the API server's CRD validation in process,
// "die" writes to its standard error and exits.
const childEnv = "FULLBUILD_TEST_CHILD"

// TestChildProcess is not a test: it is the child the tests start.
func TestChildProcess(t *testing.T) {
	switch os.Getenv(childEnv) {
	case "serve":
		if err := ServeCRDValidation(os.Stdin, os.Stdout, apiserver.InProcess{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "die":
		fmt.Fprintln(os.Stderr, "panic: something\n\tgoroutine 1")
		os.Exit(2)
	}
}

// testValidator starts this test binary as the child, in mode.
func testValidator(t *testing.T, mode string) *CRDValidator {
	t.Helper()
	v := newCRDValidator(func() (*exec.Cmd, func(), error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$")
		cmd.Env = append(os.Environ(), childEnv+"="+mode)
		return cmd, func() {}, nil
	})
	return v
}

// testCRDs are the CRDs of the repository's test data: the lint corpus
// (defects the API server refuses: cost, uncorrelatable rules, list types,
// defaults, invalid rules) and every generated golden CRD.
func testCRDs(t *testing.T) map[string]*apiextv1.CustomResourceDefinition {
	t.Helper()
	crds := map[string]*apiextv1.CustomResourceDefinition{}
	for _, dir := range []string{"../testdata/lint", "../testdata/golden/crd"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, doc := range bytes.Split(data, []byte("\n---")) {
				var crd apiextv1.CustomResourceDefinition
				if yaml.Unmarshal(doc, &crd) != nil || crd.Kind != "CustomResourceDefinition" || crd.APIVersion != "apiextensions.k8s.io/v1" {
					continue
				}
				crds[fmt.Sprintf("%s#%d", path, i)] = &crd
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(crds) < 20 {
		t.Fatalf("only %d CRDs in the test data", len(crds))
	}
	return crds
}

// scalar is what the wire keeps of a value: scalars, with integers as
// int64; nil for anything else.
func scalar(v any) any {
	switch v := v.(type) {
	case string, bool, uint64, float64, int64:
		return v
	case int:
		return int64(v)
	case int32:
		return int64(v)
	}
	return nil
}

// carried is what the wire carries of an error: the bookkeeping fields of
// declarative validation (FromImperative, CoveredByDeclarative, …) are
// not read by immutable-gen.
func carried(e *field.Error) field.Error {
	return field.Error{Type: e.Type, Field: e.Field, Detail: e.Detail, Origin: e.Origin, BadValue: scalar(e.BadValue)}
}

// TestChildAgreesInProcess: through the child, every CRD of the test data
// gets the API server's errors exactly as in process — type, field,
// detail, origin, order and scalar values (carried) — and so the same classified
// errors and the same diagnostics; requests are sent concurrently to one
// child.
func TestChildAgreesInProcess(t *testing.T) {
	crds := testCRDs(t)
	v := testValidator(t, "serve")
	var mu sync.Mutex
	var total, withValue int
	var wg sync.WaitGroup
	for name, crd := range crds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			internal, err := validation.Internal(crd)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			want, err := apiserver.InProcess{}.ValidateCRD(internal)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			internal, _ = validation.Internal(crd) // the validation may default
			got, err := v.ValidateCRD(internal)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d errors through the child, %d in process:\n%v\n%v", name, len(got), len(want), got, want)
				return
			}
			for i := range want {
				w := carried(want[i])
				if g := carried(got[i]); !reflect.DeepEqual(g, w) {
					t.Errorf("%s: error %d through the child\n%#v\nin process\n%#v", name, i, g, w)
				}
			}
			mu.Lock()
			total += len(want)
			for _, e := range want {
				if scalar(e.BadValue) != nil {
					withValue++
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if total < 10 || withValue == 0 {
		t.Fatalf("the test data gave %d errors, %d with a scalar value: too few to compare", total, withValue)
	}
	t.Logf("%d CRDs, %d errors (%d with a scalar value)", len(crds), total, withValue)
}

// TestChildDies: a child that exits is an error that says so, with what it
// wrote on its standard error, on one line.
func TestChildDies(t *testing.T) {
	v := testValidator(t, "die")
	crd := &apiextv1.CustomResourceDefinition{}
	for _, c := range testCRDs(t) {
		crd = c
		break
	}
	internal, err := validation.Internal(crd)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.ValidateCRD(internal)
	if err == nil {
		t.Fatal("no error from a child that exited")
	}
	for _, want := range []string{"did not answer", "panic: something goroutine 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error on more than one line: %q", err)
	}
	if err := v.Close(); err == nil {
		t.Error("Close: no error from a child that exited with status 2")
	}
}

// TestCloseUnstarted: a validator never used starts no child.
func TestCloseUnstarted(t *testing.T) {
	started := false
	v := newCRDValidator(func() (*exec.Cmd, func(), error) {
		started = true
		return nil, nil, fmt.Errorf("unexpected")
	})
	if err := v.Close(); err != nil || started {
		t.Fatalf("Close = %v, started %v", err, started)
	}
}

// TestWireValues: every scalar kind the API server puts in BadValue comes
// back as the value it was (integers as int64); anything else is dropped.
func TestWireValues(t *testing.T) {
	for _, v := range []any{"a \"quoted\" string", "", true, false, 3, int32(-4), int64(1 << 62), uint64(1 << 63), 2.5, 1e21, map[string]any{"a": 1}, []string{"x"}, nil} {
		e := &field.Error{Type: field.ErrorTypeInvalid, Field: "f", BadValue: v, Detail: "d"}
		got := toWire(e).fieldError()
		if want := scalar(v); !reflect.DeepEqual(got.BadValue, want) {
			t.Errorf("%#v came back as %#v, want %#v", v, got.BadValue, want)
		}
	}
}
