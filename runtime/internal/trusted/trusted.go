// Package trusted lets runtime/webhook decode, in the runtime's trusted
// mode, objects whose bytes a JSON decoder has already validated: the
// AdmissionReview decoder of controller-runtime validated these bytes.
// Package runtime sets its functions; they are not part of its API, which
// keeps DecodeObject validating for every other caller.
package trusted

// DecodeObject and DecodeOldObject are (*runtime.Checker).DecodeObject and
// DecodeOldObject (c is the *runtime.Checker) for raw known to be valid
// JSON: where the decoder only needs the end of a value (one it skips, or
// keeps as bytes that the other object's turn out to equal), it finds it
// without checking the syntax. On valid JSON the results are those of the
// validating functions; on other bytes they may accept what those refuse,
// but never panic, and take time linear in len(raw) without nesting
// deeper than the decoder's limit.
var (
	DecodeObject    func(c interface{}, raw []byte) (map[string]interface{}, error)
	DecodeOldObject func(c interface{}, raw []byte, obj map[string]interface{}) (map[string]interface{}, error)
)
