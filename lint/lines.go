package lint

import (
	"bytes"
	"strings"
)

// This file finds where a finding is in the YAML it came from: the line
// of the schema node (its key) in the document, for block-style YAML as
// controller-gen and kubebuilder write it. Anything it cannot follow (flow
// style, JSON, a List) gives the line of the deepest key it found, or the
// document's first line.

// yline is one line of a YAML document that holds a key or a list item.
type yline struct {
	no int // 1-based, in the file
	// indent is the column of the line's content (after "- " for an
	// item); item is set for a list item ("- …"), dash its column.
	indent, dash int
	item         bool
	text         string
}

// yamlLines indexes the lines of a document that start at line first of
// its file. Blank lines and comments are left out.
func yamlLines(doc []byte, first int) []yline {
	var out []yline
	no := first - 1
	for len(doc) > 0 {
		no++
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i], doc[i+1:]
		} else {
			doc = nil
		}
		s := strings.TrimRight(string(line), " \t\r")
		t := strings.TrimLeft(s, " ")
		if t == "" || t[0] == '#' {
			continue
		}
		l := yline{no: no, indent: len(s) - len(t), text: t}
		if t == "-" || strings.HasPrefix(t, "- ") {
			l.item, l.dash = true, l.indent
			rest := strings.TrimLeft(t[1:], " ")
			l.indent += len(t) - len(rest)
			l.text = rest
		}
		out = append(out, l)
	}
	return out
}

// keyOf returns the key of a "key: value" line, unquoted.
func keyOf(text string) (string, bool) {
	if text == "" {
		return "", false
	}
	if q := text[0]; q == '"' || q == '\'' {
		if i := strings.IndexByte(text[1:], q); i >= 0 && strings.HasPrefix(text[i+2:], ":") {
			return text[1 : i+1], true
		}
		return "", false
	}
	i := strings.Index(text, ":")
	if i < 0 || (i+1 < len(text) && text[i+1] != ' ') {
		return "", false
	}
	return text[:i], true
}

// block returns the lines below the key line at index i: those more
// indented, and list items at the key's own indentation (kubebuilder's
// "versions:\n- name: v1").
func block(lines []yline, i int) []yline {
	key := lines[i]
	j := i + 1
	for j < len(lines) {
		l := lines[j]
		if l.item && l.dash >= key.indent || !l.item && l.indent > key.indent {
			j++
			continue
		}
		break
	}
	return lines[i+1 : j]
}

// child returns the index in lines of key at the top level of lines (the
// indentation of its first line), or -1.
func childKey(lines []yline, key string) int {
	if len(lines) == 0 {
		return -1
	}
	top := lines[0].indent
	for i, l := range lines {
		if l.indent != top {
			continue
		}
		if k, ok := keyOf(l.text); ok && k == key {
			return i
		}
	}
	return -1
}

// itemNamed returns the lines of the list item whose "name" is name, the
// item's first line included, or nil.
func itemNamed(lines []yline, name string) []yline {
	if len(lines) == 0 || !lines[0].item {
		return nil
	}
	dash := lines[0].dash
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && !(lines[j].item && lines[j].dash == dash) {
			j++
		}
		item := lines[i:j]
		if k := childKey(item, "name"); k >= 0 {
			v := strings.TrimSpace(strings.TrimPrefix(item[k].text, "name:"))
			if strings.Trim(v, `"'`) == name {
				return item
			}
		}
		i = j
	}
	return nil
}

// schemaLine returns the line of the schema node at path (a finding's
// path: spec.ports[*].name, <root>, <crd>.…) of version in the CRD
// document lines; 0 when not even the document has a line.
func schemaLine(lines []yline, crd, version, path string) int {
	if len(lines) == 0 {
		return 0
	}
	line := lines[0].no
	// A v1 List: the item that is the CRD.
	if i := childKey(lines, "items"); i >= 0 && childKey(lines, "spec") < 0 {
		items := block(lines, i)
		for k := 0; k < len(items); {
			j := k + 1
			for j < len(items) && !(items[j].item && items[j].dash == items[k].dash) {
				j++
			}
			item := items[k:j]
			if m := childKey(item, "metadata"); m >= 0 {
				md := block(item, m)
				if n := childKey(md, "name"); n >= 0 && strings.Trim(strings.TrimSpace(strings.TrimPrefix(md[n].text, "name:")), `"'`) == crd {
					lines, line = item, item[0].no
					break
				}
			}
			k = j
		}
	}
	// follow descends into key, and reports whether it was there.
	cur := lines
	follow := func(key string) bool {
		i := childKey(cur, key)
		if i < 0 {
			return false
		}
		line = cur[i].no
		cur = block(cur, i)
		return true
	}
	if version == "" || strings.HasPrefix(path, "<crd>") {
		return line
	}
	if !follow("spec") || !follow("versions") {
		return line
	}
	item := itemNamed(cur, version)
	if item == nil {
		return line
	}
	line, cur = item[0].no, item
	if !follow("schema") || !follow("openAPIV3Schema") || path == "<root>" {
		return line
	}
	for _, part := range strings.Split(path, ".") {
		name, stars, _ := strings.Cut(part, "[")
		if !follow("properties") || !follow(name) {
			return line
		}
		for range strings.Count("["+stars, "[*]") {
			if !follow("items") && !follow("additionalProperties") {
				return line
			}
		}
	}
	return line
}
