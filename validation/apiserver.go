package validation

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/schema"
)

// APIServer runs apiextensions-apiserver's own CRD validation — the checks
// an API server applies when the CRD is created: structural schema,
// list-type invariants, CEL compilation, transition rules on uncorrelatable
// paths, the CEL cost budget — on a CRD given as its generic JSON tree.
// Findings are reported at the Go marker of the nearest marked node at or
// above the offending schema node (models maps version names to their
// models), with severity sev; findings outside every marked subtree are not
// about immutability — controller-gen would write them the same — and are
// warnings, reported against the CRD and schema path. srv runs the API
// server's validation; its error (the validation could not run) is
// returned.
func APIServer(srv Server, crd *apiextv1.CustomResourceDefinition, models map[string]*schema.Node, sev diag.Severity) (diag.List, error) {
	internal, err := Internal(crd)
	if err != nil {
		return diag.List{{Severity: diag.Error, Subject: "CRD " + crd.Name, Message: "cannot convert the generated CRD: " + err.Error()}}, nil
	}
	errs, err := ValidateServer(srv, internal)
	if err != nil {
		return nil, err
	}
	var out diag.List
	if slices.ContainsFunc(errs, isCostError) && len(models) > 0 {
		if needed, fits := neededBounds(internal, models); fits {
			// The bounds account for every cost error: report them at the
			// markers whose rules need them, and nothing else about cost.
			out = append(out, boundsDiagnostics(crd, models, needed, sev)...)
			errs = slices.DeleteFunc(errs, isCostError)
		}
	}
	for _, e := range errs {
		out = append(out, translate(internal, e, models, sev))
	}
	return out, nil
}

// boundsDiagnostics reports, at each marker whose rules need some of the
// needed bounds, exactly those bounds.
func boundsDiagnostics(crd *apiextv1.CustomResourceDefinition, models map[string]*schema.Node, needed []versionBound, sev diag.Severity) diag.List {
	var out diag.List
	for i, v := range crd.Spec.Versions {
		root := models[v.Name]
		if root == nil {
			continue
		}
		type entry struct {
			d      diag.Diagnostic
			bounds []*schema.Node
		}
		var order []string
		byMarker := map[string]*entry{}
		root.Walk(func(n *schema.Node) {
			if len(n.Emitted) == 0 {
				return
			}
			for _, em := range n.Emitted {
				var mine []Bound
				for _, b := range RuleBounds(n, em) {
					if slices.ContainsFunc(needed, func(nb versionBound) bool { return nb.version == i && nb.Node == b.Node }) {
						mine = append(mine, b)
					}
				}
				if len(mine) == 0 {
					continue
				}
				for _, o := range em.Origins {
					key := o.Pos.String() + o.Marker()
					e := byMarker[key]
					if e == nil {
						e = &entry{d: diag.Diagnostic{
							Pos:      o.Pos,
							Severity: sev,
							Subject:  fmt.Sprintf("%s (CRD %s %s: %s)", o.Marker(), crd.Name, v.Name, n.Path()),
							Message:  "the CEL rules for this marker put the CRD over the API server's CEL cost budget: what they iterate or compare has no bound",
						}}
						byMarker[key] = e
						order = append(order, key)
					}
					for _, b := range mine {
						if !slices.Contains(e.bounds, b.Node) {
							e.bounds = append(e.bounds, b.Node)
							adds := strings.TrimPrefix(e.d.Fix, "add ")
							adds, _, _ = strings.Cut(adds, "; or ")
							if adds != "" {
								adds += ", "
							}
							e.d.Fix = "add " + adds + b.Marker() + " on " + b.Node.Path() + "; or generate with crd:immutability=extensions and enforce with the immutable-gen runtime"
						}
					}
				}
			}
		})
		for _, k := range order {
			out = append(out, byMarker[k].d)
		}
	}
	return out
}

// Internal converts the CRD as the API server would see it: defaulted, in
// the internal version, without the marker carriers (which are not CEL).
// crd itself is not changed: defaulting touches only names, conversion and
// status, which are copied first; conversion allocates new schemas.
func Internal(crd *apiextv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	defaulted := *crd
	defaulted.Status = *crd.Status.DeepCopy()
	defaulted.Spec.Conversion = crd.Spec.Conversion.DeepCopy()
	apiextv1.SetObjectDefaults_CustomResourceDefinition(&defaulted)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&defaulted, &internal, nil); err != nil {
		return nil, err
	}
	if internal.Spec.Validation != nil {
		stripCarriers(internal.Spec.Validation.OpenAPIV3Schema)
	}
	for i := range internal.Spec.Versions {
		if v := internal.Spec.Versions[i].Schema; v != nil {
			stripCarriers(v.OpenAPIV3Schema)
		}
	}
	return &internal, nil
}

// stripCarriers removes the marker carriers from every rule list of s.
func stripCarriers(s *apiextensions.JSONSchemaProps) {
	schema.VisitProps(s, func(_ schema.Steps, s *apiextensions.JSONSchemaProps) bool {
		if len(s.XValidations) > 0 {
			kept := s.XValidations[:0:0]
			for _, r := range s.XValidations {
				if !markers.IsCarrier(r.Rule) {
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 {
				kept = nil
			}
			s.XValidations = kept
		}
		return true
	})
}

// translate turns one API server error into a diagnostic at the Go marker
// responsible for the schema node it names, when there is one: the markers
// an emitted rule enforces, else the nearest marker at or above the node.
func translate(crd *apiextensions.CustomResourceDefinition, e ServerError, models map[string]*schema.Node, sev diag.Severity) diag.Diagnostic {
	d := diag.Diagnostic{Severity: diag.Warning, Subject: "CRD " + crd.Name, Message: "the API server would refuse this CRD: " + describe(e.Error, e.Field)}
	if e.Schema == "" {
		return d
	}
	idx := max(e.Version, 0) // spec.validation: every version's schema
	if idx >= len(crd.Spec.Versions) {
		return d
	}
	version := crd.Spec.Versions[idx].Name
	root := models[version]
	if root == nil {
		return d
	}
	node, rest := root.Follow(e.Below)
	d.Subject = fmt.Sprintf("CRD %s %s: %s", crd.Name, version, node.Path())
	d.Message = "the API server would refuse this CRD: " + describe(e.Error, strings.TrimPrefix(rest, "."))
	isCost := e.Class.Cost()
	if isCost {
		d.Fix = boundsFix(node)
	}
	if e.Rule >= 0 && rest == e.Below[len(e.At):] {
		for _, em := range node.Emitted {
			if em.Index == e.Rule && len(em.Origins) > 0 {
				d.Pos, d.Severity = em.Origins[0].Pos, sev
				return d
			}
		}
	}
	for n := node; n != nil; n = n.Parent {
		if len(n.Origins) > 0 {
			d.Pos, d.Severity = n.Origins[0].Pos, sev
			return d
		}
	}
	if isCost {
		// The whole schema's budget: the emitted rules share the blame.
		var first *schema.Emitted
		root.Walk(func(n *schema.Node) {
			if first == nil && len(n.Emitted) > 0 {
				first = &n.Emitted[0]
			}
		})
		if first != nil && len(first.Origins) > 0 {
			d.Pos, d.Severity = first.Origins[0].Pos, sev
		}
	}
	return d
}

// describe renders an API server error on one line: where (the path
// within the schema node, or the CRD field), what kind of problem, the
// value only when it is a short scalar (never a dumped Go struct), and the
// detail with CEL's source excerpts left out.
func describe(e *field.Error, where string) string {
	var b strings.Builder
	if where != "" {
		b.WriteString(where + ": ")
	}
	b.WriteString(e.Type.String())
	if v, ok := shortValue(e.BadValue); ok && e.Type != field.ErrorTypeRequired && e.Type != field.ErrorTypeForbidden {
		b.WriteString(" " + v)
	}
	if lines := DetailLines(e.Detail); len(lines) > 0 {
		b.WriteString(": " + strings.Join(lines, "; "))
	}
	return b.String()
}

// shortValue renders v when it is a scalar short enough to read.
func shortValue(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		if len(v) <= 64 && !strings.ContainsAny(v, "\n") {
			return fmt.Sprintf("%q", v), true
		}
	case bool, int, int32, int64, uint64, float64:
		return fmt.Sprint(v), true
	}
	return "", false
}

// Bound is a missing bound that makes CEL cost estimable: Keyword
// (maxItems, maxProperties or maxLength) on Node.
type Bound struct {
	Node    *schema.Node
	Keyword string
}

// MissingBounds names the bounds that make the cost of the rules at node
// estimable — for a node without rules of its own (hasRules false; e.g. the
// whole schema's budget at the root), of the rules below it: maxItems and
// maxProperties on the unbounded lists and maps around the rules (each
// multiplies their cost), and maxLength on the unbounded strings, lists and
// maps they compare. Each bound is named once, nearest the rules first.
func MissingBounds(node *schema.Node, hasRules func(*schema.Node) bool) []Bound {
	var c boundCollector
	targets := []*schema.Node{node}
	if !hasRules(node) {
		targets = nil
		node.Walk(func(c *schema.Node) {
			if hasRules(c) {
				targets = append(targets, c)
			}
		})
	}
	for _, t := range targets {
		c.around(t)
		t.Walk(c.add)
	}
	return c.out
}

// RuleBounds names the bounds that make the cost of one emitted rule at
// node estimable: maxItems and maxProperties on the lists and maps around
// node (each multiplies the rule's cost), and the bounds of what the rule
// reads (none for a presence rule).
func RuleBounds(node *schema.Node, rule schema.Emitted) []Bound {
	var c boundCollector
	c.around(node)
	if rule.Reads != nil {
		rule.Reads.Walk(c.add)
	}
	return c.out
}

// boundCollector collects missing bounds, each once.
type boundCollector struct {
	out  []Bound
	seen map[*schema.Node]bool
}

// around adds the bounds of n's ancestors (n included) that multiply the
// cost of rules at n.
func (c *boundCollector) around(n *schema.Node) {
	for a := n; a != nil; a = a.Parent {
		if a.IsList() || a.IsMap() {
			c.add(a)
		}
	}
}

func (c *boundCollector) add(n *schema.Node) {
	if c.seen == nil {
		c.seen = map[*schema.Node]bool{}
	}
	if c.seen[n] {
		return
	}
	c.seen[n] = true
	switch {
	case n.IsList() && !n.Has("maxItems"):
		c.out = append(c.out, Bound{n, "maxItems"})
	case n.IsMap() && !n.Has("maxProperties"):
		c.out = append(c.out, Bound{n, "maxProperties"})
	case n.Type() == "string" && !n.Has("maxLength") && !n.Has("enum") && !boundedFormat[n.Format()]:
		c.out = append(c.out, Bound{n, "maxLength"})
	}
}

// boundedFormat are the string formats whose length the API server's cost
// estimate knows without maxLength (k8s.io/apiserver/pkg/cel/common,
// estimateMaxStringLengthPerRequest); every other format (uri, hostname,
// …) is as long as the request allows.
var boundedFormat = map[string]bool{"duration": true, "date": true, "date-time": true}

// markerFor is the kubebuilder marker that sets a bound's keyword.
var markerFor = map[string]string{
	"maxItems":      "+kubebuilder:validation:MaxItems",
	"maxProperties": "+kubebuilder:validation:MaxProperties",
	"maxLength":     "+kubebuilder:validation:MaxLength",
}

// boundsFix names, as markers, the bounds that make CEL cost estimable for
// the rules immutable-gen emitted at or below node.
func boundsFix(node *schema.Node) string {
	var adds []string
	for _, b := range MissingBounds(node, func(n *schema.Node) bool { return len(n.Emitted) > 0 }) {
		adds = append(adds, markerFor[b.Keyword]+" on "+b.Node.Path())
	}
	if len(adds) == 0 {
		return "simplify the schema, or generate with crd:immutability=extensions and enforce with the immutable-gen runtime"
	}
	return "bound what the rules iterate and compare (these bounds, even at typical values, do not make the CRD fit alone; lower them or simplify): " + strings.Join(adds, ", ") + "; or generate with crd:immutability=extensions and enforce with the immutable-gen runtime"
}
