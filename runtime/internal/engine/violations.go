package engine

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/immutable"
)

// Origin is the origin of every violation ValidateUpdate reports.
const Origin = immutable.Origin

// changed reports a changed immutable value, unless a value that is not JSON
// or is too deep explains the difference.
func (w *walker) changed(nv, ov interface{}, p *field.Path, depth int) {
	if !w.report {
		w.found = true
		return
	}
	if w.unusable(nv, p, depth) || w.unusable(ov, p, depth) {
		return
	}
	w.errs = append(w.errs, immutable.Changed(p, nv))
}

// presence reports an immutable property, or one with immutable keys, that
// was added or removed.
func (w *walker) presence(n *node, p *field.Path, name string, added bool) {
	if !w.report {
		w.found = true
		return
	}
	form := immutable.Keys
	switch {
	case n.immutable:
		form = immutable.Whole
	case n.immutableOnce, n.noUnset && !n.noSet:
		form = immutable.Once
	case n.noSet || n.noUnset:
		form = immutable.Whole
	}
	w.errs = append(w.errs, immutable.Presence(p, name, form, added))
}

// keyChanged reports a key added to or removed from a node with immutable
// keys.
func (w *walker) keyChanged(p *field.Path, key string, added bool) {
	if !w.report {
		w.found = true
		return
	}
	w.errs = append(w.errs, immutable.KeyChanged(p, key, added))
}

// deep reports a value nested deeper than MaxDepth, once per check.
func (w *walker) deep(p *field.Path) {
	if !w.report {
		w.found = true
		return
	}
	if w.tooDeep {
		return
	}
	w.tooDeep = true
	w.add(field.Invalid(p, field.OmitValueType{}, fmt.Sprintf("value is nested more than %d levels deep", MaxDepth)), p)
}

// unusable reports, and returns true for, a value at p that is not JSON or
// nests too deep. It scans in key order, so the report is deterministic.
func (w *walker) unusable(v interface{}, p *field.Path, depth int) bool {
	if usable(v, depth) {
		return false
	}
	rel, problem := scan(v, depth)
	switch problem {
	case nil:
		return false
	case errTooDeep:
		w.deep(p)
	default:
		w.add(field.InternalError(p, fmt.Errorf("%s%s: %w", pathString(p), rel, problem)), p)
	}
	return true
}

// add records the violation e at p, with the origin of every violation.
func (w *walker) add(e *field.Error, p *field.Path) {
	if p == nil {
		// field.Path renders nil as "<nil>"; the root of an object checked
		// without a prefix has the empty path.
		e.Field = ""
	}
	w.errs = append(w.errs, immutable.WithOrigin(e))
}

// pathString renders p as a field.Error's Field: the root is "".
func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return immutable.PathString(p)
}

var errTooDeep = errors.New("too deep")

// usable reports whether scan finds nothing in v, without allocating: it
// visits map keys in any order, which matters only for where scan reports
// a problem.
func usable(v interface{}, depth int) bool {
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		if f, ok := v.(float64); ok {
			return !math.IsNaN(f) && !math.IsInf(f, 0)
		}
		return true
	case map[string]interface{}:
		if depth >= MaxDepth && len(x) > 0 {
			return false
		}
		for _, e := range x {
			if !usable(e, depth+1) {
				return false
			}
		}
		return true
	case []interface{}:
		if depth >= MaxDepth && len(x) > 0 {
			return false
		}
		for _, e := range x {
			if !usable(e, depth+1) {
				return false
			}
		}
		return true
	}
	n, ok := toNumber(v)
	return ok && n.kind != numInvalid
}

// scan looks for the first part of v, in key order, that is not a JSON value
// or lies deeper than MaxDepth, and returns its path relative to v.
func scan(v interface{}, depth int) (string, error) {
	switch x := v.(type) {
	case nil, string, bool:
		return "", nil
	case map[string]interface{}:
		if x == nil {
			return "", nil
		}
		if depth >= MaxDepth && len(x) > 0 {
			return "", errTooDeep
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if rel, err := scan(x[k], depth+1); err != nil {
				return "[" + k + "]" + rel, err
			}
		}
		return "", nil
	case []interface{}:
		if depth >= MaxDepth && len(x) > 0 {
			return "", errTooDeep
		}
		for i, e := range x {
			if rel, err := scan(e, depth+1); err != nil {
				return "[" + strconv.Itoa(i) + "]" + rel, err
			}
		}
		return "", nil
	}
	if n, ok := toNumber(v); ok {
		if n.kind == numInvalid {
			return "", fmt.Errorf("%v is not a JSON number", v)
		}
		return "", nil
	}
	return "", fmt.Errorf("unsupported value of Go type %T: only JSON values (map[string]interface{}, []interface{}, string, bool, numbers, nil) can be checked", v)
}

// quoteKey renders a map key for a message.
func quoteKey(k string) string { return immutable.QuoteKey(k) }

// formatScalar renders a key value for a message, as JSON.
func formatScalar(v interface{}) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	}
	n, _ := toNumber(v)
	switch n.kind {
	case numInt:
		return strconv.FormatInt(int64(n.bits), 10)
	case numUint:
		return strconv.FormatUint(n.bits, 10)
	case numFloat:
		return strconv.FormatFloat(math.Float64frombits(n.bits), 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
