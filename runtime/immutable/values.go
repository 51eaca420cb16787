package immutable

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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
