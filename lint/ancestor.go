package lint

import (
	"regexp"
	"sync"
)

// onceSet matches the messages of rules meant to make a field immutable
// once set ("cannot be changed once set", "is immutable once set", "may be
// set once", "cannot change after it is set"): the author wants set-once semantics, not a field fixed at
// creation.
var onceSet = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bonce\s+(?:it\s+is\s+|it's\s+|they\s+are\s+|it\s+has\s+been\s+)?(?:set|specified|assigned|populated|provided)\b|\bset\s+once\b|\bafter\s+(?:it\s+is\s+|it\s+has\s+been\s+|being\s+)?(?:set|specified)\b`)
})

// whileSet matches the messages of rules meant to fix a field only while it
// is there ("immutable while set", validation-gen's +k8s:update=NoModify):
// it may be removed and set again.
var whileSet = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bwhile\s+(?:it\s+is\s+)?(?:set|present)\b`) })

// setOnce reports whether the message of the immutability rule r asks for
// set-once semantics.
func setOnce(r rule) bool { return onceSet().MatchString(r.message) }
