package runtime

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/internal/engine"
)

// What runtime/webhook reaches through runtime/internal/engine, for the
// external tests of this package, which check it against the public API.

// ValidateUpdateMarshaled is the webhook's check (engine).
func (c *Checker) ValidateUpdateMarshaled(obj, old map[string]interface{}) field.ErrorList {
	return c.engine().ValidateUpdateMarshaled(obj, old)
}

// MarshaledValue is a changed value ValidateUpdateMarshaled reports as its
// JSON (engine).
type MarshaledValue = engine.MarshaledValue

// DecodeTrusted and DecodeOldTrusted are the webhook's trusted decoding
// (engine).
func DecodeTrusted(c *Checker, raw []byte) (map[string]interface{}, error) {
	return c.engine().DecodeTrusted(raw)
}

func DecodeOldTrusted(c *Checker, raw []byte, obj map[string]interface{}) (map[string]interface{}, error) {
	return c.engine().DecodeOldTrusted(raw, obj)
}

// DecodeUpdate is the webhook's decoding of both objects of an update,
// the old one sharing the new one's values where the bytes are the same
// (engine).
func DecodeUpdate(c *Checker, raw, oldRaw []byte, trusted bool) (obj, old map[string]interface{}, errNew, errOld error) {
	return c.engine().DecodeUpdate(raw, oldRaw, trusted)
}

// Unchanged is the webhook's answer to an update whose objects are the
// same bytes, without decoding them (engine).
func Unchanged(c *Checker, raw, oldRaw []byte, trusted bool) bool {
	return c.engine().Unchanged(raw, oldRaw, trusted)
}
