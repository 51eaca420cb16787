package runtime

import (
	"strconv"
	"strings"
)

// path is the position of a value in the object, a linked list from the
// leaf up, built by the reporting walk only (see walker) and rendered to a
// string only for a violation.
type path struct {
	parent *path
	kind   pathKind
	name   string // property or map key
	index  int
}

type pathKind uint8

const (
	pathField pathKind = iota // .name
	pathKey                   // [name]
	pathIndex                 // [index]
)

// String renders p like field.Path does: "spec.ports[2].name",
// "spec.labels[team]". The root is "".
func (p *path) String() string {
	var b strings.Builder
	p.write(&b)
	return b.String()
}

// write renders p after its parents.
func (p *path) write(b *strings.Builder) {
	if p == nil {
		return
	}
	p.parent.write(b)
	switch p.kind {
	case pathField:
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p.name)
	case pathKey:
		b.WriteByte('[')
		b.WriteString(p.name)
		b.WriteByte(']')
	case pathIndex:
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(p.index))
		b.WriteByte(']')
	}
}
