package immutable

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestErrors(t *testing.T) {
	p := field.NewPath("spec", "ports")
	cases := []struct {
		name string
		err  *field.Error
		typ  field.ErrorType
		path string
		text string
	}{
		{"changed", Changed(p, 1), field.ErrorTypeInvalid, "spec.ports", "field is immutable"},
		{"changed at the root", Changed(nil, 1), field.ErrorTypeInvalid, "", "field is immutable"},
		{"added", Presence(p, "ports", Whole, true), field.ErrorTypeForbidden, "spec.ports", `field "ports" is immutable and may not be added`},
		{"keys removed", Presence(p, "ports", Keys, false), field.ErrorTypeForbidden, "spec.ports", `field "ports" has immutable keys and may not be removed`},
		{"once removed", Presence(p, "ports", Once, false), field.ErrorTypeForbidden, "spec.ports", `field "ports" is immutable once set and may not be removed`},
		{"map key", KeyChanged(p, QuoteKey("team"), true), field.ErrorTypeForbidden, "spec.ports", `key "team" may not be added: keys are immutable`},
		{"list-map key", KeyChanged(p, FormatKey([]string{"name", "port"}, FormatScalar("http"), FormatScalar(int64(80))), false), field.ErrorTypeForbidden, "spec.ports", `key {"name":"http","port":80} may not be removed: keys are immutable`},
	}
	// field.Error has an origin from apimachinery v0.34 on; this package
	// builds with v0.31 too.
	wantOrigin := ""
	if _, ok := reflect.TypeOf(field.Error{}).FieldByName("Origin"); ok {
		wantOrigin = Origin
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err.Type != tc.typ || tc.err.Field != tc.path || tc.err.Detail != tc.text || OriginOf(tc.err) != wantOrigin {
				t.Errorf("got %s %q %q %q", tc.err.Type, tc.err.Field, tc.err.Detail, OriginOf(tc.err))
			}
		})
	}
}

// TestReported: a changed value is quoted up to MaxQuotedValue bytes of
// JSON, as json.Marshal writes it, and reported by its JSON type beyond
// (docs/semantics.md, "Update semantics (runtime)" 6), whatever Go type
// holds it: decoded JSON, a typed field, a pointer, a value with its own
// MarshalJSON. The bound is exact: a value of MaxQuotedValue bytes is
// quoted, one of a byte more is not, escapes and HTML characters counted
// as json.Marshal writes them.
func TestReported(t *testing.T) {
	// str is a Go string whose JSON is exactly n bytes.
	str := func(n int) string { return strings.Repeat("s", n-2) }
	// list is a []interface{} of strings whose JSON is exactly n bytes.
	list := func(n int) []interface{} {
		// ["x...x"] is 4 bytes more than the string.
		return []interface{}{strings.Repeat("x", n-4)}
	}
	type port struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	}
	long := strings.Repeat("p", MaxQuotedValue)
	when := metav1.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	q := resource.MustParse("1Gi")
	cases := []struct {
		name  string
		value any
		want  any // the value itself where nil
	}{
		{"scalar int", int64(3), nil},
		{"scalar float", 1.5, nil},
		{"scalar bool", true, nil},
		{"null", nil, nil},
		{"short string", "memcached", nil},
		{"string at the bound", str(MaxQuotedValue), nil},
		{"string over the bound", str(MaxQuotedValue + 1), "string"},
		{"escapes counted", strings.Repeat("\n", (MaxQuotedValue-2)/2+1), "string"},
		{"HTML escapes counted", strings.Repeat("<", (MaxQuotedValue-2)/6+1), "string"},
		{"escapes under the bound", strings.Repeat("\n", (MaxQuotedValue-2)/2), nil},
		{"short object", map[string]interface{}{"a": "b"}, nil},
		{"list at the bound", list(MaxQuotedValue), nil},
		{"list over the bound", list(MaxQuotedValue + 1), "array"},
		{"object over the bound", map[string]interface{}{"template": map[string]interface{}{"image": long}}, "object"},
		{"many numbers", func() []interface{} {
			// 60 numbers of four digits: a lower bound of 121 bytes, a
			// text of 300.
			l := make([]interface{}, 60)
			for i := range l {
				l[i] = int64(1000 + i)
			}
			return l
		}(), "array"},
		{"typed struct", port{Name: "http", Port: 80}, nil},
		{"typed struct over the bound", port{Name: long}, "object"},
		{"typed slice over the bound", []port{{Name: long}}, "array"},
		{"typed map over the bound", map[string]string{"k": long}, "object"},
		{"pointer to a struct over the bound", &port{Name: long}, "object"},
		{"nil pointer", (*port)(nil), nil},
		{"pointer to a long string", &long, "string"},
		{"bytes, a base64 string", []byte(long), "string"},
		{"short bytes", []byte("abc"), nil},
		{"own MarshalJSON: time", when, nil},
		{"own MarshalJSON: quantity", q, nil},
		{"own MarshalJSON: int or string", intstr.FromString(long), "string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = tc.value
			}
			got := Reported(tc.value)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Reported = %#v, want %#v", got, want)
			}
			if e := Changed(field.NewPath("spec"), tc.value); !reflect.DeepEqual(e.BadValue, want) {
				t.Errorf("Changed's BadValue = %#v, want %#v", e.BadValue, want)
			}
		})
	}
}

// TestReportedBound: over's lower bound never exceeds the length of the
// text, so a value it finds over the bound is over it.
func TestReportedBound(t *testing.T) {
	values := []interface{}{
		map[string]interface{}{}, []interface{}{}, "", "\u00e9<>&", nil, true, int64(-12345), 1e-7,
		map[string]interface{}{"a": []interface{}{nil, false, 1.5, map[string]interface{}{"\"": "\x00"}}},
		[]interface{}{[]interface{}{[]interface{}{}}, "\xff"},
	}
	for _, v := range values {
		text, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for limit := 0; limit <= len(text)+1; limit++ {
			if over(v, limit) && len(text) <= limit {
				t.Errorf("over(%s, %d) but its text is %d bytes", text, limit, len(text))
			}
		}
	}
}

func TestFormatScalar(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{"a\"b", `"a\"b"`},
		{true, "true"},
		{int64(-3), "-3"},
		{uint64(1 << 63), "9223372036854775808"},
		{float64(2), "2"},
		{math.Copysign(0, -1), "0"},
		{1.5, "1.5"},
		{1e21, "1e+21"},
		{float32(0.1), "0.1"},
	}
	for _, tc := range cases {
		if got := FormatScalar(tc.v); got != tc.want {
			t.Errorf("FormatScalar(%#v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestSameMultiset(t *testing.T) {
	cases := []struct {
		name string
		a, b []string
		want bool
	}{
		{"equal in order", []string{"a", "b"}, []string{"a", "b"}, true},
		{"reordered", []string{"a", "b", "a"}, []string{"b", "a", "a"}, true},
		{"multiplicity", []string{"a", "b", "b"}, []string{"a", "a", "b"}, false},
		{"length", []string{"a"}, []string{"a", "a"}, false},
		{"last differs", []string{"a", "b"}, []string{"a", "c"}, false},
		{"empty", []string{}, nil, true},
	}
	for _, tc := range cases {
		if got := SameMultiset(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
	a := []string{"a", "b", "c"}
	b := []string{"a", "b", "c"}
	if n := testing.AllocsPerRun(10, func() { SameMultiset(a, b) }); n != 0 {
		t.Errorf("%v allocations for sets equal in order", n)
	}
}

type item struct {
	key string
	has bool
}

func keyOf(e *item) (string, bool) { return e.key, e.has }

func items(keys ...string) []item {
	out := make([]item, len(keys))
	for i, k := range keys {
		out[i] = item{k, k != ""}
	}
	return out
}

func TestListMaps(t *testing.T) {
	got := PairByKey(items("b", "a", "", "a", "c"), items("a", "x", "a", "b"), keyOf)
	want := []Pair{{0, 3}, {1, 0}, {3, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PairByKey = %v, want %v (duplicates in order, unkeyed and unmatched items left out)", got, want)
	}
	changes := ListKeyChanges(items("c", "a", "c", "d"), items("a", "b", "b", "x"), keyOf)
	wantChanges := []KeyChange[string]{{"b", false}, {"x", false}, {"c", true}, {"d", true}}
	if !reflect.DeepEqual(changes, wantChanges) {
		t.Errorf("ListKeyChanges = %v, want %v", changes, wantChanges)
	}
	if c := ListKeyChanges(items("a", "a"), items("a"), keyOf); len(c) != 0 {
		t.Errorf("key tuples compare as a set: %v", c)
	}
}

func TestMaps(t *testing.T) {
	a := map[string]int{"a": 1, "b": 2}
	if !SameKeys(a, map[string]int{"b": 0, "a": 0}) || SameKeys(a, map[string]int{"a": 1}) || SameKeys(a, map[string]int{"a": 1, "c": 2}) {
		t.Error("SameKeys")
	}
	got := MapKeyChanges(map[string]int{"c": 1, "a": 1}, map[string]int{"b": 1, "a": 1})
	want := []KeyChange[string]{{"b", false}, {"c", true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MapKeyChanges = %v, want %v", got, want)
	}
	if k := SortedKeys(map[string]int{"b": 1, "a": 2}); !reflect.DeepEqual(k, []string{"a", "b"}) {
		t.Errorf("SortedKeys = %v", k)
	}
}

func TestSameValues(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	zero := &metav1.Time{}
	t1 := metav1.NewTime(time.Unix(10, 0))
	t1n := metav1.NewTime(time.Unix(10, 999))
	cases := []struct {
		name string
		got  bool
		want bool
	}{
		{"time: same second", SameTime(&t1, &t1n), true},
		{"time: nil and zero are null", SameTime(nil, zero), true},
		{"time: null and a time", SameTime(zero, &t1), false},
		{"microtime: same microsecond", SameMicroTime(&metav1.MicroTime{Time: time.Unix(1, 1000)}, &metav1.MicroTime{Time: time.Unix(1, 1999)}), true},
		{"microtime: other microsecond", SameMicroTime(&metav1.MicroTime{Time: time.Unix(1, 1000)}, &metav1.MicroTime{Time: time.Unix(1, 2000)}), false},
		{"duration", SameDuration(&metav1.Duration{Duration: time.Second}, &metav1.Duration{Duration: 1000 * time.Millisecond}), true},
		{"int or string: int and string", SameIntOrString(ptr(intstr.FromInt32(80)), ptr(intstr.FromString("80"))), false},
		{"int or string: ints", SameIntOrString(ptr(intstr.FromInt32(80)), ptr(intstr.FromInt32(80))), true},
		{"int or string: ignores the other type's value", SameIntOrString(&intstr.IntOrString{Type: intstr.String, StrVal: "a", IntVal: 1}, ptr(intstr.FromString("a"))), true},
		{"quantity: same spelling", SameQuantity(q("1Ki"), q("1Ki")), true},
		{"quantity: equal amount, other spelling", SameQuantity(q("1Ki"), q("1024")), false},
		{"quantity: non-canonical spellings serialize canonically", SameQuantity(q("1000m"), q("1")), true},
		{"quantity: built and parsed", SameQuantity(resource.NewQuantity(1, resource.DecimalSI), q("1")), true},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: got %v", tc.name, tc.got)
		}
	}
	a, b := q("1Ki"), q("1Ki")
	if n := testing.AllocsPerRun(10, func() { SameQuantity(a, b) }); n != 0 {
		t.Errorf("%v allocations comparing parsed quantities", n)
	}
	orig := *a
	SameQuantity(a, b)
	if !reflect.DeepEqual(*a, orig) {
		t.Error("SameQuantity changed its argument")
	}
}

func TestSameJSON(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "b" : [1, 2], "a" : 1.0 }`, true},
		{`[1,2]`, `[2,1]`, false},
		{`1e0`, `1`, true},
		{`9007199254740993`, `9007199254740992.0`, false},
		{`null`, ``, false},
		{`"a"`, `"a"`, true},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`{`, `{}`, false},
	}
	for _, tc := range cases {
		if got := SameJSON([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("SameJSON(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
	// metav1.FieldsV1 marshals its raw bytes (an empty one as null).
	fields := func(raw string) *metav1.FieldsV1 { return &metav1.FieldsV1{Raw: []byte(raw)} }
	var none *metav1.FieldsV1
	if !SameMarshaled(none, &metav1.FieldsV1{}) || SameMarshaled(none, fields(`{"f:a":{}}`)) {
		t.Error("a nil pointer is null")
	}
	a := fields(`{"f:a":{}}`)
	b := fields(`{"f:a":{}}`)
	if n := testing.AllocsPerRun(10, func() { SameMarshaled(a, b) }); n != 0 {
		t.Errorf("%v allocations comparing equal FieldsV1", n)
	}
}

func TestWalk(t *testing.T) {
	var probe Walk
	if probe.Child("spec", "x") != "" || probe.Index("", 1) != "" || probe.Key("", "k") != "" || probe.ChildIndex("", "a", 1) != "" || probe.ChildKey("", "a", "k") != "" {
		t.Error("the first walk builds paths")
	}
	if probe.Violation() || !probe.Found() || !probe.Done() {
		t.Error("a violation on the first walk")
	}
	w := Walk{Report: true}
	if p := w.Key(w.Index(w.Child("", "spec"), 2), "k"); p != "spec[2][k]" {
		t.Errorf("path %s", p)
	}
	if !w.Violation() || w.Done() {
		t.Error("a violation on the second walk")
	}
	w.Add(Changed(nil, 1))
	if len(w.Errors()) != 1 {
		t.Error("Add")
	}
}

// TestPaths checks that the paths the walk renders are those field.Path
// renders, step by step, for every kind of step after every other, with
// names and keys that are empty or hold the path's own punctuation.
func TestPaths(t *testing.T) {
	type step struct {
		kind string // child, index, key, childIndex, childKey
		name string
		key  string
		i    int
	}
	var steps []step
	for _, name := range []string{"spec", "", "a.b", "[x]"} {
		steps = append(steps, step{kind: "child", name: name})
		steps = append(steps, step{kind: "childIndex", name: name, i: 3})
		steps = append(steps, step{kind: "childKey", name: name, key: "k"})
	}
	for _, key := range []string{"team", "", "a.b", "x]y", `"q"`} {
		steps = append(steps, step{kind: "key", key: key})
	}
	steps = append(steps, step{kind: "index", i: 0}, step{kind: "index", i: 12345})
	w := Walk{Report: true}
	apply := func(s step, p string, fp *field.Path) (string, *field.Path) {
		switch s.kind {
		case "child":
			return w.Child(p, s.name), fp.Child(s.name)
		case "index":
			return w.Index(p, s.i), fp.Index(s.i)
		case "key":
			return w.Key(p, s.key), fp.Key(s.key)
		case "childIndex":
			return w.ChildIndex(p, s.name, s.i), fp.Child(s.name).Index(s.i)
		default:
			return w.ChildKey(p, s.name, s.key), fp.Child(s.name).Key(s.key)
		}
	}
	for _, a := range steps {
		for _, b := range steps {
			for _, c := range steps {
				p, fp := apply(a, "", nil)
				p, fp = apply(b, p, fp)
				p, fp = apply(c, p, fp)
				if p != fp.String() {
					t.Fatalf("%+v %+v %+v: %q, field.Path renders %q", a, b, c, p, fp.String())
				}
			}
		}
	}
}

// TestErrorsAt checks that the violations built at rendered paths equal
// those built with field.Path and field.Invalid/Forbidden.
func TestErrorsAt(t *testing.T) {
	p := field.NewPath("spec").Index(1).Key("a.b").Child("port")
	cases := []struct {
		got, want *field.Error
	}{
		{ChangedAt(p.String(), int64(1)), WithOrigin(field.Invalid(p, int64(1), "field is immutable"))},
		{ChangedAt("", "x"), Changed(nil, "x")},
		{PresenceAt(p.String(), `we"ird`, Whole, true), WithOrigin(field.Forbidden(p, `field "we\"ird" is immutable and may not be added`))},
		{PresenceAt(p.String(), "ports", Keys, false), WithOrigin(field.Forbidden(p, `field "ports" has immutable keys and may not be removed`))},
		{PresenceAt(p.String(), "ports", Once, false), WithOrigin(field.Forbidden(p, `field "ports" is immutable once set and may not be removed`))},
		{KeyChangedAt(p.String(), QuoteKey("team"), true), WithOrigin(field.Forbidden(p, `key "team" may not be added: keys are immutable`))},
	}
	for _, tc := range cases {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("got %#v, want %#v", tc.got, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestWhenSupport: the run-time support of the typed validators'
// conditions: the error of a condition as the API server reports a rule's
// error, and CEL's order of numbers of different types and of bools.
func TestWhenSupport(t *testing.T) {
	if got, want := WhenError(NoSuchKey("status"), "field is immutable").Error(), `<nil>: Invalid value: "object": no such key: status evaluating rule: field is immutable`; got != want {
		t.Errorf("WhenError: %s, want %s", got, want)
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"int below uint", CompareIntUint(-1, 0), -1},
		{"int equal to uint", CompareIntUint(3, 3), 0},
		{"int below a huge uint", CompareIntUint(1<<62, 1<<63), -1},
		{"int above uint", CompareIntUint(4, 3), 1},
		{"int equal to double", CompareIntDouble(1, 1.0), 0},
		{"int below double", CompareIntDouble(1, 1.5), -1},
		{"int above a negative double", CompareIntDouble(-1, -2.5), 1},
		{"int below a double beyond int64", CompareIntDouble(1<<62, 1e19), -1},
		{"uint above a negative double", CompareUintDouble(0, -0.5), 1},
		{"uint equal to double", CompareUintDouble(2, 2.0), 0},
		{"uint below a double beyond uint64", CompareUintDouble(1<<63, 1e20), -1},
		{"false before true", CompareBools(false, true), -1},
		{"true after false", CompareBools(true, false), 1},
		{"equal bools", CompareBools(true, true), 0},
		{"code points", int(RuneCount("é😀")), 2},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	if IndexOutOfBounds(3).Error() != "index out of bounds: 3" || ErrNull.Error() != "invalid data, got null for schema with nullable=false" {
		t.Error("the errors' texts are not the API server's")
	}
}

// FuzzJSONLength: the length Reported counts for decoded JSON is the
// length of json.Marshal's text, escapes, invalid UTF-8, HTML characters
// and numbers included.
func FuzzJSONLength(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5,-0.0,1e300,"x<y>&z\u2028\u0007\b\f","\ud800",true,false,null,{}],"":[]}`))
	f.Add([]byte("\"\xff\xfe caf\xc3\xa9 \\\"quoted\\\" \\\\ \t\n\r\""))
	f.Add([]byte(`[123456789012345678901234567890, 0.000001, 1e21, 1e-7, -5]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		values := []any{string(data), []interface{}{string(data)}, map[string]interface{}{string(data): int64(len(data))}}
		var v any
		if utiljson.Unmarshal(data, &v) == nil {
			values = append(values, v)
		}
		for _, v := range values {
			text, err := json.Marshal(v)
			if err != nil {
				continue
			}
			n, ok := jsonLength(v, 1<<30)
			if !ok || n != len(text) {
				t.Fatalf("jsonLength(%s) = %d, %v; json.Marshal writes %d bytes", text, n, ok, len(text))
			}
		}
	})
}

// TestPathString: PathString renders paths as Path.String does.
func TestPathString(t *testing.T) {
	if !pathMirrored {
		t.Fatal("field.Path's layout is not pathMirror's: PathString falls back to Path.String")
	}
	root := field.NewPath("spec")
	for name, p := range map[string]*field.Path{
		"root":          root,
		"child":         root.Child("ports"),
		"index":         root.Child("ports").Index(12),
		"key":           root.Child("labels").Key("a.b/c"),
		"empty key":     root.Child("labels").Key(""),
		"index of root": field.NewPath("").Index(0),
		"empty names":   field.NewPath("").Child("").Child("x"),
		"deep":          root.Child("a").Index(1).Key("k").Child("b").Index(2).Index(3),
		"several":       field.NewPath("spec", "template", "spec"),
		"nil":           nil,
	} {
		if got, want := PathString(p), p.String(); got != want {
			t.Errorf("%s: PathString = %q, Path.String = %q", name, got, want)
		}
	}
}
