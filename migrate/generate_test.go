package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateReportsMarkerErrors: a marker the generator refuses is an
// error of the generation, not a run with no CRD (which would leave every
// rule as reaching none).
func TestGenerateReportsMarkerErrors(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(root, "testdata", "apis", "migrate", "v1", "types.go")
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	const field = "\tLabels map[string]string `json:\"labels,omitempty\"`"
	if !strings.Contains(string(src), field) {
		t.Fatalf("%s has no line %q", name, field)
	}
	bad := strings.Replace(string(src), field, "\t// +k8s:update=NoRemoveItem).\n"+field, 1)
	o := Options{Dir: root, Paths: []string{"./testdata/apis/migrate/..."}}
	g, err := o.generate(map[string][]byte{name: []byte(bad)})
	if err == nil || !strings.Contains(err.Error(), "NoRemoveItem).") {
		n := -1
		if g != nil {
			n = len(g.crds)
		}
		t.Fatalf("error %v (%d CRDs), want the marker's error", err, n)
	}
	if _, err := o.generate(nil); err != nil {
		t.Fatalf("the test API as it is: %v", err)
	}
}
