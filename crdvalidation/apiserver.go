// Package crdvalidation is the API server's verdict on a generated CRD, in
// immutable-gen's terms: it runs apiextensions-apiserver's own CRD
// validation (docs/semantics.md 2.2, rule 7) through a Server, classifies
// each error by its type and field (ServerClass, stable IDs), finds the
// bounds a rule over the cost budget needs from the server's per-rule cost,
// and words each finding once (Findings) for the generators, which report
// it at the Go marker (Check), and for lint, which reports it at the schema
// path.
package crdvalidation

import (
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// IDUnconvertible: a generated CRD that cannot be converted to the API
// server's internal version (a bug of the generator, not of the API).
const IDUnconvertible diag.ID = "IG025"

// IDUnmarked: the API server refuses the CRD where no immutability marker
// is at fault (what controller-tools generated from the other markers):
// controller-gen writes that CRD the same, so the generators warn and
// write it too.
const IDUnmarked diag.ID = "IG027"

// Check runs apiextensions-apiserver's own CRD validation — the checks
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
func Check(srv Server, crd *apiextv1.CustomResourceDefinition, models map[string]*schema.Node, sev diag.Severity) (diag.List, error) {
	internal, err := Internal(crd)
	if err != nil {
		return diag.List{{ID: IDUnconvertible, Severity: diag.Error, Subject: "CRD " + crd.Name, Message: "cannot convert the generated CRD: " + err.Error()}}, nil
	}
	errs, err := Validate(srv, internal)
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
	emitted := func(n *schema.Node) bool { return len(n.Emitted) > 0 }
	for _, f := range Findings(internal, errs, models, emitted, nil) {
		out = append(out, diagnostic(crd.Name, f, models, sev))
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
			origin schema.Origin
			node   *schema.Node
			bounds []Bound
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
							ID:       IDCost,
							Pos:      o.Pos,
							Severity: sev,
							Marker:   o.Marker(),
							Subject:  "CRD",
							CRD:      crd.Name,
							Version:  v.Name,
							Path:     n.Path(),
						}, origin: o, node: n}
						byMarker[key] = e
						order = append(order, key)
					}
					for _, b := range mine {
						if !slices.ContainsFunc(e.bounds, func(x Bound) bool { return x.Node == b.Node }) {
							e.bounds = append(e.bounds, b)
						}
					}
				}
			}
		})
		for _, k := range order {
			e := byMarker[k]
			e.d.Message = "the CEL rules for this marker put the CRD over the API server's CEL cost budget: what they iterate or compare has no bound"
			if _, outside := external(e.bounds); len(outside) > 0 {
				e.d.Message += "; " + outsideMessage(outside)
			}
			e.d.Fix = boundsAdvice(e.origin, e.node, e.bounds)
		}
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
				if !schema.IsCarrier(r.Rule) {
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

// diagnostic renders a finding at the Go marker responsible for its node,
// when there is one: the markers an emitted rule enforces, else the
// nearest marker at or above the node, else (the whole schema's cost) the
// first rule emitted. A finding at no marker is IDUnmarked, a warning:
// one ID, one severity, whatever the API server's reason (the message says
// it).
func diagnostic(crd string, f Finding, models map[string]*schema.Node, sev diag.Severity) diag.Diagnostic {
	d := diag.Diagnostic{ID: IDUnmarked, Severity: diag.Warning, Subject: "CRD", CRD: crd, Version: f.Version, Path: strings.TrimPrefix(f.Path, "<crd>."), Message: f.Message, Fix: f.Fix}
	if f.Node == nil {
		return d
	}
	if f.Class.Cost() {
		d.Fix = f.BoundsFix(Bound.Marker) + "; or " + schema.FixExtensionsMode
		if own, outside := external(f.Bounds); len(outside) > 0 {
			// Never a bound inside a type the user cannot change.
			g := f
			g.Bounds = own
			d.Message += "; " + outsideMessage(outside)
			d.Fix = g.BoundsFix(Bound.Marker) + "; or " + schema.FixExtensionsMode
			for n := f.Node; n != nil; n = n.Parent {
				if len(n.Origins) > 0 {
					if o := n.Origins[0]; !o.IgnoreOrder && !o.Keys && n.HasListMap() {
						d.Fix = "add +immutable:ignoreOrder beside the marker: its rule is self == oldSelf, which compares list maps by key as a hand-written rule does and needs no bound for their order; or " + d.Fix
					}
					break
				}
			}
		}
	}
	if f.NodeRule >= 0 {
		for _, em := range f.Node.Emitted {
			if em.Index == f.NodeRule && len(em.Origins) > 0 {
				d.Pos, d.Severity, d.ID = em.Origins[0].Pos, sev, f.ID
				return d
			}
		}
	}
	for n := f.Node; n != nil; n = n.Parent {
		if len(n.Origins) > 0 {
			d.Pos, d.Severity, d.ID = n.Origins[0].Pos, sev, f.ID
			return d
		}
	}
	if f.Class.Cost() {
		// The whole schema's budget: the emitted rules share the blame.
		var first *schema.Emitted
		models[f.Version].Walk(func(n *schema.Node) {
			if first == nil && len(n.Emitted) > 0 {
				first = &n.Emitted[0]
			}
		})
		if first != nil && len(first.Origins) > 0 {
			d.Pos, d.Severity, d.ID = first.Origins[0].Pos, sev, f.ID
		}
	}
	return d
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
