package immutable

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/internal/celorder"
)

// What the typed validators' code for an +immutable:when condition calls
// (docs/semantics.md, "Conditions in the typed validators"): the CEL
// errors a condition can meet on the JSON of the objects, the comparisons
// of numbers of different CEL types, and the violation of a condition
// that ends in an error, which the API server reports as it reports any
// rule's error.

// ErrNull is the error of a value that is JSON null where the schema does
// not allow null (a nil pointer, slice or map without omitempty): the API
// server's CEL reads it as this error.
var ErrNull = errors.New("invalid data, got null for schema with nullable=false")

// NoSuchKey is the error of a field or map key read where it is absent.
func NoSuchKey(key string) error { return fmt.Errorf("no such key: %s", key) }

// IndexOutOfBounds is the error of a list index outside the list.
func IndexOutOfBounds(i int64) error { return fmt.Errorf("index out of bounds: %d", i) }

// WhenError is the violation of an update whose +immutable:when condition
// ends in an error where the marked field changed: the API server refuses
// it with an error of its rule, at the object's root (a nil path, as the
// API server validates the root), "<error> evaluating rule: <message>",
// message the rule's message.
func WhenError(err error, message string) *field.Error {
	return WithOrigin(field.Invalid(nil, "object", fmt.Sprintf("%v evaluating rule: %s", err, message)))
}

// RuneCount is CEL's size() of a string: its code points.
func RuneCount(s string) int64 { return int64(utf8.RuneCountInString(s)) }

// CompareBools orders false before true, as CEL does.
func CompareBools(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// CompareIntUint orders an int and a uint by value, as CEL does.
func CompareIntUint(a int64, b uint64) int { return celorder.IntUint(a, b) }

// CompareIntDouble orders an int and a double by value, as CEL does.
func CompareIntDouble(a int64, b float64) int { return -celorder.DoubleInt(b, a) }

// CompareUintDouble orders a uint and a double by value, as CEL does.
func CompareUintDouble(a uint64, b float64) int { return -celorder.DoubleUint(b, a) }

// TimeValue is the CEL timestamp the API server reads from the JSON of t
// (a date-time string): the instant metav1.Time's MarshalJSON writes, to
// the second, in UTC; ErrNull for the zero time, which it writes as null;
// an error for a time its RFC 3339 form cannot hold (a year outside
// 0000–9999), which the API server cannot parse either.
func TimeValue(t metav1.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, ErrNull
	}
	s := t.UTC().Format(time.RFC3339)
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid date-time formatted string %s: %v", s, err)
	}
	return v, nil
}

// CompareTimes orders two timestamps, as CEL does.
func CompareTimes(a, b time.Time) int { return a.Compare(b) }

// SameSet is CEL's == on two lists of x-kubernetes-list-type set: the same
// size, and the same distinct items (the API server's CEL compares sets so;
// its schema validation refuses duplicates in a set before).
func SameSet[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	set := make(map[T]struct{}, len(a))
	for _, x := range a {
		set[x] = struct{}{}
	}
	seen := make(map[T]struct{}, len(set))
	for _, y := range b {
		if _, ok := set[y]; !ok {
			return false
		}
		seen[y] = struct{}{}
	}
	return len(seen) == len(set)
}
