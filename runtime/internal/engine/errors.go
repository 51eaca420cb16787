package engine

import (
	"encoding/json"
	"fmt"
)

// A SchemaError is a problem Compile found in a schema. Path names the
// schema node, JSON-Schema style, e.g. "properties[spec].properties[ports]"
// (empty for the root).
type SchemaError struct {
	Path   string
	Detail string
}

func (e *SchemaError) Error() string {
	p := e.Path
	if p == "" {
		p = "<root>"
	}
	return p + ": " + e.Detail
}

// describe renders an extension value for an error message, with its JSON
// type, so that "true" and true are told apart.
func describe(v interface{}) string {
	switch v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("a value of Go type %T", v)
	}
	return string(b)
}
