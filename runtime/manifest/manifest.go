// Package manifest reads Kubernetes manifests: the documents of a YAML or
// JSON stream, the objects in them (List items included), and the part of
// a CustomResourceDefinition that immutable-gen's readers use. The
// runtime's CRD loaders, the admission adapters' sources and check-update
// read manifests through it, so that a document is numbered, split and
// converted the same way everywhere.
package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// A Document is one document of a manifest: its number, from 1 (empty and
// null documents count, but are not returned), and its JSON, or the error
// that kept it from being read.
type Document struct {
	Number int
	JSON   []byte
	Err    error
}

// Documents returns the documents of a YAML or JSON stream, in order. A
// YAML stream is split at `---` first, so a document that does not parse
// does not stop the ones after it; a JSON stream (concatenated values)
// stops at its first syntax error. The caller may stop at any document.
func Documents(data []byte) iter.Seq[Document] {
	return func(yield func(Document) bool) {
		if utilyaml.IsJSONBuffer(data) {
			dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for n := 1; ; n++ {
				var raw json.RawMessage
				err := dec.Decode(&raw)
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					yield(Document{Number: n, Err: err})
					return
				}
				if empty(raw) {
					continue
				}
				if !yield(Document{Number: n, JSON: raw}) {
					return
				}
			}
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for n := 1; ; n++ {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(Document{Number: n, Err: err})
				return
			}
			raw, err := yaml.YAMLToJSON(doc)
			if err != nil {
				if !yield(Document{Number: n, Err: fmt.Errorf("error converting YAML to JSON: %w", err)}) {
					return
				}
				continue
			}
			if empty(raw) {
				continue
			}
			if !yield(Document{Number: n, JSON: raw}) {
				return
			}
		}
	}
}

// empty reports whether a document holds nothing: blank, or null.
func empty(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// Objects returns the JSON of every object of a manifest: each document,
// or the items of a document that is a List (its kind ends in List and it
// has items). The first document that does not parse is an error naming
// its number.
func Objects(data []byte) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for doc := range Documents(data) {
		if doc.Err != nil {
			return nil, fmt.Errorf("document %d: %w", doc.Number, doc.Err)
		}
		if items, ok := ListItems(doc.JSON); ok {
			out = append(out, items...)
			continue
		}
		out = append(out, doc.JSON)
	}
	return out, nil
}

// ListItems returns the items of a List object, and false when obj is not
// one (its kind does not end in List, or it has no items).
func ListItems(obj []byte) ([]json.RawMessage, bool) {
	var list struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(obj, &list); err != nil || !strings.HasSuffix(list.Kind, "List") || list.Items == nil {
		return nil, false
	}
	return list.Items, true
}
