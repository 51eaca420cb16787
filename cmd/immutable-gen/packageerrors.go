package main

import (
	"bytes"
	"go/token"
	"os"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
)

// The IDs of the errors controller-tools reports in the packages of a
// generator run: its loader and its marker parser record them in the
// packages (controller-gen prints them bare, some twice); the generators
// print each once, as a finding.
const (
	// idMarkerParse: a marker, not one of immutable-gen's, whose value
	// controller-tools cannot parse (`+kubebuilder:validation:MaxLength=abc`).
	// A marker of immutable-gen's that does not parse is markers.IDInvalid.
	idMarkerParse diag.ID = "IG043"
	// idPackage: any other error in a package: Go syntax, go list, a type
	// controller-tools cannot generate a schema for.
	idPackage diag.ID = "IG044"
)

// packageChecks describes the findings of packageDiagnostics.
func packageChecks() []diag.Check {
	return []diag.Check{
		{ID: idMarkerParse, Severity: diag.Error, Title: "a marker controller-tools cannot parse (a kubebuilder or other marker whose value does not have the marker's type)"},
		{ID: idPackage, Severity: diag.Error, Title: "a Go package the generators cannot use: a syntax error, a go list error, or a type controller-tools cannot generate for"},
	}
}

// Fixes of packageDiagnostics' findings.
const (
	fixOwnMarker   = "write one of the forms `immutable-gen help markers` lists"
	fixOtherMarker = "give the marker a value of its type (`immutable-gen crd -ww` lists the CRD markers and their arguments)"
)

// firstMarker returns the first word of msg that starts with "+" (`+immutable:message`), or "".
func firstMarker(msg string) string {
	for _, w := range strings.Fields(msg) {
		if strings.HasPrefix(w, "+") && len(w) > 1 {
			return w
		}
	}
	return ""
}

// packageDiagnostics turns the errors recorded in the packages of the run
// and all their imports into findings, except type errors (expected from
// partial type-checking, as controller-gen has it). An error at a marker
// comment is a marker that does not parse: markers.IDInvalid for
// immutable-gen's own markers (ours are those markers.Register defines),
// idMarkerParse for the others; an error elsewhere whose message starts
// with one of our markers is that marker refused where it stands
// (markers.IDInvalid); any other is idPackage. controller-tools
// records a marker's error once for each pass over the package's markers;
// diag.List.Sort drops the copies.
func packageDiagnostics(roots []*loader.Package) (diag.List, error) {
	ours := &ctmarkers.Registry{}
	if err := markers.Register(ours); err != nil {
		return nil, err
	}
	raw := make([]*packages.Package, len(roots))
	for i, r := range roots {
		raw[i] = r.Package
	}
	sources := map[string][][]byte{}
	var out diag.List
	packages.Visit(raw, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if e.Kind == packages.TypeError {
				continue
			}
			d := diag.Diagnostic{ID: idPackage, Severity: diag.Error, Pos: parsePosition(e.Pos), Message: e.Msg}
			if d.Pos.Filename == "" {
				d.Subject = "package " + p.PkgPath
			}
			if marker := markerAt(sources, d.Pos); marker != "" {
				d.ID, d.Fix, d.Subject = idMarkerParse, fixOtherMarker, marker
				if isOurs(ours, marker) { // its message names it
					d.ID, d.Fix, d.Subject = markers.IDInvalid, fixOwnMarker, ""
				}
			} else if isOurs(ours, firstMarker(e.Msg)) {
				// One of our markers refused where it stands (at the
				// field or type): its message says the fix.
				d.ID = markers.IDInvalid
			}
			out = append(out, d)
		}
	})
	return out, nil
}

// parsePosition reads a go/packages error position, `file:line:col`,
// `file:line` or “ (none), into a token.Position; a position it cannot
// read is kept whole as the file name.
func parsePosition(pos string) token.Position {
	if pos == "" || pos == "-" {
		return token.Position{}
	}
	parts := strings.Split(pos, ":")
	var nums []int
	for len(parts) > 1 && len(nums) < 2 {
		n, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		parts = parts[:len(parts)-1]
	}
	p := token.Position{Filename: strings.Join(parts, ":")}
	if len(nums) > 0 {
		p.Line = nums[0]
	}
	if len(nums) > 1 {
		p.Column = nums[1]
	}
	if p.Line == 0 {
		return token.Position{Filename: pos}
	}
	return p
}

// markerAt returns the marker (`+name=value`) of the // comment that starts
// at pos, or "" when there is none there. sources caches the files' lines.
func markerAt(sources map[string][][]byte, pos token.Position) string {
	if pos.Line == 0 || pos.Column == 0 {
		return ""
	}
	lines, ok := sources[pos.Filename]
	if !ok {
		if b, err := os.ReadFile(pos.Filename); err == nil {
			lines = bytes.Split(b, []byte("\n"))
		}
		sources[pos.Filename] = lines
	}
	if pos.Line > len(lines) || pos.Column-1 > len(lines[pos.Line-1]) {
		return ""
	}
	text, ok := strings.CutPrefix(string(lines[pos.Line-1][pos.Column-1:]), "//")
	if !ok {
		return ""
	}
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "+") {
		return ""
	}
	return text
}

// isOurs reports whether marker is one of immutable-gen's: ours defines it
// on some target.
func isOurs(ours *ctmarkers.Registry, marker string) bool {
	for _, target := range []ctmarkers.TargetType{ctmarkers.DescribesField, ctmarkers.DescribesType, ctmarkers.DescribesPackage} {
		if ours.Lookup(marker, target) != nil {
			return true
		}
	}
	return false
}
