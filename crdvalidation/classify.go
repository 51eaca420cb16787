package crdvalidation

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

// ServerClass is what kind of problem an error of the API server's CRD
// validation is. Its value is a stable ID.
type ServerClass string

// The classes of the API server's CRD validation errors. A class is told by
// the error's type and field (the path of the CRD field it is about); the
// detail is read only where those two cannot tell (which cost budget a
// Forbidden rule exceeds, whether an invalid rule does not compile or uses
// oldSelf where it cannot).
const (
	// ServerUncorrelatable: a transition rule (oldSelf) under the items of
	// an atomic list or a set, which are not correlated between the old
	// and the new object. Invalid on `x-kubernetes-validations[i].rule`.
	ServerUncorrelatable ServerClass = "uncorrelatable-old-self"
	// ServerRuleInvalid: a rule that does not compile (or is otherwise
	// refused). Any other error on `x-kubernetes-validations[i].rule`.
	ServerRuleInvalid ServerClass = "rule-invalid"
	// ServerMessageExpressionInvalid: a messageExpression that does not
	// compile. Any other error on `x-kubernetes-validations[i].messageExpression`.
	ServerMessageExpressionInvalid ServerClass = "message-expression-invalid"
	// ServerOptionalOldSelf: optionalOldSelf on a rule without oldSelf.
	// Any error on `x-kubernetes-validations[i].optionalOldSelf`.
	ServerOptionalOldSelf ServerClass = "optional-old-self"
	// ServerRuleCost: a rule over the per-rule cost budget. Forbidden on
	// `x-kubernetes-validations[i].rule`.
	ServerRuleCost ServerClass = "rule-cost"
	// ServerMessageExpressionCost: a messageExpression over the per-rule
	// cost budget. Forbidden on `x-kubernetes-validations[i].messageExpression`.
	ServerMessageExpressionCost ServerClass = "message-expression-cost"
	// ServerCostShare: a rule (or messageExpression) that contributes to a
	// schema's total cost over its budget. Forbidden on the rule, with a
	// detail saying that it "contributed".
	ServerCostShare ServerClass = "cost-share"
	// ServerSchemaCost: a schema's rules together over the total cost
	// budget. Forbidden on the openAPIV3Schema itself.
	ServerSchemaCost ServerClass = "schema-cost"
	// ServerListMapKeys: a problem with `x-kubernetes-list-map-keys`.
	ServerListMapKeys ServerClass = "list-map-keys"
	// ServerListType: a problem with `x-kubernetes-list-type`.
	ServerListType ServerClass = "list-type"
	// ServerDefault: a problem with a `default`, or a list map key without
	// one that is not required.
	ServerDefault ServerClass = "default"
	// ServerRefused: anything else.
	ServerRefused ServerClass = "refused"
)

// Cost reports whether the class is about the CEL cost budget.
func (c ServerClass) Cost() bool {
	switch c {
	case ServerRuleCost, ServerMessageExpressionCost, ServerCostShare, ServerSchemaCost:
		return true
	}
	return false
}

// ServerError is one error of the API server's CRD validation, classified,
// with where in which schema it is.
type ServerError struct {
	*field.Error
	Class ServerClass
	// Schema is the path of the openAPIV3Schema the error is in
	// (`spec.versions[1].schema.openAPIV3Schema`, or
	// `spec.validation.openAPIV3Schema` for one schema of every version);
	// "" for an error outside every schema.
	Schema string
	// Version is the index in spec.versions of the version whose schema
	// it is; -1 for spec.validation and outside every schema.
	Version int
	// Below is the path below the schema's root, as the server writes it:
	// `.properties[a].items.x-kubernetes-validations[0].rule`.
	Below string
	// At is Below without the rule's part (`.x-kubernetes-validations[i]…`):
	// the schema node that holds the rule. Below when Rule is -1.
	At string
	// Rule is the index in x-kubernetes-validations of the rule the error
	// is about, -1 for none; RuleField is the field of that rule ("rule",
	// "messageExpression", "optionalOldSelf", …), "" for the rule itself.
	Rule      int
	RuleField string
	// Factor is, for the cost classes, how far the budget is exceeded as
	// the server says it ("3.2x", "more than 100x"); "" when it does not.
	Factor string
	// Within is, for ServerUncorrelatable, the path below the schema's root
	// of the list whose items are not correlated; "" when not given.
	Within string
}

// A Server runs apiextensions-apiserver's own validation of a new CRD, the
// checks an API server applies when the CRD is created, and returns the
// server's errors in the order of their text. This package does not link
// that validation, so that the placement rules can be used without the API
// server's code: crdvalidation/apiserver.InProcess runs it in this process.
type Server interface {
	ValidateCRD(crd *apiextensions.CustomResourceDefinition) (field.ErrorList, error)
}

// Validate runs the API server's validation of a new CRD (as
// Internal gives it) through s and classifies every error, in the order of
// their text. The error is s's: the validation could not run.
func Validate(s Server, crd *apiextensions.CustomResourceDefinition) ([]ServerError, error) {
	errs, err := s.ValidateCRD(crd)
	if err != nil {
		return nil, err
	}
	out := make([]ServerError, len(errs))
	for i, e := range errs {
		out[i] = Classify(e)
	}
	return out, nil
}

var (
	schemaField = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(spec\.(?:versions\[(\d+)\]\.schema|validation)\.openAPIV3Schema)(.*)$`)
	})
	ruleField = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.*?)\.x-kubernetes-validations\[(\d+)\](?:\.([\w-]+))?$`)
	})
	factorDetail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`by factor of ([^(]+?)\s*(?:\(|$)`) })
)

// Classify classifies one error of the API server's CRD
// validation.
func Classify(e *field.Error) ServerError {
	s := ServerError{Error: e, Class: ServerRefused, Version: -1, Rule: -1}
	m := schemaField().FindStringSubmatch(e.Field)
	if m == nil {
		return s
	}
	s.Schema, s.Below, s.At = m[1], m[3], m[3]
	if m[2] != "" {
		s.Version, _ = strconv.Atoi(m[2])
	}
	if r := ruleField().FindStringSubmatch(s.Below); r != nil {
		s.At, s.RuleField = r[1], r[3]
		s.Rule, _ = strconv.Atoi(r[2])
	}
	s.Class = classify(e.Type, s)
	if s.Class.Cost() {
		if f := factorDetail().FindStringSubmatch(e.Detail); f != nil {
			s.Factor = f[1]
		}
	}
	if s.Class == ServerUncorrelatable {
		if i := strings.LastIndex(e.Detail, " within "); i >= 0 {
			if w := schemaField().FindStringSubmatch(e.Detail[i+len(" within "):]); w != nil {
				s.Within = w[3]
			}
		}
	}
	return s
}

func classify(t field.ErrorType, s ServerError) ServerClass {
	last := s.Below[strings.LastIndex(s.Below, ".")+1:]
	switch {
	case s.Below == "" && t == field.ErrorTypeForbidden:
		return ServerSchemaCost
	case s.RuleField == "rule" || s.RuleField == "messageExpression":
		contributed := strings.Contains(s.Detail, "contributed to")
		switch {
		case t == field.ErrorTypeForbidden && contributed:
			return ServerCostShare
		case t == field.ErrorTypeForbidden && s.RuleField == "rule":
			return ServerRuleCost
		case t == field.ErrorTypeForbidden:
			return ServerMessageExpressionCost
		case s.RuleField == "messageExpression":
			return ServerMessageExpressionInvalid
		case strings.Contains(s.Detail, "oldSelf cannot be used on the uncorrelatable portion"):
			return ServerUncorrelatable
		}
		return ServerRuleInvalid
	case s.RuleField == "optionalOldSelf":
		return ServerOptionalOldSelf
	case strings.HasPrefix(last, extension.ListMapKeys):
		return ServerListMapKeys
	case last == extension.ListType:
		return ServerListType
	case last == "default":
		return ServerDefault
	}
	return ServerRefused
}

// DetailLines are the lines of an error's detail without CEL's source
// excerpts (` | self.x` and the caret line below it), trimmed.
func DetailLines(detail string) []string {
	var lines []string
	for _, l := range strings.Split(detail, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "|") {
			lines = append(lines, t)
		}
	}
	return lines
}
