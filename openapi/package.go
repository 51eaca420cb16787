package openapi

import (
	"fmt"
	"go/types"
	"maps"
	"slices"

	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// analyzePackage finds the definitions openapi-gen generates for pkg, and
// reports the markers on their fields that yield no property. Where the
// other markers land is found once every package is analyzed (place).
func (a *analyzer) analyzePackage(pkg *loader.Package) *pkgResult {
	idx := a.index(pkg)
	if idx.err != nil {
		a.diags = append(a.diags, loaderErrors(pkg.Fset, idx.err)...)
		return nil
	}
	pkgComments := packageComments(pkg)
	pkgEnabled := hasTagValue(pkgComments, "k8s:openapi-gen", "true")
	pkgModel := tagValue(pkgComments, "k8s:openapi-model-package")
	res := &pkgResult{pkg: pkg, enabled: pkgEnabled, unpublished: map[string]problem{}}
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		obj, ok := scope.Lookup(name).(*types.TypeName)
		info := idx.types[name]
		if !ok || obj.IsAlias() || info == nil {
			continue
		}
		// openapi-gen's type filter: all types of a package tagged in
		// doc.go but those tagged false, else the types tagged true.
		comments := typeDocLines(info)
		included := hasTagValue(comments, "k8s:openapi-gen", "true")
		res.enabled = res.enabled || included
		if pkgEnabled {
			included = !hasTagValue(comments, "k8s:openapi-gen", "false")
		}
		named, _ := obj.Type().(*types.Named)
		if named == nil {
			continue
		}
		if _, isStruct := named.Underlying().(*types.Struct); !isStruct {
			continue // openapi-gen inlines it where it is used
		}
		if p := skipped(named, included, pkgEnabled); p != nil {
			res.unpublished[name] = *p
			continue
		}
		m := a.members(named)
		def := &definition{
			named:    named,
			typeName: name,
			display:  pkg.Name + "." + name,
			key:      definitionKey(pkg.PkgPath, named, comments, pkgModel),
			kind:     isKindRoot(named, m.props),
			list:     embeds(named, "ListMeta"),
		}
		for _, p := range m.problems {
			a.report(p.origin, p.problem)
		}
		if c := customDefinition(named); c != "" {
			res.unpublished[name] = problem{
				IDUnpublished,
				fmt.Sprintf("not published: the schema of %s comes from its hand-written %s method, so openapi-gen generates no properties for its fields", name, c),
				"add the extension in that method, or mark the type itself with +immutable",
			}
		}
		a.defs[obj] = def
		res.defs = append(res.defs, def)
	}
	return res
}

// finish reports what no definition of the package placed, and keeps the
// definitions with patches. It returns false when openapi-gen generates
// nothing for the package, so the generator writes nothing for it either.
func (a *analyzer) finish(res *pkgResult) bool {
	marked := a.checkPublished(a.index(res.pkg), res.enabled, res.unpublished)
	if !res.enabled {
		if len(marked) > 0 {
			a.diags = append(a.diags, diag.Diagnostic{
				ID:       IDPackageSkipped,
				Pos:      marked[0].Pos,
				Severity: diag.Note,
				Message: fmt.Sprintf("package %s has immutability markers, but openapi-gen generates no definitions for it (no +k8s:openapi-gen=true in its doc.go or on a type); the openapi generator writes nothing for it",
					res.pkg.PkgPath),
			})
		}
		return false
	}
	res.defs = slices.DeleteFunc(res.defs, func(d *definition) bool { return len(d.patches) == 0 })
	return true
}

// skipped says why openapi-gen generates no definition for a struct type,
// or returns nil when it generates one. included is the result of its
// +k8s:openapi-gen filter.
func skipped(named *types.Named, included, pkgEnabled bool) *problem {
	name := named.Obj().Name()
	switch {
	case !included && pkgEnabled:
		return &problem{
			IDUnpublished,
			fmt.Sprintf("not published: +k8s:openapi-gen=false on type %s leaves it out of openapi-gen's definitions", name),
			"remove +k8s:openapi-gen=false from the type, or remove the marker",
		}
	case !included:
		return &problem{
			IDUnpublished,
			fmt.Sprintf("not published: openapi-gen generates no definition for type %s (no +k8s:openapi-gen=true on it or in the package's doc.go)", name),
			"add // +k8s:openapi-gen=true to the type or to the package comment in doc.go, or remove the marker",
		}
	case !named.Obj().Exported():
		return &problem{
			IDUnpublished,
			fmt.Sprintf("not published: openapi-gen generates definitions for exported types only, and %s is not exported", name),
			"export the type, or remove the marker",
		}
	case named.TypeParams().Len() > 0:
		return &problem{
			IDUnpublished,
			fmt.Sprintf("not published: openapi-gen generates no definition for the generic type %s", name),
			"remove the marker",
		}
	}
	return nil
}

// checkPublished reports every marker on a struct type of the package that
// reached no definition, when openapi-gen generates for the package
// (enabled), and returns all markers of the package's types. Markers on
// other named types are not checked: they are placed where the type is
// used, possibly in other packages.
func (a *analyzer) checkPublished(idx *declIndex, enabled bool, unpublished map[string]problem) []schema.Origin {
	scope := idx.pkg.Types.Scope()
	var marked []schema.Origin
	for _, name := range slices.Sorted(maps.Keys(idx.types)) {
		obj, _ := scope.Lookup(name).(*types.TypeName)
		if obj == nil {
			continue
		}
		origins := slices.Clip(a.typeOrigins(obj))
		st, isStruct := obj.Type().Underlying().(*types.Struct)
		if !isStruct {
			marked = append(marked, origins...)
			continue
		}
		for i := range st.NumFields() {
			fo, _ := a.fieldMarkers(st.Field(i))
			origins = append(origins, fo...)
		}
		marked = append(marked, origins...)
		if !enabled {
			continue
		}
		for _, o := range origins {
			if a.handled[idOf(o)] {
				continue
			}
			p, ok := unpublished[name]
			if !ok {
				p = problem{
					IDUnpublished,
					fmt.Sprintf("not published: no OpenAPI definition of this package has a schema node for %s", o.Where()),
					"remove the marker",
				}
			}
			a.report(o, p)
		}
	}
	return marked
}

// definitionKey returns the Go expression openapi-gen uses as the key of the
// definition of named: its OpenAPI model name when the type has an
// OpenAPIModelName method or a +k8s:openapi-model-package tag (on the type or
// in the package's doc.go), else the Go path `pkg/path.Type`.
func definitionKey(pkgPath string, named *types.Named, typeComments []string, pkgModel string) string {
	name := named.Obj().Name()
	if hasMethod(named, "OpenAPIModelName") || tagValue(typeComments, "k8s:openapi-model-package") != "" || pkgModel != "" {
		return name + "{}.OpenAPIModelName()"
	}
	return fmt.Sprintf("%q", pkgPath+"."+name)
}

// customDefinition returns the name of the method a type's OpenAPI schema
// comes from instead of its fields, or "".
func customDefinition(named *types.Named) string {
	for _, m := range []string{"OpenAPIDefinition", "OpenAPIV3Definition", "OpenAPISchemaType"} {
		if hasMethod(named, m) {
			return m
		}
	}
	return ""
}

func hasMethod(named *types.Named, name string) bool {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(named), true, named.Obj().Pkg(), name)
	_, isFunc := obj.(*types.Func)
	return isFunc
}

// isKindRoot reports whether a struct is the root type of a kind: it embeds
// metav1.TypeMeta, or has apiVersion, kind and metadata properties.
func isKindRoot(named *types.Named, props []property) bool {
	if embeds(named, "TypeMeta") {
		return true
	}
	have := map[string]bool{}
	for _, p := range props {
		have[p.name] = true
	}
	return have["apiVersion"] && have["kind"] && have["metadata"]
}

// embeds reports whether the struct named embeds the type name of
// k8s.io/apimachinery/pkg/apis/meta/v1 (TypeMeta, ListMeta).
func embeds(named *types.Named, name string) bool {
	st := named.Underlying().(*types.Struct)
	for i := range st.NumFields() {
		f := st.Field(i)
		if n, ok := deref(f.Type()).(*types.Named); ok && f.Embedded() &&
			n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "k8s.io/apimachinery/pkg/apis/meta/v1" && n.Obj().Name() == name {
			return true
		}
	}
	return false
}

// simpleType returns the OpenAPI type openapi-gen publishes t as when it is
// one of its simple types (common.OpenAPITypeFormat), or "".
func simpleType(t types.Type) string {
	switch x := types.Unalias(t).(type) {
	case *types.Basic:
		switch {
		case x.Info()&types.IsString != 0:
			return "string"
		case x.Info()&types.IsBoolean != 0:
			return "boolean"
		case x.Info()&types.IsInteger != 0:
			return "integer"
		case x.Info()&types.IsFloat != 0:
			return "number"
		}
	case *types.Slice:
		if b, ok := types.Unalias(x.Elem()).(*types.Basic); ok && b.Kind() == types.Byte {
			return "string" // []byte: base64
		}
	case *types.Named:
		if x.Obj().Pkg() != nil && x.Obj().Pkg().Path() == "time" && x.Obj().Name() == "Time" {
			return "string"
		}
	case *types.Interface:
		if x.Empty() {
			return "object"
		}
	}
	return ""
}
