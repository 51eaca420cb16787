package immutable

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Equality of the apimachinery types whose JSON comes from their own
// MarshalJSON, exactly as their JSON compares: the generated validators
// call these instead of comparing the Go values, which may differ where the
// JSON does not (a time's nanoseconds) or agree where it differs (a
// quantity's cached string form).

// SameTime reports whether a and b have the same JSON: both null (a nil or
// zero time), or the same second (RFC 3339 in UTC, as metav1.Time writes).
func SameTime(a, b *metav1.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() && b.IsZero()
	}
	return a.Unix() == b.Unix()
}

// SameMicroTime reports whether a and b have the same JSON: both null (a
// nil or zero time), or the same microsecond (as metav1.MicroTime writes).
func SameMicroTime(a, b *metav1.MicroTime) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() && b.IsZero()
	}
	return a.UnixMicro() == b.UnixMicro()
}

// SameDuration reports whether a and b have the same JSON (the duration's
// String form, which is one-to-one).
func SameDuration(a, b *metav1.Duration) bool { return a.Duration == b.Duration }

// SameIntOrString reports whether a and b have the same JSON: both
// integers of the same value, or both strings of the same value.
func SameIntOrString(a, b *intstr.IntOrString) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case intstr.Int:
		return a.IntVal == b.IntVal
	case intstr.String:
		return a.StrVal == b.StrVal
	}
	return *a == *b
}

// SameQuantity reports whether a and b have the same JSON: the string
// Quantity.MarshalJSON writes, the form the quantity was parsed from when
// it keeps it, else its canonical form. "1Ki" and "1024" are equal
// quantities but different JSON, so different here, as in the runtime. It
// allocates only for a quantity that keeps no string form (one built by
// arithmetic rather than parsed); a and b are not modified.
func SameQuantity(a, b *resource.Quantity) bool {
	ca, cb := *a, *b
	return ca.String() == cb.String()
}

// SameMarshaled reports whether a and b have the same JSON, for a type
// with its own MarshalJSON: the JSON values the method writes (as
// encoding/json calls it; a nil pointer is null) compared as the runtime
// compares JSON values — objects by their keys and values, lists in order,
// numbers by value (1 and 1.0 are equal), whatever the spacing. Equal bytes
// are equal without decoding; a marshaling error is never equal. It
// allocates what the type's MarshalJSON allocates (nothing for
// runtime.RawExtension, metav1.FieldsV1 and apiextensions JSON holding
// JSON), and decodes only when the bytes differ.
func SameMarshaled[T any, PT interface {
	*T
	json.Marshaler
}](a, b PT) bool {
	ja, ok := marshal(a)
	if !ok {
		return false
	}
	jb, ok := marshal(b)
	if !ok {
		return false
	}
	return SameJSON(ja, jb)
}

var null = []byte("null")

func marshal[T any, PT interface {
	*T
	json.Marshaler
}](p PT) ([]byte, bool) {
	if p == nil {
		return null, true
	}
	data, err := p.MarshalJSON()
	return data, err == nil
}

// SameJSON reports whether two JSON documents hold the same value, as the
// runtime compares JSON values: objects by their keys and values, lists in
// order, numbers by value, strings and booleans when identical. Equal bytes
// are the same without a look inside (invalid JSON fails the encoding of
// the whole object anyway); different bytes of which one is invalid JSON
// are never the same.
func SameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, ok := decode(a)
	if !ok {
		return false
	}
	vb, ok := decode(b)
	if !ok {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// decode decodes a JSON document as the API server does (integers as
// int64, other numbers as float64), then writes every float64 that holds an
// integer in int64's range as that int64, so that equal numbers have one Go
// value (the runtime compares 1 and 1.0 equal).
func decode(data []byte) (any, bool) {
	var v any
	if err := utiljson.Unmarshal(data, &v); err != nil {
		return nil, false
	}
	return canonicalNumbers(v), true
}

func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbers(e)
		}
	}
	return v
}
