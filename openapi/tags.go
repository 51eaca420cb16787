package openapi

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
)

// Comment tags, read the way openapi-gen reads them (gengo's
// ExtractCommentTags): lines `+name=value` of a doc comment. openapi-gen
// takes the package's tags from the comments of doc.go only.

func docLines(doc *ast.CommentGroup) []string {
	if doc == nil {
		return nil
	}
	return strings.Split(doc.Text(), "\n")
}

func typeDocLines(info *ctmarkers.TypeInfo) []string {
	doc := info.RawSpec.Doc
	if doc == nil && info.RawDecl.Lparen == token.NoPos {
		doc = info.RawDecl.Doc
	}
	return docLines(doc)
}

// packageComments returns all comment lines of the package's doc.go, where
// openapi-gen reads package tags from.
func packageComments(pkg *loader.Package) []string {
	var out []string
	for _, f := range pkg.Syntax {
		if filepath.Base(pkg.Fset.Position(f.FileStart).Filename) != "doc.go" {
			continue
		}
		for _, c := range f.Comments {
			out = append(out, strings.Split(c.Text(), "\n")...)
		}
	}
	return out
}

func tagValues(lines []string, name string) []string {
	var out []string
	for _, line := range lines {
		line = strings.Trim(line, " ")
		rest, ok := strings.CutPrefix(line, "+"+name)
		if !ok {
			continue
		}
		if rest == "" {
			out = append(out, "")
		} else if v, ok := strings.CutPrefix(rest, "="); ok {
			out = append(out, v)
		}
	}
	return out
}

func tagValue(lines []string, name string) string {
	v := tagValues(lines, name)
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func hasTagValue(lines []string, name, value string) bool {
	return slices.Contains(tagValues(lines, name), value)
}
