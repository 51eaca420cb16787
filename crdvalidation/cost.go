package crdvalidation

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/immutable-gen/immutable-gen/schema"
)

// The API server's CEL cost limits for a new CRD
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation:
// StaticEstimatedCostLimit and StaticEstimatedCRDCostLimit; a test holds
// them equal). That package is not imported here: it links the API
// server's webhook client.
const (
	// PerRuleCostLimit is the largest estimated cost of one rule (its
	// cost times how often it runs) or messageExpression.
	PerRuleCostLimit = 10_000_000
	// SchemaCostLimit is the largest estimated cost of all the rules of
	// one openAPIV3Schema together.
	SchemaCostLimit = 100_000_000
)

// costModel judges whether the rules of a CRD's schemas fit the API
// server's cost limits with some bounds added, from the server's own
// estimate: cel.Compile's MaxCost and MaxCardinality for each node's
// rules, multiplied as the server's CRD validation multiplies them (by
// the maxItems and maxProperties of the lists and maps around the node
// when all of them are bounded, else by the compiler's estimate).
//
// A node's rules are compiled again only when the bounds in its subtree
// change: trying k candidate bounds recompiles the few nodes each one
// touches, not the CRD.
type costModel struct {
	// schemas are the internal schemas of the CRD's versions, by index in
	// spec.versions; nil where a version has none.
	schemas []*apiextensions.JSONSchemaProps
	env     *environment.EnvSet
	memo    map[string][]cel.CompilationResult
}

// newCostModel reads the schemas of crd (as Internal gives it).
func newCostModel(crd *apiextensions.CustomResourceDefinition) *costModel {
	m := &costModel{
		env:  environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()),
		memo: map[string][]cel.CompilationResult{},
	}
	for _, v := range crd.Spec.Versions {
		var s *apiextensions.JSONSchemaProps
		switch {
		case v.Schema != nil:
			s = v.Schema.OpenAPIV3Schema
		case crd.Spec.Validation != nil:
			s = crd.Spec.Validation.OpenAPIV3Schema
		}
		m.schemas = append(m.schemas, s)
	}
	return m
}

// trialBound is a bound to try, where the cost model looks for it.
type trialBound struct {
	versionBound
	at string // the node's Steps, rendered
}

// fits reports whether every schema's rules fit the server's per-rule
// and per-schema cost limits with bounds added at their typical values.
// A schema the server could not compile rules for (not structural) does
// not fit.
func (m *costModel) fits(bounds []versionBound) bool {
	trial := make([]trialBound, len(bounds))
	for i, b := range bounds {
		trial[i] = trialBound{b, b.Node.Steps().String()}
	}
	for v, s := range m.schemas {
		if s == nil {
			continue
		}
		var mine []trialBound
		for _, b := range trial {
			if b.version == v {
				mine = append(mine, b)
			}
		}
		if !m.schemaFits(v, s, mine) {
			return false
		}
	}
	return true
}

func (m *costModel) schemaFits(version int, root *apiextensions.JSONSchemaProps, bounds []trialBound) bool {
	var total uint64
	ok := true
	schema.VisitProps(root, func(at schema.Steps, s *apiextensions.JSONSchemaProps) bool {
		if !ok || !celReaches(at) {
			return false
		}
		if len(s.XValidations) == 0 {
			return true
		}
		results, err := m.compile(version, at, s, bounds)
		if err != nil {
			ok = false
			return false
		}
		card := cardinality(root, at, bounds)
		for _, r := range results {
			n := r.MaxCardinality
			if card != nil {
				n = *card
			}
			cost := multiply(r.MaxCost, n)
			total = add(total, cost)
			if cost > PerRuleCostLimit {
				ok = false
			}
			if r.MessageExpression != nil {
				total = add(total, r.MessageExpressionMaxCost)
				if r.MessageExpressionMaxCost > PerRuleCostLimit {
					ok = false
				}
			}
		}
		return ok
	})
	return ok && total <= SchemaCostLimit
}

// celReaches reports whether the server compiles rules at the end of
// steps: through properties, items and additionalProperties only.
func celReaches(at schema.Steps) bool {
	return !slices.ContainsFunc(at, func(s schema.Step) bool {
		return s.Edge != schema.Property && s.Edge != schema.Items && s.Edge != schema.Values
	})
}

// compile returns the server's compilation of the rules of the node s at
// steps at, with the bounds in its subtree.
func (m *costModel) compile(version int, at schema.Steps, s *apiextensions.JSONSchemaProps, bounds []trialBound) ([]cel.CompilationResult, error) {
	prefix := at.String()
	var key strings.Builder
	key.WriteString(strconv.Itoa(version) + "|" + prefix)
	var below []trialBound
	for _, b := range bounds {
		if within(b.at, prefix) {
			below = append(below, b)
			key.WriteString("|" + b.at + " " + b.Keyword)
		}
	}
	if r, ok := m.memo[key.String()]; ok {
		return r, nil
	}
	sub := s.DeepCopy()
	for _, b := range below {
		setBound(sub, b.Node.Steps()[len(at):], b.Keyword)
	}
	st, err := structuralschema.NewStructural(sub)
	if err != nil {
		return nil, err
	}
	results, err := cel.Compile(st, model.SchemaDeclType(st, len(at) == 0 || st.XEmbeddedResource), celconfig.PerCallLimit, m.env, cel.NewExpressionsEnvLoader())
	if err != nil {
		return nil, err
	}
	m.memo[key.String()] = results
	return results, nil
}

// within reports whether the node at steps path is the node at prefix or
// below it.
func within(path, prefix string) bool {
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+".")
}

// cardinality is how often the rules at steps at run at most, as the
// server's CRD validation counts it: the product of the maxItems and
// maxProperties of the lists and maps around them, nil (the compiler's
// estimate) when one of them is unbounded.
func cardinality(root *apiextensions.JSONSchemaProps, at schema.Steps, bounds []trialBound) *uint64 {
	card := uint64(1)
	s := root
	for i, step := range at {
		limit := bounded(s, at[:i].String(), bounds)
		if limit == nil {
			return nil
		}
		card = multiply(card, *limit)
		if s = child(s, step); s == nil {
			return nil
		}
	}
	return &card
}

// bounded is the factor by which the schema s (at path) multiplies how
// often the rules below it run: 1 for an object or a scalar, maxItems or
// maxProperties for a list or a map, nil when that is unbounded.
func bounded(s *apiextensions.JSONSchemaProps, path string, bounds []trialBound) *uint64 {
	var limit *int64
	var keyword string
	switch {
	case s.Type == "array":
		limit, keyword = s.MaxItems, "maxItems"
	case s.Type == "object" && s.AdditionalProperties != nil:
		limit, keyword = s.MaxProperties, "maxProperties"
	default:
		one := uint64(1)
		return &one
	}
	for _, b := range bounds {
		if b.at == path && b.Keyword == keyword {
			v := int64(typical[keyword])
			limit = &v
		}
	}
	if limit == nil {
		return nil
	}
	n := uint64(max(*limit, 0))
	return &n
}

// child is the subschema of s one step down, nil when there is none.
func child(s *apiextensions.JSONSchemaProps, step schema.Step) *apiextensions.JSONSchemaProps {
	switch step.Edge {
	case schema.Property:
		if p, ok := s.Properties[step.Name]; ok {
			return &p
		}
	case schema.Items:
		if s.Items != nil {
			return s.Items.Schema
		}
	case schema.Values:
		if s.AdditionalProperties != nil {
			return s.AdditionalProperties.Schema
		}
	}
	return nil
}

// setBound writes keyword at its typical value on the node at steps below s.
func setBound(s *apiextensions.JSONSchemaProps, steps schema.Steps, keyword string) {
	if len(steps) > 0 {
		if step := steps[0]; step.Edge == schema.Property {
			if p, ok := s.Properties[step.Name]; ok {
				setBound(&p, steps[1:], keyword)
				s.Properties[step.Name] = p
			}
		} else if c := child(s, step); c != nil {
			setBound(c, steps[1:], keyword)
		}
		return
	}
	v := int64(typical[keyword])
	switch keyword {
	case "maxItems":
		s.MaxItems = &v
	case "maxProperties":
		s.MaxProperties = &v
	case "maxLength":
		s.MaxLength = &v
	}
}

func multiply(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

func add(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}
