package crdgen

import (
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/immutable-gen/immutable-gen/celguard"
	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/schema"
)

// IDCondition: an +immutable:when condition that the API server's CEL
// compiler refuses on its own (not CEL, not a bool, a field the schema
// does not have), at the condition's own line and column.
const IDCondition diag.ID = "IG045"

// IDConditionUnguarded: an +immutable:when condition that reads an
// optional field without has(): on an object without the field it is an
// error, and the API server refuses every change of the marked field there
// (the lowered rule's other side absorbs the error only where the field
// is unchanged).
const IDConditionUnguarded diag.ID = "IG046"

// IDConditionOutsideSubset: in the extensions output
// (crd:immutability=extensions), an +immutable:when condition outside the
// subset of CEL the runtime evaluates (package runtime/when, the one
// definition of it), at the construct's column.
const IDConditionOutsideSubset diag.ID = "IG049"

// conditions compiles every +immutable:when condition of the models alone,
// as the API server compiles a rule on the root (self and oldSelf the new
// and old objects), and reports each error at its place in the user's
// text. The generator lowers a condition into a larger rule, whose errors
// would be at the columns of that rule and about its wrapping.
//
// For the extensions output (subset), a condition must also be one the
// runtime evaluates: when.Parse, the subset's one definition, takes it.
func (g Generator) conditions(crd *apiextv1.CustomResourceDefinition, models map[string]*schema.Node, subset bool) (diag.List, error) {
	var out diag.List
	var check *crdvalidation.Conditions
	for _, v := range slices.Sorted(maps.Keys(models)) {
		seen := map[string]bool{}
		var err error
		models[v].Walk(func(n *schema.Node) {
			for _, o := range n.Origins {
				if o.When == "" || o.Extension || seen[o.Pos.String()+o.When] || err != nil {
					continue
				}
				seen[o.Pos.String()+o.When] = true
				if check == nil {
					internal, ierr := crdvalidation.Internal(crd)
					if ierr != nil {
						err = ierr
						return
					}
					check = crdvalidation.NewConditions(internal)
				}
				var errs []crdvalidation.ConditionError
				if col := commentAt(o.When); col > 0 {
					// The lowered rule is one line: a comment would hide
					// the rest of it.
					errs = append(errs, crdvalidation.ConditionError{Line: 1, Column: col, Message: "a comment (//) in the condition would hide the rest of the one-line rule it is lowered into; remove it"})
				} else if errs, err = check.Check(v, o.When); err != nil {
					return
				}
				for _, e := range errs {
					out = append(out, conditionError(crd.Name, v, n, o, e))
				}
				if len(errs) > 0 {
					return
				}
				if subset {
					if pos, msg, refused := o.WhenRefusal(); refused {
						out = append(out, outsideSubset(crd.Name, v, n, o, pos, msg))
						return
					}
				}
				reads, gerr := celguard.Condition(o.When, n)
				if gerr != nil {
					// The compiler took it: a construct the guard analysis
					// does not parse is the compiler's to judge.
					return
				}
				for _, u := range reads {
					out = append(out, diag.Diagnostic{
						ID:       IDConditionUnguarded,
						Pos:      o.WhenPosition(u.Column),
						Severity: diag.Error,
						Marker:   "+" + markers.WhenName,
						CRD:      crd.Name,
						Version:  v,
						Path:     n.Path(),
						Message:  u.Refuses(n.Path()),
						Fix:      u.Fix(),
					})
				}
			}
		})
		if err != nil {
			return nil, fmt.Errorf("CRD %s %s: compiling +%s conditions: %w", crd.Name, v, markers.WhenName, err)
		}
	}
	return out, nil
}

// conditionError words one compiler error of o's condition, at its place
// in the Go source.
func conditionError(crd, version string, n *schema.Node, o schema.Origin, e crdvalidation.ConditionError) diag.Diagnostic {
	pos := o.WhenPosition(0)
	if e.Line == 1 {
		pos = o.WhenPosition(e.Column)
	}
	msg := e.Message
	fix := "correct the condition: CEL over the whole objects, self and oldSelf the new and old object (e.g. `!has(oldSelf.spec.suspend) || !oldSelf.spec.suspend`)"
	if strings.Contains(msg, "must evaluate to a bool") {
		msg = "the condition must be a bool (the marker holds where it is true)"
		fix = "compare or test the value, e.g. `size(oldSelf.spec.items) > 0` or `has(oldSelf.status)`"
	}
	return diag.Diagnostic{
		ID:       IDCondition,
		Pos:      pos,
		Severity: diag.Error,
		Marker:   "+" + markers.WhenName,
		CRD:      crd,
		Version:  version,
		Path:     n.Path(),
		Message:  fmt.Sprintf("the condition `%s` is refused by the API server's CEL compiler: %s", o.When, msg),
		Fix:      fix,
	}
}

// outsideSubset words the refusal of o's condition in the extensions
// output: the runtime, which enforces that output, does not evaluate it.
func outsideSubset(crd, version string, n *schema.Node, o schema.Origin, pos token.Position, msg string) diag.Diagnostic {
	return diag.Diagnostic{
		ID:       IDConditionOutsideSubset,
		Pos:      pos,
		Severity: diag.Error,
		Marker:   "+" + markers.WhenName,
		CRD:      crd,
		Version:  version,
		Path:     n.Path(),
		Message:  fmt.Sprintf("the condition `%s` is outside what the runtime evaluates, which enforces the extensions output (x-immutable-gen-when): %s", o.When, msg),
		Fix:      "rewrite the condition in the subset (docs/semantics.md, \"The condition subset\"), or generate the CEL output (crd:immutability=cel), where the API server evaluates it",
	}
}

// commentAt is the column (1-based, in bytes) of a CEL comment (//) in
// expr outside its string literals, 0 when there is none.
func commentAt(expr string) int {
	var quote byte
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == '/' && i+1 < len(expr) && expr[i+1] == '/':
			return i + 1
		}
	}
	return 0
}
