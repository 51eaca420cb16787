package markers

import (
	"fmt"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/markers"
)

// WhenName is the name of the marker that makes the immutability marker
// beside it conditional: `+immutable:when="<CEL>"`, the expression seeing
// self and oldSelf bound to the new and old objects (the root), as a rule
// in the root's x-kubernetes-validations. Beyond the KEP.
const WhenName = Name + ":when"

// When is the parsed value of one `+immutable:when="…"` marker.
type When struct {
	expr string
	id   *occurrence
}

// ParseMarker accepts a quoted Go string (or bare text), not empty, one
// line. The expression itself is compiled by the API server's CRD
// validation at generation, and reported at the marker.
func (m *When) ParseMarker(_ string, _ string, rest string) error {
	m.id = &occurrence{}
	expr, err := oneLine(WhenName, "condition", `"!has(oldSelf.spec.suspend) || !oldSelf.spec.suspend"`, rest)
	m.expr = expr
	return err
}

// whenOf returns the condition of the +immutable:when marker among vals,
// "" when there is none, and an error when there are several.
func whenOf(vals markers.MarkerValues) (string, error) {
	var exprs []string
	for _, v := range vals[WhenName] {
		if w, ok := v.(When); ok {
			exprs = append(exprs, w.expr)
		}
	}
	if len(exprs) > 1 {
		return "", fmt.Errorf("+%s is written %d times on one field or type; keep one (join the conditions with &&)", WhenName, len(exprs))
	}
	if len(exprs) == 0 {
		return "", nil
	}
	return exprs[0], nil
}

// ApplyToSchema checks that the condition stands beside an immutability
// marker on the same field or type (that marker carries it to the schema).
func (m When) ApplyToSchema(ctx *crdmarkers.SchemaContext, _ *apiext.JSONSchemaProps) error {
	if ctx == nil || ctx.TypeInfo == nil {
		return fmt.Errorf("+%s: internal error: no type context", WhenName)
	}
	check := func(vals markers.MarkerValues, where string) (bool, error) {
		mine := false
		for _, v := range vals[WhenName] {
			if x, ok := v.(When); ok && x.id == m.id {
				mine = true
			}
		}
		if !mine || len(vals[Name]) > 0 || len(vals[UpdateName]) > 0 {
			return mine, nil
		}
		return true, fmt.Errorf("+%s on %s has no immutability marker beside it; add +immutable, +immutable=keys or +immutable=once, or remove it", WhenName, where)
	}
	if mine, err := check(ctx.TypeInfo.Markers, "type "+ctx.TypeInfo.Name); mine {
		return err
	}
	for _, f := range ctx.TypeInfo.Fields {
		if mine, err := check(f.Markers, "field "+ctx.TypeInfo.Name+"."+fieldName(f.RawField)); mine {
			return err
		}
	}
	return nil
}

// registerWhen adds +immutable:when for fields and types to reg.
func registerWhen(reg *markers.Registry) error {
	for _, target := range []markers.TargetType{markers.DescribesField, markers.DescribesType} {
		if err := define(reg, WhenName, target, When{}, &markers.DefinitionHelp{
			Category: "Immutability",
			DetailedHelp: markers.DetailedHelp{
				Summary: "makes the immutability marker beside it conditional: enforced only on updates where the CEL expression is true (self, oldSelf: the new and old objects).",
				Details: "+immutable:when=\"<CEL>\" stands beside +immutable, =keys or =once on a field reached from the kind's root through properties only. The CRD gets one rule in the root's x-kubernetes-validations, with fieldPath at the field. The runtime and the typed validators do not evaluate CEL: in extensions mode the rule is CEL too. Beyond the KEP.",
			},
			FieldHelp: map[string]markers.DetailedHelp{},
		}); err != nil {
			return err
		}
	}
	return nil
}
