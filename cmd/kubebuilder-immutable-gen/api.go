package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path"
	"strings"
)

// exampleSignature marks the comment the plugin adds; a file that has it is
// left alone.
const exampleSignature = "immutable-gen: a field marked"

// exampleComment is the comment put above the example field of the Spec. It
// is a comment group of its own, separated by a blank line from the field's
// doc comment, so it does not end up in the CRD's description; no line of it
// starts with "+", so controller-tools reads no marker from it.
func exampleComment(kind, indent string) []string {
	lines := []string{
		exampleSignature + " +immutable can be set when a " + kind,
		"is created, but never changed, added or removed afterwards: make manifests",
		"compiles the marker into CEL rules in the CRD, which the API server enforces.",
		"For example, to make foo immutable, add the marker to its comment:",
		"",
		"\t// foo is an example field of " + kind + ".",
		"\t// +immutable",
		"\t// +optional",
		"\tFoo *string `json:\"foo,omitempty\"`",
		"",
		"On a map or a listType=map list, +immutable=keys fixes the keys only.",
		"Markers and semantics: " + guideURL,
	}
	for i, l := range lines {
		if l == "" || strings.HasPrefix(l, "\t") {
			lines[i] = indent + "//" + l
		} else {
			lines[i] = indent + "// " + l
		}
	}
	return lines
}

// annotateAPI handles create api: the new types file gets the example comment.
func annotateAPI(req PluginRequest, out map[string]string, log io.Writer) error {
	if v, ok := argValue(req.Args, "resource"); ok && v == "false" {
		return nil // no API types scaffolded
	}
	kind, _ := argValue(req.Args, "kind")
	if kind == "" {
		return fmt.Errorf("create api: no --kind in the arguments %q", req.Args)
	}
	file := typesFile(req)
	src, ok := req.Universe[file]
	if !ok {
		fmt.Fprintf(log, "%s: note: no %s in the project, so no +immutable example was added\n", pluginKey, file)
		return nil
	}
	edited, err := addExample(file, src, kind)
	if err != nil {
		fmt.Fprintf(log, "%s: note: %s left as it is: %v\n", pluginKey, file, err)
		return nil
	}
	if edited != src {
		out[file] = edited
	}
	return nil
}

// typesFile is the path of the API types file kubebuilder go/v4 scaffolds for
// the resource in the request: the resource's package path in the PROJECT
// config relative to the repository, else api/[group/]version, then
// <lower-case kind>_types.go.
func typesFile(req PluginRequest) string {
	group, _ := argValue(req.Args, "group")
	version, _ := argValue(req.Args, "version")
	kind, _ := argValue(req.Args, "kind")
	name := strings.ToLower(kind) + "_types.go"

	repo, _ := req.Config["repo"].(string)
	resources, _ := req.Config["resources"].([]any)
	for _, r := range resources {
		res, _ := r.(map[string]any)
		pkg, _ := res["path"].(string)
		if res["kind"] == kind && res["version"] == version && res["group"] == group && repo != "" {
			if rel, ok := strings.CutPrefix(pkg, repo+"/"); ok {
				return path.Join(rel, name)
			}
		}
	}
	if multi, _ := req.Config["multigroup"].(bool); multi && group != "" {
		return path.Join("api", group, version, name)
	}
	return path.Join("api", version, name)
}

// addExample puts the example comment above the doc comment of the example
// field Foo of type <kind>Spec that kubebuilder scaffolds. The result is checked to
// parse; a file that already has the comment is returned unchanged.
func addExample(filename, src, kind string) (string, error) {
	if strings.Contains(src, exampleSignature) {
		return src, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return "", fmt.Errorf("does not parse: %w", err)
	}
	spec := findStruct(f, kind+"Spec")
	if spec == nil {
		return "", fmt.Errorf("no struct type %sSpec", kind)
	}
	var field *ast.Field
	for _, fl := range spec.Fields.List {
		for _, n := range fl.Names {
			if n.Name == "Foo" {
				field = fl
			}
		}
	}
	if field == nil {
		return "", fmt.Errorf("no example field Foo in %sSpec", kind)
	}
	pos := field.Pos()
	if field.Doc != nil {
		pos = field.Doc.Pos()
	}
	offset := fset.Position(pos).Offset
	lineStart := strings.LastIndexByte(src[:offset], '\n') + 1
	indent := src[lineStart:offset]
	if strings.TrimLeft(indent, " \t") != "" {
		return "", fmt.Errorf("field %s does not start a line", fset.Position(pos))
	}
	block := strings.Join(exampleComment(kind, indent), "\n") + "\n\n"
	edited := src[:lineStart] + block + src[lineStart:]
	if _, err := parser.ParseFile(token.NewFileSet(), filename, edited, parser.ParseComments); err != nil {
		return "", fmt.Errorf("internal error: the edited file does not parse: %w", err)
	}
	return edited, nil
}

func findStruct(f *ast.File, name string) *ast.StructType {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == name {
				st, _ := ts.Type.(*ast.StructType)
				return st
			}
		}
	}
	return nil
}
