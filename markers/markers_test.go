package markers

import (
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/schema"
)

func TestParseMarker(t *testing.T) {
	cases := []struct {
		rest       string
		keys, once bool
		wantErr    string // a substring of the error, "" for none
	}{
		{rest: ""},
		{rest: "keys", keys: true},
		{rest: "once", once: true},
		{rest: "true", wantErr: "the only forms are +immutable, +immutable=keys and +immutable=once"},
		{rest: "false", wantErr: "the only forms"},
		{rest: "bogus", wantErr: "the only forms"},
		{rest: "Keys", wantErr: "did you mean +immutable=keys?"},
		{rest: "Once", wantErr: "did you mean +immutable=once?"},
		{rest: `"once"`, wantErr: "did you mean +immutable=once?"},
		{rest: "keys,x", wantErr: "the only forms"},
		{rest: "once,keys", wantErr: "the only forms"},
		{rest: "'keys'", wantErr: "did you mean +immutable=keys?"},
		{rest: " once ", wantErr: "did you mean +immutable=once?"},
		{rest: "KEYS", wantErr: "marker values are case-sensitive and unquoted"},
		{rest: "=keys", wantErr: "invalid marker +immutable==keys"},
		{rest: "key", wantErr: "the only forms"},
	}
	for _, c := range cases {
		var m Immutable
		err := m.ParseMarker(Name, Name, c.rest)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("+immutable=%s: unexpected error %v", c.rest, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("+immutable=%s: error %v, want one containing %q", c.rest, err, c.wantErr)
		case err == nil && (m.keys != c.keys || m.once != c.once):
			t.Errorf("+immutable=%s: keys=%v once=%v", c.rest, m.keys, m.once)
		}
	}
}

func TestParseMessage(t *testing.T) {
	cases := []struct {
		name, rest, want, wantErr string
	}{
		{name: "quoted", rest: `"name is immutable once set"`, want: "name is immutable once set"},
		{name: "backquoted", rest: "`may not change`", want: "may not change"},
		{name: "bare", rest: "may not change", want: "may not change"},
		{name: "escapes", rest: `"say \"no\""`, want: `say "no"`},
		{name: "empty", rest: `""`, wantErr: "empty"},
		{name: "blank", rest: "  ", wantErr: "empty"},
		{name: "unterminated", rest: `"oops`, wantErr: "quoted string"},
		{name: "line break", rest: `"a\nb"`, wantErr: "line breaks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m Message
			err := m.ParseMarker(MessageName, MessageName, c.rest)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil || m.Text() != c.want {
				t.Fatalf("got %q, %v; want %q", m.Text(), err, c.want)
			}
		})
	}
}

func TestNearMiss(t *testing.T) {
	cases := map[string]bool{
		"+immutable":                   false,
		"+immutable=keys":              false,
		"+immutable=bogus":             false, // ours: a parse error, not a near miss
		"+imutable":                    true,
		"+immutible":                   true,
		"+Immutable":                   true,
		"+IMMUTABLE=keys":              true,
		"+immutable:keys":              true,
		"+immutable=once":              false,
		"+immutable=Once":              false, // ours: a parse error that suggests =once
		"+immutable:once":              true,
		"+Immutable=once":              true,
		"+immutable:message=\"x\"":     false,
		"+immutable:Message=\"x\"":     true,
		"+immutable:mesage=\"x\"":      true,
		"+immutable:msg=\"x\"":         false, // too far from a marker of ours to guess
		"+immutables":                  true,
		"+immutable:ignoreOrder":       false,
		"+immutable:ignoreorder":       true,
		"+immutable:ignoreOrdr":        true,
		"+immutable:IgnoreOrder":       true,
		"+k8s:immutable":               false, // controller-tools' own marker
		"+optional":                    false,
		"+listType=map":                false,
		"+kubebuilder:validation:Enum": false,
		"+":                            false,
		"not a marker":                 false,
	}
	for text, want := range cases {
		if got := nearMiss(text) != ""; got != want {
			t.Errorf("%q: near miss %v, want %v (%q)", text, got, want, nearMiss(text))
		}
	}
}

func TestCarrierRoundTrip(t *testing.T) {
	once := schema.Origin{Once: true, Message: "set once"}
	if got, _, err := schema.ParseCarrier(once.Carrier()); err != nil || !got.Once || got.Message != "set once" || got.Marker() != "+immutable=once" {
		t.Fatalf("round trip of =once: %+v %v", got, err)
	}
	o := schema.Origin{Keys: true, Type: "example.com/v1.Spec", Field: "Ports", JSONName: "ports",
		ItemFields: []schema.ItemField{{JSON: "name", Go: "Name", Type: "v1.Port"}}}
	o.Pos.Filename, o.Pos.Line = "types.go", 7
	got, ok, err := schema.ParseCarrier(o.Carrier())
	if !ok || err != nil || got.Pos != o.Pos || got.Field != "Ports" || len(got.ItemFields) != 1 || !got.Keys {
		t.Fatalf("round trip: %+v %v %v", got, ok, err)
	}
	if _, ok, _ := schema.ParseCarrier("self == oldSelf"); ok {
		t.Error("an ordinary rule is not a carrier")
	}
	if o.Where() != "field Spec.Ports" || o.Marker() != "+immutable=keys" {
		t.Errorf("Where/Marker: %q %q", o.Where(), o.Marker())
	}
}

// TestParseUnknownSubmarker: controller-tools hands +immutable:Message="x"
// to +immutable's parser; the error names the marker as written.
func TestParseUnknownSubmarker(t *testing.T) {
	var m Immutable
	err := m.ParseMarker(Name, "immutable:Message", `"x"`)
	if err == nil || !strings.Contains(err.Error(), "unknown marker +immutable:Message") {
		t.Fatalf("error %v", err)
	}
}

// TestParseIgnoreOrder: +immutable:ignoreOrder takes no value.
func TestParseIgnoreOrder(t *testing.T) {
	for rest, ok := range map[string]bool{"": true, "true": true, "false": false, "yes": false, "keys": false} {
		var m IgnoreOrder
		err := m.ParseMarker(IgnoreOrderName, IgnoreOrderName, rest)
		if (err == nil) != ok {
			t.Errorf("%q: error %v, want ok=%v", rest, err, ok)
		}
	}
}

// TestUpdateForm: each combination of validation-gen's +k8s:update
// constraints maps onto the form with its verdicts, or onto none.
func TestUpdateForm(t *testing.T) {
	cases := []struct {
		cs   []string
		want string // the form's marker, "" for none
	}{
		{[]string{"NoSet", "NoUnset", "NoModify"}, "+immutable"},
		{[]string{"NoUnset", "NoModify"}, "+immutable=once"},
		{[]string{"NoModify"}, "+k8s:update=NoModify"},
		{[]string{"NoAddItem", "NoRemoveItem"}, "+immutable=keys"},
		{[]string{"NoSet", "NoUnset", "NoAddItem", "NoRemoveItem"}, "+immutable=keys"},
		{[]string{"NoSet"}, "+k8s:update=NoSet"},
		{[]string{"NoUnset"}, "+k8s:update=NoUnset"},
		{[]string{"NoSet", "NoUnset"}, "+k8s:update=NoSet,NoUnset"},
		{[]string{"NoSet", "NoModify"}, "+k8s:update=NoSet,NoModify"},
		{[]string{"NoModify", "NoAddItem", "NoRemoveItem"}, ""},
		{[]string{"NoSet", "NoUnset", "NoModify", "NoAddItem", "NoRemoveItem"}, ""},
		{[]string{"NoAddItem"}, ""},
		{[]string{"NoRemoveItem"}, ""},
		{[]string{"NoSet", "NoAddItem", "NoRemoveItem"}, ""},
	}
	for _, tc := range cases {
		o, ok := updateForm(tc.cs)
		got := ""
		if ok {
			got = o.Marker()
		}
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.cs, got, tc.want)
		}
	}
	var u Update
	if err := u.ParseMarker(UpdateName, UpdateName, "NoChange"); err == nil || !strings.Contains(err.Error(), "validation-gen accepts NoSet, NoUnset, NoModify, NoAddItem, NoRemoveItem") {
		t.Errorf("unknown constraint: %v", err)
	}
}

// TestWrapped: a tag wrapped in +k8s:alpha or +k8s:beta is noted, not
// dropped in silence.
func TestWrapped(t *testing.T) {
	for text, want := range map[string]bool{
		`+k8s:alpha(since: "1.36")=+k8s:update=NoModify`: true,
		`+k8s:beta(since: "1.37")=+k8s:immutable`:        true,
		`+k8s:alpha(since: "1.36")=+k8s:minimum=1`:       false,
		`+k8s:update=NoModify`:                           false,
	} {
		if got := wrapped(text) != ""; got != want {
			t.Errorf("%q: noted %v, want %v", text, got, want)
		}
	}
}

// FuzzUpdateTags: the tag parsers accept only validation-gen's constraints
// and never panic; every accepted set maps onto a form or is refused.
func FuzzUpdateTags(f *testing.F) {
	for _, s := range []string{"NoSet", "NoModify", "NoAddItem", " NoUnset ", "", "+k8s:alpha(since: \"1.36\")=+k8s:update=NoModify"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var u Update
		if err := u.ParseMarker(UpdateName, UpdateName, s); err == nil {
			if !slices.Contains(updateConstraints, u.constraint) {
				t.Fatalf("accepted %q", s)
			}
			updateForm([]string{u.constraint})
		}
		_ = wrapped(s)
		_ = nearMiss(s)
		var w When
		if err := w.ParseMarker(WhenName, WhenName, s); err == nil && (strings.TrimSpace(w.expr) == "" || strings.ContainsAny(w.expr, "\r\n")) {
			t.Fatalf("accepted the condition %q", w.expr)
		}
	})
}

// TestParseWhen: +immutable:when takes a quoted CEL expression, one line.
func TestParseWhen(t *testing.T) {
	for rest, want := range map[string]string{
		`"!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)"`:           "!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)",
		"`oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved')`": "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved')",
		`""`:     "",
		`"a`:     "",
		`"a\nb"`: "",
	} {
		var w When
		err := w.ParseMarker(WhenName, WhenName, rest)
		if (err == nil) != (want != "") || w.expr != want {
			t.Errorf("%s: %q, %v; want %q", rest, w.expr, err, want)
		}
	}
}
