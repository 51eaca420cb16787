package migrate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"strings"

	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/markers"
)

// A decl is a struct field or a named type that markers are written on.
type decl struct {
	pkg *loader.Package
	// field is set for a struct field, with owner the named struct type
	// that declares it; typ for a named type.
	field *types.Var
	owner *types.TypeName
	typ   *types.TypeName
	// line is the line of the declaration, indent its indentation: new
	// markers go on their own lines just above it.
	file   string
	line   int
	indent string
	// forms are the +immutable forms already written on it ("", "keys",
	// "once"); message whether it has +immutable:message.
	forms   []string
	message bool
}

func (d *decl) String() string {
	if d.field != nil {
		return d.owner.Name() + "." + d.field.Name()
	}
	return d.typ.Name()
}

// A site is one marker comment on a decl that migrate reads: a
// hand-written rule, or controller-tools' +k8s:immutable.
type site struct {
	decl *decl
	pos  token.Position
	// text is the comment's text, from the `+`.
	text string
	// rule is the parsed rule of a +kubebuilder:validation:XValidation.
	rule *crdmarkers.XValidation
	// k8sImmutable is set for +k8s:immutable.
	k8sImmutable bool
	// indent is the comment line's indentation.
	indent string
	// rest are the conjuncts of the rule that stay when it is migrated.
	rest []string
}

const (
	xvalidation  = "kubebuilder:validation:XValidation"
	k8sImmutable = "k8s:immutable"
)

// scanner finds the sites of the root packages.
type scanner struct {
	reg   *ctmarkers.Registry
	sites []*site
	// decls by the types object they declare.
	fields map[*types.Var]*decl
	types  map[*types.TypeName]*decl
	errs   []error
	// src holds the files read, by name.
	src map[string][]byte
}

func newScanner() (*scanner, error) {
	reg := &ctmarkers.Registry{}
	if err := crdmarkers.Register(reg); err != nil {
		return nil, err
	}
	if err := markers.Register(reg); err != nil {
		return nil, err
	}
	return &scanner{reg: reg, fields: map[*types.Var]*decl{}, types: map[*types.TypeName]*decl{}, src: map[string][]byte{}}, nil
}

// scan reads the markers of every named type and struct field of pkg.
func (s *scanner) scan(pkg *loader.Package) {
	pkg.NeedTypesInfo()
	for _, f := range pkg.Syntax {
		prev := f.Name.End()
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				prev = d.End()
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				start := ts.Pos()
				if !gd.Lparen.IsValid() {
					doc, start = gd.Doc, gd.Pos()
				}
				obj, _ := pkg.TypesInfo.Defs[ts.Name].(*types.TypeName)
				if obj == nil {
					continue
				}
				td := s.newDecl(pkg, start)
				td.typ = obj
				s.types[obj] = td
				s.read(td, f, doc, prev, start, ctmarkers.DescribesType)
				prev = ts.End()
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				fprev := st.Fields.Opening
				for _, field := range st.Fields.List {
					v := fieldVar(pkg, field)
					if v == nil {
						fprev = field.End()
						continue
					}
					fd := s.newDecl(pkg, field.Pos())
					fd.field, fd.owner = v, obj
					s.fields[v] = fd
					s.read(fd, f, field.Doc, fprev, field.Pos(), ctmarkers.DescribesField)
					fprev = field.End()
				}
			}
			prev = gd.End()
		}
	}
}

func (s *scanner) newDecl(pkg *loader.Package, at token.Pos) *decl {
	p := pkg.Fset.Position(at)
	return &decl{pkg: pkg, file: p.Filename, line: p.Line}
}

// read records the markers of one decl: those of its doc comment and of
// the closest other comment group above it, as controller-tools associates
// them.
func (s *scanner) read(d *decl, f *ast.File, doc *ast.CommentGroup, after, start token.Pos, target ctmarkers.TargetType) {
	var groups []*ast.CommentGroup
	for _, g := range f.Comments {
		if g.Pos() > after && g.End() <= start && g != doc {
			groups = []*ast.CommentGroup{g}
		}
	}
	if doc != nil {
		groups = append(groups, doc)
	}
	for _, g := range groups {
		for _, c := range g.List {
			if !strings.HasPrefix(c.Text, "//") {
				continue
			}
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if !strings.HasPrefix(text, "+") {
				continue
			}
			pos := d.pkg.Fset.Position(c.Pos())
			line := s.lineOf(d.pkg, c.Pos())
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			name := text[1:]
			if i := strings.IndexAny(name, "=,"); i >= 0 && !strings.HasPrefix(name, xvalidation) {
				name = name[:i]
			}
			switch {
			case strings.HasPrefix(name, xvalidation+":"):
				def := s.reg.Lookup(text, target)
				if def == nil {
					continue
				}
				v, err := def.Parse(text)
				if err != nil {
					s.errs = append(s.errs, fmt.Errorf("%s: %v", pos, err))
					continue
				}
				rule, ok := v.(crdmarkers.XValidation)
				if !ok {
					continue
				}
				s.sites = append(s.sites, &site{decl: d, pos: pos, text: text, rule: &rule, indent: indent})
			case name == k8sImmutable && target == ctmarkers.DescribesField:
				s.sites = append(s.sites, &site{decl: d, pos: pos, text: text, k8sImmutable: true, indent: indent})
			case name == markers.Name:
				form := ""
				if i := strings.Index(text, "="); i >= 0 {
					form = strings.TrimSpace(text[i+1:])
				}
				d.forms = append(d.forms, form)
			case name == markers.MessageName:
				d.message = true
			}
		}
	}
	if line := s.lineOf(d.pkg, start); line != "" {
		d.indent = line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	}
}

// fieldVar returns the object of a struct field (of its first name, or
// the embedded field).
func fieldVar(pkg *loader.Package, field *ast.Field) *types.Var {
	var id *ast.Ident
	if len(field.Names) > 0 {
		id = field.Names[0]
	} else {
		t := field.Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		switch x := t.(type) {
		case *ast.Ident:
			id = x
		case *ast.SelectorExpr:
			id = x.Sel
		}
	}
	if id == nil {
		return nil
	}
	v, _ := pkg.TypesInfo.Defs[id].(*types.Var)
	return v
}

// source returns the content of a scanned file.
func (s *scanner) source(name string) ([]byte, error) {
	if src, ok := s.src[name]; ok && src != nil {
		return src, nil
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	s.src[name] = src
	return src, nil
}

// lineOf returns the source line at pos.
func (s *scanner) lineOf(pkg *loader.Package, pos token.Pos) string {
	p := pkg.Fset.Position(pos)
	src, _ := s.source(p.Filename)
	lines := strings.Split(string(src), "\n")
	if p.Line >= 1 && p.Line-1 < len(lines) {
		return lines[p.Line-1]
	}
	return ""
}

// jsonName returns the JSON name of a struct field as controller-tools
// reads it, and whether the field is inlined.
func jsonName(tag string, v *types.Var) (name string, inline bool) {
	j, ok := reflect.StructTag(tag).Lookup("json")
	if !ok {
		return v.Name(), v.Embedded()
	}
	parts := strings.Split(j, ",")
	for _, p := range parts[1:] {
		if p == "inline" {
			return "", true
		}
	}
	if parts[0] == "-" {
		return "", false
	}
	if parts[0] == "" {
		return v.Name(), v.Embedded()
	}
	return parts[0], false
}
