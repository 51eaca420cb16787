package crdgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/immutable-gen/immutable-gen/crdmodel"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// IDOtherKinds: a marker that reaches kinds declared in another package
// than its own.
const IDOtherKinds diag.ID = "IG034"

// otherKinds notes, once per run and marker, every kind declared in
// another Go package (or API group) than the marker's own that the marker
// reaches, with the paths: a marker on a shared type freezes fields of
// kinds whose authors may not expect it (LeaderWorkerSet's SubGroupPolicy,
// used by DisaggregatedSet).
func otherKinds(files []crdmodel.File) diag.List {
	type reach struct {
		o      schema.Origin
		places []string
	}
	var order []string
	byMarker := map[string]*reach{}
	for _, f := range files {
		if f.CRD == nil {
			continue
		}
		for _, v := range f.CRD.Spec.Versions {
			pkg := f.Sources[v.Name]
			if v.Schema == nil || pkg == nil {
				continue
			}
			kind := fmt.Sprintf("%s (%s/%s, package %s)", f.CRD.Spec.Names.Kind, f.CRD.Spec.Group, v.Name, pkg.PkgPath)
			walkCarriers(v.Schema.OpenAPIV3Schema, "", func(path string, o schema.Origin) {
				if o.Type == "" || !o.Pos.IsValid() || packageOf(o.Type) == pkg.PkgPath {
					return
				}
				key := o.Pos.String() + o.Marker()
				r := byMarker[key]
				if r == nil {
					r = &reach{o: o}
					byMarker[key] = r
					order = append(order, key)
				}
				place := kind + " at " + path
				if !slices.Contains(r.places, place) {
					r.places = append(r.places, place)
				}
			})
		}
	}
	var out diag.List
	for _, k := range order {
		r := byMarker[k]
		more := ""
		places := r.places
		if len(places) > 4 {
			more = fmt.Sprintf(" and %d more", len(places)-4)
			places = places[:4]
		}
		out = append(out, diag.Diagnostic{
			ID:       IDOtherKinds,
			Pos:      r.o.Pos,
			Severity: diag.Note,
			Marker:   r.o.Marker(),
			Message: fmt.Sprintf("%s on %s in package %s reaches kinds declared elsewhere: %s%s; changing or adding the marker changes their API too",
				r.o.Marker(), r.o.Where(), packageOf(r.o.Type), strings.Join(places, "; "), more),
			Fix: "nothing to do if those kinds should be immutable there too; otherwise mark the fields of the kinds of this package instead of the shared type",
		})
	}
	return out
}

// packageOf is the package path of a package-qualified Go name.
func packageOf(qualified string) string {
	if i := strings.LastIndex(qualified, "."); i >= 0 {
		return qualified[:i]
	}
	return qualified
}

// walkCarriers calls fn with the path and origin of every marker carrier in
// s (properties, items, additionalProperties).
func walkCarriers(s *apiextv1.JSONSchemaProps, path string, fn func(string, schema.Origin)) {
	if s == nil {
		return
	}
	for _, r := range s.XValidations {
		if o, ok, err := schema.ParseCarrier(r.Rule); ok && err == nil {
			p := path
			if p == "" {
				p = "<root>"
			}
			fn(p, o)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		prop := s.Properties[name]
		p := name
		if path != "" {
			p = path + "." + name
		}
		walkCarriers(&prop, p, fn)
	}
	if s.Items != nil {
		walkCarriers(s.Items.Schema, path+"[*]", fn)
	}
	if s.AdditionalProperties != nil {
		walkCarriers(s.AdditionalProperties.Schema, path+"[*]", fn)
	}
}
