package webhook

import (
	"slices"
	"strconv"

	"github.com/immutable-gen/immutable-gen/runtime/internal/jsonwrite"
)

// The value of a denial's violation, where ValidateUpdateMarshaled could
// not write it from the object's bytes (engine.MarshaledValue) and
// reports it decoded, is written by appendJSON as encoding/json writes
// it, without reflection (appendErrorBody): a changed
// immutable value can be a whole pod template, and json.Marshal's
// reflection over its maps, and its check of the result, were most of a
// denial's cost. The output is json.Marshal's byte for byte (TestJSONValue,
// FuzzJSONValue): keys in sorted order, HTML characters, U+2028 and U+2029
// escaped, invalid UTF-8 replaced, numbers formatted as encoding/json
// formats them.

// appendJSON appends v as json.Marshal writes it; false if v holds what
// appendJSON does not write (other Go types, NaN, infinities).
func appendJSON(b []byte, v interface{}) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return jsonwrite.String(b, x), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case float64:
		return jsonwrite.Float(b, x)
	case map[string]interface{}:
		if x == nil {
			return append(b, "null"...), true
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonwrite.String(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendJSON(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case []interface{}:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return b, false
}
