package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
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
		{"a separator that opens a document is its first line", "---\na: 1\n---\n---\nb: 2\n", []string{`1: {"a":1}`, `2: {"b":2}`}},
		{"content after a separator is an error that ends the stream (and drops the document before it, as YAMLReader does)", "a: 1\n--- b\nc: 2\n", []string{"1: error"}},
		{"a JSON object followed by YAML", "{\"a\":1}\n---\nb: 2\n", []string{`1: {"a":1}`, `2: {"b":2}`}},
		{"JSON that is not JSON is read as YAML", "{a: 1}\n", []string{`1: {"a":1}`}},
		{"broken JSON that is not YAML either", `{"a": [1,}`, []string{"1: error"}},
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

// TestDocumentLines: each document knows the line it starts on and, in
// YAML, its own text, so a reader can place a finding in the file.
func TestDocumentLines(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string // "line: text" (the YAML, or "json")
	}{
		{"YAML", "# head\n---\na: 1\n---\n\nb: 2\n", []string{"3: a: 1\n", "5: \nb: 2\n"}},
		{"CRLF", "a: 1\r\n---\r\nb: 2\r\n", []string{"1: a: 1\r\n", "3: b: 2\r\n"}},
		{"JSON", "\n\n{\"a\":1}\n  {\"b\":\n2}", []string{"3: json", "4: json"}},
		{"JSON then YAML", "{\"a\":1}\n---\nb: 2\n", []string{"1: json", "2: ---\nb: 2\n"}},
		{"an error names its line", "a: 1\n---\nb: [\n", []string{"1: a: 1\n", "3: b: [\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for d := range Documents([]byte(tc.data)) {
				text := string(d.YAML)
				if d.YAML == nil {
					text = "json"
				}
				got = append(got, fmt.Sprintf("%d: %s", d.Line, text))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	for d := range Documents([]byte("a: [\n")) {
		var se *SyntaxError
		if !errors.As(d.Err, &se) || se.Format != "YAML" || !strings.HasPrefix(d.Err.Error(), "error converting YAML to JSON: yaml: ") {
			t.Errorf("a broken YAML document: %v", d.Err)
		}
	}
	for d := range Documents([]byte(`{"a":1} {"b":2} {"c": ]`)) {
		var se *SyntaxError
		if d.Err != nil && (!errors.As(d.Err, &se) || se.Format != "JSON" || !strings.HasPrefix(d.Err.Error(), "json: offset ")) {
			t.Errorf("a JSON syntax error: %v", d.Err)
		}
	}
	for d := range Documents([]byte(`{"a":1} {"b":2} {"c":`)) {
		var se *SyntaxError
		if d.Err != nil && (!errors.As(d.Err, &se) || se.Format != "JSON") {
			t.Errorf("a broken JSON document: %v", d.Err)
		}
	}
}

// apimachineryDocuments reads data as apimachinery's readers do, the
// reading Documents follows: "json" or "error" per document.
func apimachineryDocuments(data []byte) []string {
	var out []string
	if utilyaml.IsJSONBuffer(data) {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				return append(out, "error")
			}
			if !empty(raw) {
				out = append(out, string(raw))
			}
		}
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return append(out, "error")
		}
		raw, err := yaml.YAMLToJSON(doc)
		switch {
		case err != nil:
			out = append(out, "error")
		case !empty(raw):
			out = append(out, string(raw))
		}
	}
}

// FuzzDocumentsAsAPIMachinery: Documents splits and converts a stream as
// apimachinery's YAMLReader and YAMLOrJSONDecoder do. A JSON stream is
// compared up to its first error: the JSON-then-YAML reading exists only
// in apimachinery v0.32 and later, and this module is tested at v0.31.
func FuzzDocumentsAsAPIMachinery(f *testing.F) {
	for _, s := range []string{"---\n---\nnull\n---\na: 1\n", "a: 1\n--- b\nc: 2\n", "a: [\n---\nb: 2\n", `{"a":1} {"b":2}`, `{"a":1} {"b":`, "# c\n---\r\nx: 1\r\n---  # c\r\n", "\n---\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []string
		for d := range Documents(data) {
			if d.Err != nil {
				got = append(got, "error")
				continue
			}
			got = append(got, string(d.JSON))
		}
		want := apimachineryDocuments(data)
		if utilyaml.IsJSONBuffer(data) && len(want) > 0 && want[len(want)-1] == "error" {
			// Up to the first error only.
			got, want = got[:min(len(got), len(want)-1)], want[:len(want)-1]
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("%q:\n got  %q\n want %q", data, got, want)
		}
	})
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
