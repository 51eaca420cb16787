package when

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
)

// The values of the evaluator, each the CEL value the API server's CEL
// gives a JSON value of a schema (k8s.io/apiserver/pkg/cel/common,
// valuesunstructured.go): bool, int64 (int), uint64 (uint, literals
// only), float64 (double), string, bytesValue (format byte), time.Time
// (date-time, date), time.Duration (duration), nullValue, *listValue,
// *mapValue, preserved (a value without type, x-kubernetes-preserve-unknown-
// fields: comparable only) and *errValue, CEL's error value.
type value any

type nullValue struct{}

type bytesValue []byte

type preserved struct{ raw any }

// errValue is a CEL error: it propagates through strict operations and is
// absorbed where CEL absorbs errors (&&, ||, the macros).
type errValue struct{ msg string }

func errf(format string, args ...any) *errValue {
	return &errValue{msg: fmt.Sprintf(format, args...)}
}

func isErr(v value) bool {
	_, ok := v.(*errValue)
	return ok
}

func noOverload(what string, args ...value) *errValue {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = typeName(a)
	}
	return errf("no matching overload for %s applied to (%s)", what, strings.Join(types, ", "))
}

func typeName(v value) string {
	switch v.(type) {
	case bool:
		return "bool"
	case int64:
		return "int"
	case uint64:
		return "uint"
	case float64:
		return "double"
	case string:
		return "string"
	case bytesValue:
		return "bytes"
	case time.Time:
		return "timestamp"
	case time.Duration:
		return "duration"
	case nullValue:
		return "null_type"
	case *listValue:
		return "list"
	case *mapValue:
		return "map"
	case preserved:
		return "unknown"
	}
	return "error"
}

// listValue is a list: from the object (raw, items; listType "", atomic,
// set or map, with keys) or a literal (lit).
type listValue struct {
	raw      []any
	items    *Schema
	listType string
	keys     []string // escaped, as the API server looks them up
	lit      []value
	isLit    bool
}

func (l *listValue) size() int {
	if l.isLit {
		return len(l.lit)
	}
	return len(l.raw)
}

func (l *listValue) get(ev *evaluator, i int) value {
	if l.isLit {
		return l.lit[i]
	}
	return ev.toVal(l.raw[i], l.items)
}

// mapValue is an object or a map of the object.
type mapValue struct {
	raw map[string]any
	s   *Schema
	// resource: a resource (the root, an embedded resource) whose schema
	// is not typedResource: read through resourceProp.
	resource bool
}

// isObject: the schema has properties (the API server's unstructuredMap
// with properties: names are escaped identifiers, null is absent).
func (m *mapValue) isObject() bool { return m.resource || m.s.Properties != nil }

func (m *mapValue) propSchema(key string) (*Schema, bool) {
	if m.resource {
		return m.s.resourceProp(key)
	}
	if m.s.Properties != nil {
		p, ok := m.s.Properties[key]
		return p, ok
	}
	if m.s.AdditionalProperties != nil {
		return m.s.AdditionalProperties, true
	}
	return nil, false
}

// find is unstructuredMap.Find: the value at key and whether there is one.
func (m *mapValue) find(ev *evaluator, key value) (value, bool) {
	k, ok := key.(string)
	if !ok {
		return noOverload("map key", key), true
	}
	if m.isObject() {
		if k, ok = unescapeName(k); !ok {
			return nil, false
		}
	}
	v, ok := m.raw[k]
	if !ok {
		return nil, false
	}
	if m.isObject() && v == nil {
		return nil, false
	}
	if ps, ok := m.propSchema(k); ok {
		return ev.toVal(v, ps), true
	}
	return nil, false
}

// normalize turns the Go numbers the runtime accepts into the int64 or
// float64 the API server's JSON decoding gives (k8s.io/apimachinery's
// util/json: an integer that fits int64, else a float64).
func normalize(raw any) any {
	switch v := raw.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return v
	case int:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint:
		return normalize(uint64(v))
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		if v <= math.MaxInt64 {
			return int64(v)
		}
		return float64(v)
	case float32:
		return float64(v)
	}
	return raw
}

// toVal is the API server's UnstructuredToVal: the CEL value of raw under
// s, or an error value where raw does not fit s.
func (ev *evaluator) toVal(raw any, s *Schema) value {
	return ev.toValAs(raw, s, s.EmbeddedResource)
}

// toValAs is toVal, reading an object as a resource where resource.
func (ev *evaluator) toValAs(raw any, s *Schema, resource bool) value {
	raw = normalize(raw)
	if raw == nil {
		if s.Nullable {
			return nullValue{}
		}
		return errf("invalid data, got null for schema with nullable=false")
	}
	if s.IntOrString {
		switch v := raw.(type) {
		case string:
			return v
		case int64:
			return v
		}
		return errf("invalid data, expected XIntOrString value to be either a string or integer")
	}
	switch s.Type {
	case "object":
		m, ok := raw.(map[string]any)
		if !ok {
			return errf("invalid data, expected a map for the provided schema with type=object")
		}
		return &mapValue{raw: m, s: s, resource: resource && !s.typedResource()}
	case "array":
		l, ok := raw.([]any)
		if !ok {
			return errf("invalid data, expected an array for the provided schema with type=array")
		}
		if s.Items == nil {
			return errf("invalid array type, expected Items with a non-empty Schema")
		}
		lv := &listValue{raw: l, items: s.Items, listType: s.ListType}
		switch s.ListType {
		case "", "atomic", "set":
		case "map":
			for _, k := range s.ListMapKeys {
				if e, ok := escapeName(k); ok {
					k = e
				}
				lv.keys = append(lv.keys, k)
			}
		default:
			return errf("invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got %s", s.ListType)
		}
		return lv
	case "string":
		str, ok := raw.(string)
		if !ok {
			return errf("invalid data, expected string, got %T", raw)
		}
		switch s.Format {
		case "duration":
			d, err := parseDuration(str)
			if err != nil {
				return errf("Invalid duration %s: %v", str, err)
			}
			return d
		case "date":
			d, err := parseDate(str)
			if err != nil {
				return errf("Invalid date formatted string %s: %v", str, err)
			}
			return d
		case "date-time":
			d, err := parseDateTime(str)
			if err != nil {
				return errf("Invalid date-time formatted string %s: %v", str, err)
			}
			return d
		case "byte":
			b, err := parseBytes(str)
			if err != nil {
				return errf("Invalid byte formatted string %s: %v", str, err)
			}
			return bytesValue(b)
		}
		return str
	case "number":
		switch v := raw.(type) {
		case int64:
			return float64(v)
		case float64:
			return v
		}
		return errf("invalid data, expected float, got %T", raw)
	case "integer":
		if v, ok := raw.(int64); ok {
			return v
		}
		return errf("invalid data, expected int, got %T", raw)
	case "boolean":
		if b, ok := raw.(bool); ok {
			return b
		}
		return errf("invalid data, expected bool, got %T", raw)
	}
	if s.PreserveUnknownFields {
		return preserved{raw: raw}
	}
	return errf("invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got %s", s.Type)
}

// rawOf is a value's Go value as the API server's ref.Val.Value() gives
// it: what set keys and the comparison of unknown fields read.
func rawOf(v value) any {
	switch v := v.(type) {
	case nullValue:
		return nil
	case *listValue:
		if v.isLit {
			return v.lit
		}
		return v.raw
	case *mapValue:
		return v.raw
	case preserved:
		return v.raw
	case bytesValue:
		return []byte(v)
	}
	return v
}

// jsonEqual is the deep equality of two decoded JSON values the API server
// applies to unknown fields and preserved values (apimachinery's
// equality.Semantic.DeepEqual on unstructured data: types strict). Each
// value visited is charged, so that comparing large values repeatedly
// stays within MaxCost.
func (ev *evaluator) jsonEqual(a, b any) bool {
	if !ev.charge(1) {
		return false
	}
	a, b = normalize(a), normalize(b)
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !ev.jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !ev.jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if reflect.TypeOf(a) != reflect.TypeOf(b) || !reflect.TypeOf(a).Comparable() {
		return reflect.DeepEqual(a, b)
	}
	return a == b
}
