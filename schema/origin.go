package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/runtime/when"
)

// Origin is where one immutability marker was written: the Go declaration
// and its position, the form and the message (package markers reads them
// from Go, once, for every generator), or an extension read from a schema.
type Origin struct {
	// Keys is true for +immutable=keys.
	Keys bool `json:"keys,omitempty"`
	// Once is true for +immutable=once.
	Once bool `json:"once,omitempty"`
	// NoModify is true for validation-gen's +k8s:update=NoModify alone:
	// fixed while present; it may be set, removed and set again.
	NoModify bool `json:"noModify,omitempty"`
	// NoSet and NoUnset are validation-gen's +k8s:update=NoSet and
	// =NoUnset where no other form says the same: the property may not be
	// added, or removed; its value is free unless NoModify says otherwise.
	NoSet   bool `json:"noSet,omitempty"`
	NoUnset bool `json:"noUnset,omitempty"`
	// Spelling is the marker as written when it is not one of ours
	// (`+k8s:update=NoUnset,NoModify`), for messages.
	Spelling string `json:"spelling,omitempty"`
	// Message is the +immutable:message written beside the marker, if any.
	Message string `json:"message,omitempty"`
	// IgnoreOrder is true when +immutable:ignoreOrder stands beside the
	// marker (or x-immutable-gen-ignore-order beside the extension): the
	// list maps in the value compare by key, their order ignored.
	IgnoreOrder bool `json:"ignoreOrder,omitempty"`
	// When is the +immutable:when condition beside the marker: a CEL
	// expression over self and oldSelf (the new and old objects); the
	// marker is enforced only on updates where it is true.
	When string `json:"when,omitempty"`
	// WhenLine and WhenColumn are where the condition's text starts in the
	// Go source (the file of Pos), 0 when unknown; WhenQuoted is the
	// marker's value as written when it is a Go string literal with
	// escapes, so that a column of the condition maps to the source.
	WhenLine   int    `json:"whenLine,omitempty"`
	WhenColumn int    `json:"whenColumn,omitempty"`
	WhenQuoted string `json:"whenQuoted,omitempty"`
	// Pos is the marker comment (or the declaration when the comment is not
	// in its doc comment).
	Pos token.Position `json:"pos"`
	// DeclPos is the field or type declaration the marker is on.
	DeclPos token.Position `json:"decl"`
	// Type is the package-qualified Go type: the marked type for type-level
	// markers, the struct holding the field for field markers.
	Type string `json:"type"`
	// Field is the Go field name; empty for type-level markers.
	Field string `json:"field,omitempty"`
	// JSONName is the field's JSON property name.
	JSONName string `json:"json,omitempty"`
	// ItemFields are the fields of the item struct, for =keys on a list, so
	// that errors about list map keys can name the Go field to mark.
	ItemFields []ItemField `json:"itemFields,omitempty"`
	// Extension is true when the origin is not a marker but the KEP's
	// extension (or x-immutable-gen-immutable-once) read from a schema, as
	// in a CRD manifest: there is no Go position, and findings name the
	// extension instead of the marker. Never in a carrier.
	Extension bool `json:"-"`
}

// WhenPosition is the Go position of column col (1-based, in bytes) of the
// +immutable:when condition, as a CEL error names it: in the marker's
// text where that is known, else the marker.
func (o Origin) WhenPosition(col int) token.Position {
	if o.WhenLine == 0 {
		return o.Pos
	}
	p := token.Position{Filename: o.Pos.Filename, Line: o.WhenLine, Column: o.WhenColumn}
	if col < 1 {
		return p
	}
	if o.WhenQuoted == "" {
		p.Column += col - 1
		return p
	}
	// Walk the literal (after its opening quote), one decoded character at
	// a time, to the source byte the condition's byte col comes from.
	raw, decoded := o.WhenQuoted[1:], 0
	for raw != "" && raw[0] != '"' && decoded < col-1 {
		r, _, tail, err := strconv.UnquoteChar(raw, '"')
		if err != nil {
			break
		}
		p.Column += len(raw) - len(tail)
		decoded += utf8.RuneLen(r)
		raw = tail
	}
	return p
}

// WhenCharPosition is WhenPosition for a column counted in characters, as
// runtime/when's parser counts them.
func (o Origin) WhenCharPosition(col int) token.Position {
	if col < 1 {
		return o.WhenPosition(0)
	}
	r := []rune(o.When)
	return o.WhenPosition(len(string(r[:min(col-1, len(r))])) + 1)
}

// WhenRefusal is the refusal of o's condition by the runtime's condition
// subset (when.Parse, its one definition): the Go position of the refused
// construct, the refusal's text naming it, and whether there is one. The
// outputs the runtime or the typed validators enforce report it, each
// with its own ID.
func (o Origin) WhenRefusal() (pos token.Position, msg string, refused bool) {
	_, err := when.Parse(o.When)
	if err == nil {
		return token.Position{}, "", false
	}
	var se *when.SyntaxError
	if errors.As(err, &se) {
		return o.WhenCharPosition(se.Column), se.Msg, true
	}
	return o.WhenPosition(0), err.Error(), true
}

// ItemField is one field of a list's item struct.
type ItemField struct {
	JSON string         `json:"json"`
	Go   string         `json:"go"`
	Type string         `json:"type"`
	Pos  token.Position `json:"pos"`
}

// Form is what the origin says, read through the form table
// (runtime/form): the presence and change rules of its form, with the
// modifiers written beside it. The booleans above are its carrier format;
// every meaning is the table's.
func (o Origin) Form() form.Form {
	f := form.Form{IgnoreOrder: o.IgnoreOrder, When: o.When, Message: o.Message}
	switch {
	case o.Keys:
		f.Presence, f.Change = form.Kept, form.NoKeyChange
	case o.Once:
		f.Presence, f.Change = form.NoUnset, form.NoChange
	case o.NoModify || o.NoSet || o.NoUnset:
		if o.NoSet {
			f.Presence |= form.NoSet
		}
		if o.NoUnset {
			f.Presence |= form.NoUnset
		}
		if o.NoModify {
			f.Change = form.NoChange
		}
	default:
		f.Presence, f.Change = form.Kept, form.NoChange
	}
	return f
}

// Kind is the row of the form table the origin's form is. Every Origin
// is one: the carriers hold only forms of the table.
func (o Origin) Kind() form.Kind {
	k, _ := o.Form().Kind()
	return k
}

// WithForm returns o saying f: its form's booleans and its modifiers.
func (o Origin) WithForm(f form.Form) Origin {
	o.Keys, o.Once, o.NoModify, o.NoSet, o.NoUnset = false, false, false, false, false
	switch {
	case f.Change == form.NoKeyChange:
		o.Keys = true
	case f.Change == form.NoChange && f.Presence == form.Kept:
	case f.Change == form.NoChange && f.Presence == form.NoUnset:
		o.Once = true
	default:
		o.NoModify = f.Change == form.NoChange
		o.NoSet = f.Presence&form.NoSet != 0
		o.NoUnset = f.Presence&form.NoUnset != 0
	}
	o.IgnoreOrder, o.When, o.Message = f.IgnoreOrder, f.When, f.Message
	return o
}

// Marker renders the marker as written: the Spelling of a tag, else the
// form's spelling in the table (`+immutable`, `+immutable=keys`,
// `+immutable=once`, or validation-gen's tag for the forms that have no
// marker of ours).
func (o Origin) Marker() string {
	if o.Spelling != "" {
		return o.Spelling
	}
	return o.Kind().Spelling()
}

// Where names the marked declaration for messages: `field Spec.Name` or
// `type Name`.
func (o Origin) Where() string {
	short := o.Type[strings.LastIndex(o.Type, ".")+1:]
	if o.Field != "" {
		return fmt.Sprintf("field %s.%s", short, o.Field)
	}
	return "type " + short
}

// carrierPrefix starts the text of carrier rules. It is not valid CEL, so a
// carrier that escaped into output would be refused by any API server
// instead of silently enforcing nothing.
const carrierPrefix = "@immutable-gen:origin "

// Carrier returns the text of the carrier rule that holds o in a generated
// schema's x-kubernetes-validations, from the marker to Build (which takes
// it out again).
func (o Origin) Carrier() string {
	b, err := json.Marshal(o)
	if err != nil {
		// Origin holds only strings, ints and bools.
		panic(err)
	}
	return carrierPrefix + string(b)
}

// ParseCarrier returns the origin a carrier rule holds, and whether rule is a
// carrier at all.
func ParseCarrier(rule string) (Origin, bool, error) {
	rest, ok := strings.CutPrefix(rule, carrierPrefix)
	if !ok {
		return Origin{}, false, nil
	}
	var o Origin
	if err := json.Unmarshal([]byte(rest), &o); err != nil {
		return Origin{}, true, fmt.Errorf("corrupt immutability carrier %q: %w", rule, err)
	}
	return o, true, nil
}

// IsCarrier reports whether rule is a carrier, without decoding it.
func IsCarrier(rule string) bool { return strings.HasPrefix(rule, carrierPrefix) }
