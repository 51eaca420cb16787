package manifest

import (
	"strconv"
	"strings"
	"testing"
)

func TestDocuments(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string // "N: json" or "N: error"
	}{
		{"one YAML document", "a: 1\n", []string{`1: {"a":1}`}},
		{"empty and null documents count but are skipped", "---\n---\nnull\n---\na: 1\n", []string{`3: {"a":1}`}},
		{"a broken YAML document does not stop the next", "a: [\n---\nb: 2\n", []string{"1: error", `2: {"b":2}`}},
		{"concatenated JSON values", `{"a":1} {"b":2}`, []string{`1: {"a":1}`, `2: {"b":2}`}},
		{"JSON stops at its first syntax error", `{"a":1} {"b":`, []string{`1: {"a":1}`, "2: error"}},
		{"nothing", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for d := range Documents([]byte(tc.data)) {
				s := string(d.JSON)
				if d.Err != nil {
					s = "error"
				}
				got = append(got, strings.TrimSpace(strconv.Itoa(d.Number)+": "+s))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestObjects(t *testing.T) {
	objs, err := Objects([]byte("kind: List\nitems:\n- a: 1\n- a: 2\n---\nb: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, string(o))
	}
	if want := `{"a":1}|{"a":2}|{"b":3}`; strings.Join(got, "|") != want {
		t.Errorf("got %s, want %s", strings.Join(got, "|"), want)
	}
	if _, err := Objects([]byte("a: 1\n---\nb: [\n")); err == nil || !strings.HasPrefix(err.Error(), "document 2: ") {
		t.Errorf("error %v, want one naming document 2", err)
	}
}

func TestParseCRD(t *testing.T) {
	c, err := ParseCRD([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"ws.example.com"},"spec":{"group":"example.com","version":"v1","names":{"kind":"W","plural":"ws"}}}`))
	if err != nil || c == nil {
		t.Fatalf("ParseCRD: %v, %v", c, err)
	}
	if vs := c.AllVersions(); len(vs) != 1 || vs[0].Name != "v1" || !vs[0].Served || !vs[0].Storage {
		t.Errorf("versions of a v1beta1 CRD with spec.version: %+v", vs)
	}
	if c, err := ParseCRD([]byte(`{"apiVersion":"v1","kind":"ConfigMap"}`)); c != nil || err != nil {
		t.Errorf("a ConfigMap: %v, %v", c, err)
	}
	if _, err := ParseCRD([]byte(`[1]`)); err == nil {
		t.Error("an array parsed as a CRD")
	}
}

// FuzzDocuments: any input is split without a panic, every document is
// JSON or an error, and numbers increase.
func FuzzDocuments(f *testing.F) {
	for _, s := range []string{"a: 1\n---\nb: 2\n", `{"a":1} {"b":`, "kind: List\nitems: [1]\n", "---\n---\n", "a: [\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		last := 0
		for d := range Documents(data) {
			if d.Number <= last {
				t.Fatalf("document %d after %d", d.Number, last)
			}
			last = d.Number
			if (d.Err == nil) == (d.JSON == nil) {
				t.Fatalf("document %d: JSON %q and error %v", d.Number, d.JSON, d.Err)
			}
		}
		_, _ = Objects(data)
	})
}
