package openapi

import (
	"go/token"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/markers"
)

func TestKeysProblem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape shape
		want  string // substring of the message; "" when =keys is allowed
	}{
		{"map", shape{kind: mapKind}, ""},
		{"granular map", shape{kind: mapKind, mapType: "granular"}, ""},
		{"atomic map", shape{kind: mapKind, mapType: "atomic"}, "not allowed on an atomic map"},
		{"list map", shape{kind: listKind, listType: "map"}, ""},
		{"set", shape{kind: listKind, listType: "set"}, "not allowed on a +listType=set list"},
		{"atomic list", shape{kind: listKind, listType: "atomic"}, "not allowed on an atomic list"},
		{"list without a type", shape{kind: listKind}, "not allowed on an atomic list"},
		{"struct", shape{kind: structKind}, "not allowed on a struct"},
		{"string", shape{kind: scalarKind, scalar: "string"}, "not allowed on a string value"},
		{"integer", shape{kind: scalarKind, scalar: "integer"}, "not allowed on a integer value"},
		{"interface", shape{kind: scalarKind, scalar: "free-form"}, "not allowed on a free-form value"},
		{"unknown scalar", shape{kind: scalarKind}, "not allowed on a untyped value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := keysProblem(tc.shape)
			switch {
			case tc.want == "" && p != nil:
				t.Errorf("=keys refused: %s", p.msg)
			case tc.want != "" && p == nil:
				t.Errorf("=keys allowed; want %q", tc.want)
			case p != nil && (!strings.Contains(p.msg, tc.want) || p.fix == ""):
				t.Errorf("got %q (fix %q), want a message with %q and a fix", p.msg, p.fix, tc.want)
			}
		})
	}
}

func TestPropertyProblem(t *testing.T) {
	for _, tc := range []struct {
		kindRoot bool
		name     string
		want     string
	}{
		{true, "metadata", "not allowed on the object's metadata"},
		{true, "apiVersion", "not allowed on the object's apiVersion"},
		{true, "kind", "not allowed on the object's kind"},
		{true, "spec", ""},
		{true, "status", ""},
		// Outside the root of a kind these are ordinary properties (a
		// template's metadata, say).
		{false, "metadata", ""},
		{false, "kind", ""},
	} {
		p := propertyProblem(tc.kindRoot, tc.name)
		switch {
		case tc.want == "" && p != nil:
			t.Errorf("kindRoot=%v %s: refused: %s", tc.kindRoot, tc.name, p.msg)
		case tc.want != "" && (p == nil || !strings.Contains(p.msg, tc.want)):
			t.Errorf("kindRoot=%v %s: got %v, want %q", tc.kindRoot, tc.name, p, tc.want)
		}
	}
}

func TestExclusiveProblem(t *testing.T) {
	pos := func(line int) token.Position { return token.Position{Filename: "types.go", Line: line, Column: 2} }
	fieldImm := markers.Origin{Type: "example.com/v1.Spec", Field: "Labels", Pos: pos(10)}
	fieldKeys := markers.Origin{Keys: true, Type: "example.com/v1.Spec", Field: "Labels", Pos: pos(11)}
	typeKeys := markers.Origin{Keys: true, Type: "example.com/v1.Labels", Pos: pos(3)}
	typeImm := markers.Origin{Type: "example.com/v1.Labels", Pos: pos(3)}
	for _, tc := range []struct {
		name    string
		origins []markers.Origin
		want    []string // one substring per origin; nil when allowed
	}{
		{"one marker", []markers.Origin{fieldImm}, nil},
		{"same form twice", []markers.Origin{fieldImm, typeImm}, nil},
		{"keys twice", []markers.Origin{fieldKeys, typeKeys}, nil},
		{"field and field", []markers.Origin{fieldImm, fieldKeys}, []string{
			"+immutable=keys comes from field Spec.Labels at types.go:11:2",
			"+immutable comes from field Spec.Labels at types.go:10:2",
		}},
		{"field and type", []markers.Origin{fieldImm, typeKeys}, []string{
			"+immutable=keys comes from type Labels at types.go:3:2",
			"+immutable comes from field Spec.Labels at types.go:10:2",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := exclusiveProblem(tc.origins)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d: %v", len(got), len(tc.want), got)
			}
			for i, p := range got {
				if !strings.Contains(p.msg, tc.want[i]) {
					t.Errorf("problem %d: %q, want %q", i, p.msg, tc.want[i])
				}
			}
		})
	}
}

func TestListMapKeyProblems(t *testing.T) {
	name := keyField{json: "name", goName: "Port.Name", pos: "types.go:7:2"}
	immutableName := name
	immutableName.immutable = true
	proto := keyField{json: "protocol", goName: "Port.Protocol", pos: "types.go:8:2"}
	missing := keyField{json: "nope"}
	for _, tc := range []struct {
		name          string
		itemImmutable bool
		keys          []keyField
		want          []string
	}{
		{"key immutable", false, []keyField{immutableName}, nil},
		{"item immutable", true, []keyField{name, proto}, nil},
		{"key mutable", false, []keyField{name}, []string{`key "name"`}},
		{"one of two", false, []keyField{immutableName, proto}, []string{`key "protocol"`}},
		{"both", false, []keyField{name, proto}, []string{`key "name"`, `key "protocol"`}},
		{"no such field", false, []keyField{missing}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := listMapKeyProblems(tc.itemImmutable, tc.keys)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i, p := range got {
				if !strings.Contains(p.msg, tc.want[i]) || !strings.Contains(p.fix, "add // +immutable to the key field Port.") {
					t.Errorf("problem %d: %q (fix %q), want %q", i, p.msg, p.fix, tc.want[i])
				}
			}
		})
	}
}

// TestTags checks comment tags are read as openapi-gen reads them.
func TestTags(t *testing.T) {
	lines := []string{
		"Ports are the ports.",
		"+listType=map",
		"  +listMapKey=name ",
		"+listMapKey=protocol",
		"+listTypeX=set",
		"+k8s:openapi-gen=true",
		"+optional",
		"not +mapType=atomic",
	}
	if got := tagValue(lines, "listType"); got != "map" {
		t.Errorf("listType = %q", got)
	}
	if got := tagValues(lines, "listMapKey"); strings.Join(got, ",") != "name,protocol" {
		t.Errorf("listMapKey = %q", got)
	}
	if got := tagValue(lines, "mapType"); got != "" {
		t.Errorf("mapType = %q, want none (a tag starts its line)", got)
	}
	if !hasTagValue(lines, "k8s:openapi-gen", "true") || hasTagValue(lines, "k8s:openapi-gen", "false") {
		t.Error("k8s:openapi-gen misread")
	}
	if got := tagValues(lines, "optional"); len(got) != 1 || got[0] != "" {
		t.Errorf("optional = %q", got)
	}
}

func TestEscapePointer(t *testing.T) {
	for in, want := range map[string]string{"name": "name", "a/b": "a~1b", "x~y": "x~0y", "~/": "~0~1"} {
		if got := escapePointer(in); got != want {
			t.Errorf("escapePointer(%q) = %q, want %q", in, got, want)
		}
	}
}
