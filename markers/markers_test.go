package markers

import "testing"

func TestParseMarker(t *testing.T) {
	cases := []struct {
		rest    string
		keys    bool
		wantErr bool
	}{
		{"", false, false},
		{"keys", true, false},
		{"true", false, true},
		{"false", false, true},
		{"bogus", false, true},
		{"Keys", false, true},
		{"keys,x", false, true},
	}
	for _, c := range cases {
		var m Immutable
		err := m.ParseMarker(Name, Name, c.rest)
		if (err != nil) != c.wantErr || (err == nil && m.keys != c.keys) {
			t.Errorf("+immutable=%s: keys=%v err=%v", c.rest, m.keys, err)
		}
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
		"+immutables":                  true,
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
	o := Origin{Keys: true, Type: "example.com/v1.Spec", Field: "Ports", JSONName: "ports",
		ItemFields: []ItemField{{JSON: "name", Go: "Name", Type: "v1.Port"}}}
	o.Pos.Filename, o.Pos.Line = "types.go", 7
	got, ok, err := ParseCarrier(o.carrier().Rule)
	if !ok || err != nil || got.Pos != o.Pos || got.Field != "Ports" || len(got.ItemFields) != 1 || !got.Keys {
		t.Fatalf("round trip: %+v %v %v", got, ok, err)
	}
	if _, ok, _ := ParseCarrier("self == oldSelf"); ok {
		t.Error("an ordinary rule is not a carrier")
	}
	if o.Where() != "field Spec.Ports" || o.Marker() != "+immutable=keys" {
		t.Errorf("Where/Marker: %q %q", o.Where(), o.Marker())
	}
}
