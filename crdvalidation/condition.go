package crdvalidation

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// ConditionError is one error the API server's CEL compiler reports for
// an +immutable:when condition compiled alone, as a rule on the root (self
// and oldSelf are the new and old objects).
type ConditionError struct {
	// Line and Column are where the error is in the condition (1-based;
	// Column in bytes), 0 when the compiler names no place.
	Line, Column int
	// Message is the compiler's message, without the place.
	Message string
}

// Conditions compiles +immutable:when conditions against the root schemas
// of one CRD's versions, as the API server compiles a root rule. The
// generator lowers each condition into a larger rule; compiled alone, its
// errors are about the user's text and at its columns.
type Conditions struct {
	roots map[string]*apiextensions.JSONSchemaProps
	env   *environment.EnvSet
}

// NewConditions reads the schemas of crd's versions.
func NewConditions(crd *apiextensions.CustomResourceDefinition) *Conditions {
	c := &Conditions{roots: map[string]*apiextensions.JSONSchemaProps{}}
	for _, v := range crd.Spec.Versions {
		switch {
		case v.Schema != nil:
			c.roots[v.Name] = v.Schema.OpenAPIV3Schema
		case crd.Spec.Validation != nil:
			c.roots[v.Name] = crd.Spec.Validation.OpenAPIV3Schema
		}
	}
	return c
}

// compilerPlace is the place a CEL error names: "ERROR: <input>:1:26: …".
var compilerPlace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`ERROR: <input>:(\d+):(\d+): (.*)`) })

// Check compiles cond on version's root schema and returns its errors,
// none when it compiles to a bool.
func (c *Conditions) Check(version, cond string) ([]ConditionError, error) {
	root := c.roots[version]
	if root == nil {
		return nil, fmt.Errorf("version %s has no schema", version)
	}
	// The root with the condition as its only rule: cel.Compile compiles
	// the rules of the node it is given, nothing below.
	alone := *root
	alone.XValidations = apiextensions.ValidationRules{{Rule: cond}}
	st, err := structuralschema.NewStructural(&alone)
	if err != nil {
		return nil, err
	}
	if c.env == nil {
		c.env = environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	}
	results, err := cel.Compile(st, model.SchemaDeclType(st, true), celconfig.PerCallLimit, c.env, cel.NewExpressionsEnvLoader())
	if err != nil {
		return nil, err
	}
	var out []ConditionError
	for _, r := range results {
		if r.Error == nil {
			continue
		}
		detail := r.Error.Detail
		found := false
		for _, line := range strings.Split(detail, "\n") {
			m := compilerPlace().FindStringSubmatch(line)
			if m == nil {
				continue
			}
			l, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			out = append(out, ConditionError{Line: l, Column: col, Message: m[3]})
			found = true
		}
		if !found {
			out = append(out, ConditionError{Message: strings.TrimPrefix(detail, "compilation failed: ")})
		}
	}
	return out, nil
}
