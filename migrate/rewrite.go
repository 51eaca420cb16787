package migrate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/immutable-gen/immutable-gen/markers"
)

// edits are the line edits of one Go file. Lines are numbered from 1, in
// the original file.
type edits struct {
	// drop are the lines removed; replace the lines replaced by others.
	drop    map[int]bool
	replace map[int]added
	// before are lines inserted above an original line.
	before map[int][]added
}

// added is a line written, with the decision it carries a marker of.
type added struct {
	text  string
	owner *decision
}

func newEdits() *edits {
	return &edits{drop: map[int]bool{}, replace: map[int]added{}, before: map[int][]added{}}
}

// op is one line of a diff: ' ' kept, '-' removed, '+' added.
type op struct {
	kind byte
	text string
	// newLine is the line's number in the new file (for ' ' and '+').
	newLine int
	owner   *decision
}

// apply returns the lines of the diff of src under e.
func (e *edits) apply(src string) []op {
	lines := strings.SplitAfter(src, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	e.tidy(lines)
	var out []op
	n := 0
	add := func(kind byte, text string, owner *decision) {
		o := op{kind: kind, text: text, owner: owner}
		if kind != '-' {
			n++
			o.newLine = n
		}
		out = append(out, o)
	}
	for i, l := range lines {
		line := i + 1
		r, replaced := e.replace[line]
		gone := replaced || e.drop[line]
		if gone {
			add('-', l, nil)
		}
		for _, b := range e.before[line] {
			add('+', b.text+"\n", b.owner)
		}
		switch {
		case replaced:
			add('+', r.text+"\n", r.owner)
		case !gone:
			add(' ', l, nil)
		}
	}
	return out
}

// tidy drops a bare "//" line that the removed lines would leave last in
// a doc comment, right above the declaration (a blank comment line once
// separated the text from the rules).
func (e *edits) tidy(lines []string) {
	for i, l := range lines {
		line := i + 1
		if strings.TrimSpace(l) != "//" || e.drop[line] || len(e.before[line+1]) > 0 {
			continue
		}
		j := line + 1
		for j <= len(lines) && e.drop[j] && len(e.before[j]) == 0 {
			j++
		}
		if j == line+1 || j > len(lines) || len(e.before[j]) > 0 {
			continue
		}
		if _, replaced := e.replace[j]; replaced || strings.HasPrefix(strings.TrimSpace(lines[j-1]), "//") {
			continue
		}
		e.drop[line] = true
	}
}

// newText is the new file of a diff.
func newText(ops []op) string {
	var b strings.Builder
	for _, o := range ops {
		if o.kind != '-' {
			b.WriteString(o.text)
		}
	}
	return b.String()
}

// unified renders ops as a unified diff of name, with three lines of
// context, as `diff -u` and git print it.
func unified(name string, ops []op) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	const ctx = 3
	changed := func(i int) bool { return ops[i].kind != ' ' }
	for i := 0; i < len(ops); {
		if !changed(i) {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(ops); j++ {
			if changed(j) {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(len(ops), end+ctx+1)
		oldStart, newStart := 1, 1
		for _, o := range ops[:start] {
			if o.kind != '+' {
				oldStart++
			}
			if o.kind != '-' {
				newStart++
			}
		}
		var oldN, newN int
		for _, o := range ops[start:stop] {
			if o.kind != '+' {
				oldN++
			}
			if o.kind != '-' {
				newN++
			}
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldN, newStart, newN)
		for _, o := range ops[start:stop] {
			b.WriteByte(o.kind)
			b.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return b.String()
}

// rewrite turns the plan into edits, by file. mutateWhen, when not nil,
// changes the conditions written (Options.mutateWhen).
func rewrite(decisions []*decision, mutateWhen func(string) string) map[string]*edits {
	files := map[string]*edits{}
	at := func(file string) *edits {
		if files[file] == nil {
			files[file] = newEdits()
		}
		return files[file]
	}
	// The rules of the decisions go (or keep what is not immutability).
	for _, d := range decisions {
		for _, c := range d.claims {
			s := c.site
			e := at(s.pos.Filename)
			if s.k8sImmutable {
				continue
			}
			if rest := restOf(s); rest != "" {
				e.replace[s.pos.Line] = added{text: s.indent + "// " + rest}
			} else {
				e.drop[s.pos.Line] = true
			}
		}
	}
	for _, d := range decisions {
		var lines []string
		if d.add {
			lines = append(lines, d.markers()...)
			if d.ignoreOrder {
				lines = append(lines, "+"+markers.IgnoreOrderName)
			}
			when := d.when
			if mutateWhen != nil && when != "" {
				when = mutateWhen(when)
			}
			if when != "" {
				lines = append(lines, "+immutable:when="+quoteWhen(when))
			}
			if d.message != "" {
				lines = append(lines, fmt.Sprintf("+immutable:message=%q", d.message))
			}
		}
		t := d.target
		e := at(t.file)
		// In place of the decl's own rule, else just above the decl.
		line := t.line
		indent := t.indent
		for _, c := range d.claims {
			if c.site.decl == t && c.site.pos.Filename == t.file && (line == t.line || c.site.pos.Line < line) {
				line, indent = c.site.pos.Line, c.site.indent
			}
		}
		for _, c := range d.claims {
			if c.site.k8sImmutable {
				e.replace[c.site.pos.Line] = added{text: indent + "// " + lines[0], owner: d}
				lines = lines[1:]
			}
		}
		for _, l := range lines {
			e.before[line] = append(e.before[line], added{text: indent + "// " + l, owner: d})
		}
		for _, k := range d.keyFields {
			ke := at(k.file)
			ke.before[k.line] = append(ke.before[k.line], added{text: k.indent + "// +immutable", owner: d})
		}
	}
	for f, e := range files {
		if len(e.drop)+len(e.replace)+len(e.before) == 0 {
			delete(files, f)
		}
	}
	return files
}

// restOf is the marker that keeps what a migrated rule checks besides
// immutability, or "".
func restOf(s *site) string {
	if s.rule == nil || len(s.rest) == 0 {
		return ""
	}
	r := *s.rule
	args := []string{fmt.Sprintf("rule=%q", strings.Join(s.rest, " && "))}
	if r.Message != "" {
		args = append(args, fmt.Sprintf("message=%q", r.Message))
	}
	if r.Reason != "" {
		args = append(args, fmt.Sprintf("reason=%q", r.Reason))
	}
	if r.FieldPath != "" {
		args = append(args, fmt.Sprintf("fieldPath=%q", r.FieldPath))
	}
	return "+" + xvalidation + ":" + strings.Join(args, ",")
}

// quoteWhen quotes a condition for +immutable:when: in backquotes when it
// holds double quotes (CEL string literals) and no backquote, so that it
// reads as written; else as a Go string.
func quoteWhen(expr string) string {
	if strings.Contains(expr, `"`) && !strings.ContainsAny(expr, "`\\") {
		return "`" + expr + "`"
	}
	return strconv.Quote(expr)
}
