package openapi

import (
	"strings"
	"testing"
)

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
