package engine

import (
	"encoding/json"
	"math"
	"strconv"
)

// number is the canonical form of a JSON number: two numbers are equal
// exactly when their canonical forms are equal, whatever Go type carried
// them (int64, float64, json.Number, ...). Integral values that fit in an
// int64 are kept as int64, larger integral values as uint64, everything else
// as float64.
type number struct {
	kind numberKind
	bits uint64
}

type numberKind uint8

const (
	numInvalid numberKind = iota // not a number, or not a finite one
	numInt                       // bits is an int64
	numUint                      // bits is a uint64 above math.MaxInt64
	numFloat                     // bits is a float64 that is not integral or beyond uint64
)

// toNumber returns the canonical form of v and whether v is a Go number type
// at all. A number type holding NaN or an infinity is reported with
// kind numInvalid: it has no JSON representation.
func toNumber(v interface{}) (number, bool) {
	switch x := v.(type) {
	case int64:
		return number{numInt, uint64(x)}, true
	case float64:
		return floatNumber(x), true
	case int:
		return number{numInt, uint64(int64(x))}, true
	case int32:
		return number{numInt, uint64(int64(x))}, true
	case int16:
		return number{numInt, uint64(int64(x))}, true
	case int8:
		return number{numInt, uint64(int64(x))}, true
	case uint64:
		return uintNumber(x), true
	case uint:
		return uintNumber(uint64(x)), true
	case uint32:
		return number{numInt, uint64(x)}, true
	case uint16:
		return number{numInt, uint64(x)}, true
	case uint8:
		return number{numInt, uint64(x)}, true
	case float32:
		return floatNumber(float64(x)), true
	case json.Number:
		return jsonNumber(x), true
	}
	return number{}, false
}

func uintNumber(u uint64) number {
	if u <= math.MaxInt64 {
		return number{numInt, u}
	}
	return number{numUint, u}
}

// twoTo63 and twoTo64 bound the integral floats that convert exactly.
const (
	twoTo63 = 9223372036854775808.0
	twoTo64 = 18446744073709551616.0
)

func floatNumber(f float64) number {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return number{}
	}
	if f == math.Trunc(f) {
		switch {
		case f >= -twoTo63 && f < twoTo63:
			return number{numInt, uint64(int64(f))} // -0 becomes 0
		case f >= twoTo63 && f < twoTo64:
			return number{numUint, uint64(f)}
		}
	}
	return number{numFloat, math.Float64bits(f)}
}

func jsonNumber(n json.Number) number {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return number{numInt, uint64(i)}
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return uintNumber(u)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return number{} // syntax error or out of float64 range
	}
	return floatNumber(f)
}

// isNull reports whether v is JSON null: nil, or a nil map or slice of the
// unstructured types (encoding/json writes both as null).
func isNull(v interface{}) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]interface{}:
		return x == nil
	case []interface{}:
		return x == nil
	}
	return false
}

// asObject returns v as a JSON object; null and other types are not objects.
func asObject(v interface{}) (map[string]interface{}, bool) {
	m, ok := v.(map[string]interface{})
	return m, ok && m != nil
}

// asList returns v as a JSON array; null and other types are not arrays.
func asList(v interface{}) ([]interface{}, bool) {
	l, ok := v.([]interface{})
	return l, ok && l != nil
}
