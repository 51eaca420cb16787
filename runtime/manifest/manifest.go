// Package manifest reads Kubernetes manifests: the documents of a YAML or
// JSON stream, the objects in them (List items included), and the part of
// a CustomResourceDefinition that immutable-gen's readers use. The
// runtime's CRD loaders, the admission adapters' sources and check-update
// read manifests through it, so that a document is numbered, split and
// converted the same way everywhere.
package manifest

import (
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
// null documents count, but are not returned), where it starts, and its
// JSON, or the error that kept it from being read.
type Document struct {
	Number int
	// Line is the line of the stream the document starts on, from 1: the
	// line after its `---` separator in YAML, the line of its first byte in
	// JSON. Readers that report a position inside the document count from
	// it.
	Line int
	// YAML is the document's text when it was read as YAML (nil for JSON),
	// so a reader can place what it finds on the document's own lines.
	YAML []byte
	JSON []byte
	Err  error
}

// A SyntaxError is a document that is not valid YAML or JSON.
type SyntaxError struct {
	// Format is "YAML" or "JSON": what the document was read as.
	Format string
	Err    error
}

func (e *SyntaxError) Error() string {
	if e.Format == "YAML" {
		return "error converting YAML to JSON: " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Documents returns the documents of a YAML or JSON stream, in order, as
// k8s.io/apimachinery's YAMLOrJSONDecoder reads them (kubectl's reading):
//   - a stream whose first non-blank byte is `{` is JSON, concatenated
//     values; it stops at its first syntax error, except that a stream
//     that fails after at most one value is read on as YAML from the
//     failed value's line (a JSON object followed by YAML documents);
//   - otherwise it is YAML, split at the lines that start with `---`
//     (followed by nothing or a comment; anything else there is an error
//     that ends the stream), so a document that does not parse does not
//     stop the ones after it.
//
// The caller may stop at any document. The splitting is done here, not by
// apimachinery's reader, so that every document carries its line, and so
// that the reading is the same whatever apimachinery version is linked
// (v0.31's decoder does not read on as YAML).
func Documents(data []byte) iter.Seq[Document] {
	return func(yield func(Document) bool) {
		n := 0
		if utilyaml.IsJSONBuffer(data) {
			dec := json.NewDecoder(bytes.NewReader(data))
			for {
				var raw json.RawMessage
				off := int(dec.InputOffset())
				err := dec.Decode(&raw)
				if errors.Is(err, io.EOF) {
					return
				}
				// The document starts at its first non-blank byte.
				lead := data[off:]
				first := off + len(lead) - len(bytes.TrimLeft(lead, " \t\r\n"))
				if err != nil {
					if n <= 1 {
						// As apimachinery does: the rest may be YAML. Blanks
						// up to and including the first newline are eaten.
						rest := off + leadingBlanks(lead)
						yamlDocuments(data[rest:], lineOf(data, rest), n, err, yield)
						return
					}
					yield(Document{Number: n + 1, Line: lineOf(data, first), Err: jsonError(err)})
					return
				}
				n++
				if empty(raw) {
					continue
				}
				if !yield(Document{Number: n, Line: lineOf(data, first), JSON: raw}) {
					return
				}
			}
		}
		yamlDocuments(data, 1, 0, nil, yield)
	}
}

// jsonError is err as apimachinery's decoder words a JSON syntax error.
func jsonError(err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return &SyntaxError{Format: "JSON", Err: fmt.Errorf("json: offset %d: %w", syntax.Offset, err)}
	}
	return &SyntaxError{Format: "JSON", Err: err}
}

// leadingBlanks is the length of data's leading white space, up to and
// including its first newline.
func leadingBlanks(data []byte) int {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1
		case ' ', '\t', '\r':
		default:
			return i
		}
	}
	return len(data)
}

// lineOf is the line, from 1, of data's byte at off.
func lineOf(data []byte, off int) int {
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// lines is doc as apimachinery's LineReader passes it on: every line
// ending in "\n", "\r\n" read as "\n", the last line ended too.
func lines(doc []byte) []byte {
	if bytes.HasSuffix(doc, []byte("\n")) && !bytes.Contains(doc, []byte("\r\n")) {
		return doc
	}
	out := make([]byte, 0, len(doc)+1)
	for len(doc) > 0 {
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i], doc[i+1:]
			line = bytes.TrimSuffix(line, []byte("\r"))
		} else {
			doc = nil
		}
		out = append(append(out, line...), '\n')
	}
	return out
}

// yamlDocuments yields the YAML documents of data, which starts on line
// first of the stream, numbering them after n. When jsonErr is set, data
// is what follows a JSON stream that failed: if its first document does
// not parse either, jsonErr is the error (apimachinery's choice).
func yamlDocuments(data []byte, first, n int, jsonErr error, yield func(Document) bool) {
	start, startLine, line := 0, first, first
	emit := func(end int) bool {
		doc := data[start:end]
		n++
		raw, err := yaml.YAMLToJSON(lines(doc))
		if err != nil {
			if jsonErr != nil {
				yield(Document{Number: n, Line: startLine, Err: jsonError(jsonErr)})
				return false
			}
			return yield(Document{Number: n, Line: startLine, YAML: doc, Err: &SyntaxError{Format: "YAML", Err: err}})
		}
		jsonErr = nil
		if empty(raw) {
			return true
		}
		return yield(Document{Number: n, Line: startLine, YAML: doc, JSON: raw})
	}
	for off := 0; off < len(data); line++ {
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		if text := data[off:end]; bytes.HasPrefix(text, []byte("---")) {
			if rest := bytes.TrimSpace(text[3:]); len(rest) > 0 && rest[0] != '#' {
				if jsonErr != nil {
					yield(Document{Number: n + 1, Line: line, Err: jsonError(jsonErr)})
					return
				}
				yield(Document{Number: n + 1, Line: line, Err: &SyntaxError{Format: "YAML", Err: fmt.Errorf("invalid Yaml document separator: %s", rest)}})
				return
			}
			// A separator ends a document that has lines; one that opens a
			// document is its first line, as in apimachinery's YAMLReader.
			if off > start {
				if !emit(off) {
					return
				}
				start, startLine = end, line+1
			}
		}
		off = end
	}
	if start < len(data) {
		emit(len(data))
	}
	// After a JSON stream, no YAML document at all is the stream's end,
	// as it is for apimachinery.
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
