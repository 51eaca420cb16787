package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/when"
)

// whenSite is a node with x-immutable-gen-when, whose flags (linked from
// $refs) are checked once the graph is linked.
type whenSite struct {
	n    *node
	path string
}

// readCondition reads x-immutable-gen-when of s into n: a string that
// when.Parse accepts, beside an immutability extension of the same schema.
func (c *compiler) readCondition(n *node, s *spec.Schema, path string) {
	v, ok := s.Extensions[extension.When]
	if !ok {
		return
	}
	text, isString := v.(string)
	if !isString {
		c.errorf(path, "%s must be a string, the condition, not %s", extension.When, describe(v))
		return
	}
	expr, err := when.Parse(text)
	if err != nil {
		c.errorf(path, "%s: %v", extension.When, err)
		return
	}
	n.when = expr
	c.whens = append(c.whens, whenSite{n: n, path: path})
}

// formExtensions lists the extensions a condition may stand beside.
func formExtensions() string {
	return strings.Join(slices.DeleteFunc(extension.Names(), func(n string) bool { return n == extension.IgnoreOrder }), ", ")
}

// conditionSchema is the schema conditions are typed by (when.Schema): s
// with every $ref resolved against the definitions; a definition reached
// again (recursion) is the same *when.Schema.
func (c *compiler) conditionSchema(s *spec.Schema) *when.Schema {
	memo := map[string]*when.Schema{}
	var conv func(s *spec.Schema, depth int) *when.Schema
	conv = func(s *spec.Schema, depth int) *when.Schema {
		if s == nil || depth > MaxDepth {
			return &when.Schema{}
		}
		if ref := s.Ref.String(); ref != "" {
			key, ok := c.defs.resolve(ref)
			if !ok {
				return &when.Schema{} // reported by compileInto
			}
			if w, ok := memo[key]; ok {
				return w
			}
			w := &when.Schema{}
			memo[key] = w
			def := c.defs.schemas[key]
			*w = *conv(&def, depth+1)
			return w
		}
		if !hasStructure(s) && len(s.Type) == 0 {
			if i, ok := onlyStructuralMember(s.AllOf); ok {
				return conv(&s.AllOf[i], depth+1)
			}
		}
		out := &when.Schema{Format: s.Format, Nullable: s.Nullable}
		if len(s.Type) == 1 {
			out.Type = s.Type[0]
		}
		out.IntOrString, _ = s.Extensions.GetBool(extIntOrString)
		out.PreserveUnknownFields, _ = s.Extensions.GetBool(extPreserve)
		out.EmbeddedResource, _ = s.Extensions.GetBool(extEmbedded)
		out.ListType, _ = s.Extensions.GetString(extListType)
		out.ListMapKeys, _ = s.Extensions.GetStringSlice(extListMapKeys)
		if s.Properties != nil {
			out.Properties = make(map[string]*when.Schema, len(s.Properties))
			for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
				p := s.Properties[name]
				out.Properties[name] = conv(&p, depth+1)
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			out.AdditionalProperties = conv(s.AdditionalProperties.Schema, depth+1)
		}
		if s.Items != nil && s.Items.Schema != nil {
			out.Items = conv(s.Items.Schema, depth+1)
		} else if s.Items != nil && len(s.Items.Schemas) == 1 {
			out.Items = conv(&s.Items.Schemas[0], depth+1)
		}
		return out
	}
	return conv(s, 0)
}

// conditions evaluates the conditions of one update, each once (but for
// a condition first met inside the check of another node with one), on
// the whole objects: a Checker with conditions has DecodeObject decode in
// full.
type conditions struct {
	c        *Checker
	obj, old map[string]interface{}
	results  []conditionResult
}

type conditionResult struct {
	cond     *when.Expr
	held     bool
	err      error
	reported bool // the failure was reported
}

// reportFailure reports whether the failure of cond is yet to be
// reported, and marks it reported.
func (cs *conditions) reportFailure(cond *when.Expr) bool {
	for i := range cs.results {
		if r := &cs.results[i]; r.cond == cond {
			first := !r.reported
			r.reported = true
			return first
		}
	}
	return false
}

// holds evaluates cond: whether it holds, or the error of its evaluation,
// which refuses the update as the API server refuses a rule that fails.
func (cs *conditions) holds(cond *when.Expr) (bool, error) {
	for _, r := range cs.results {
		if r.cond == cond {
			return r.held, r.err
		}
	}
	var held bool
	var err error
	if cs.obj == nil || cs.old == nil {
		err = errNoRoots
	} else {
		held, err = cond.Eval(cs.c.whenRoot, cs.obj, cs.old)
	}
	cs.results = append(cs.results, conditionResult{cond: cond, held: held, err: err})
	return held, err
}

// errNoRoots is the failure of a condition of a Checker for a value below
// the kind's root (Field) called without the kind's objects.
var errNoRoots = errors.New("the kind's objects were not given")

// conditionFailed is the error of an update refused because the condition
// of the immutability of the field at p, which the update changes, could
// not be evaluated: as the API server reports a rule whose evaluation
// fails, at the rule's place, the root (fldPath), of type Invalid.
func conditionFailed(fldPath, p *field.Path, cond *when.Expr, err error) *field.Error {
	return field.Invalid(fldPath, "object", fmt.Sprintf("%v evaluating the condition of the immutability of %s (%s: %s)", err, pathString(p), extension.When, cond))
}

// conditional checks the values at n, which has a condition, present in
// both: n's own check (the value compared whole, or its keys) counts where
// the condition holds (gate); the marks below n count on their own, with
// their own conditions, whatever n's gives — the value compared whole does
// not stand for them as it does without a condition, since where the
// condition is false it says nothing.
func (w *walker) conditional(n *node, nv, ov interface{}, p *field.Path, depth int) {
	sub := w.sub()
	switch {
	case n.whole():
		sub.whole(n, nv, ov, p, depth)
	case n.immutableKeys:
		sub.keys(n, nv, ov, p, depth)
	}
	w.gate(n.when, &sub, p)
	if w.done() {
		return
	}
	if depth >= MaxDepth {
		w.deep(p)
		return
	}
	s := n.structure
	if n.ordered != nil {
		s = n.ordered // the list maps below correlate their items by key
	}
	w.below(s, nv, ov, p, depth)
}

// sub is a walker for the check of a node with a condition: its
// violations count only where the condition holds (gate).
func (w *walker) sub() walker {
	return walker{c: w.c, report: w.report, marshal: w.marshal, self: w.self, oldSelf: w.oldSelf, conds: w.conds, root: w.root, tooDeep: w.tooDeep}
}

// gate keeps what sub, the check of a node with condition cond, found
// where cond holds: the update violates the node's immutability only then
// (the lowered rule is `!(cond) || …`). Where cond's evaluation fails and
// sub found a violation, the update is refused with the failure, once per
// condition, as the API server refuses an update whose rule fails; where
// sub found nothing the condition is not evaluated (`… || true` is true
// whatever cond gives).
func (w *walker) gate(cond *when.Expr, sub *walker, p *field.Path) {
	if w.conds == nil {
		w.conds = sub.conds // what the check below evaluated
	}
	if !sub.found && len(sub.errs) == 0 {
		return
	}
	if w.conds == nil {
		w.conds = &conditions{c: w.c, obj: w.self, old: w.oldSelf}
	}
	held, err := w.conds.holds(cond)
	switch {
	case err != nil:
		if !w.report {
			w.found = true
			return
		}
		if w.conds.reportFailure(cond) {
			if err == errNoRoots {
				w.add(field.InternalError(w.root, fmt.Errorf("the condition of the immutability of %s (%s: %s) reads the kind's whole objects, which were not given: a Checker that (*Checker).Field made checks conditions in ValidateUpdateBelow", pathString(p), extension.When, cond)), w.root)
				break
			}
			w.add(conditionFailed(w.root, p, cond, err), w.root)
		}
	case held:
		w.found = true
		w.errs = append(w.errs, sub.errs...)
		w.tooDeep = w.tooDeep || sub.tooDeep
	}
}
