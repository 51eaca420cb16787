// Package celorder is CEL's order of numbers across its numeric types
// (int, uint, double), as the API server's CEL environment compares them:
// by value, never by conversion that rounds. It serves the runtime's
// condition evaluator (runtime/when) and the typed validators' run-time
// support (runtime/immutable), so that both order as one.
package celorder

import "math"

// Of is -1, 0 or 1 from two comparisons: less, greater, or neither.
func Of(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// IntUint orders an int and a uint by value.
func IntUint(a int64, b uint64) int {
	if a < 0 || b > math.MaxInt64 {
		return -1
	}
	return Of(a < int64(b), a > int64(b))
}

// DoubleInt orders a double and an int by value (NaN excluded by the
// callers).
func DoubleInt(d float64, i int64) int {
	if d < math.MinInt64 {
		return -1
	}
	if d > math.MaxInt64 {
		return 1
	}
	return Of(d < float64(i), d > float64(i))
}

// DoubleUint orders a double and a uint by value (NaN excluded by the
// callers).
func DoubleUint(d float64, u uint64) int {
	if d < 0 {
		return -1
	}
	if d > math.MaxUint64 {
		return 1
	}
	return Of(d < float64(u), d > float64(u))
}
