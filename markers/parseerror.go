package markers

import (
	"bytes"
	"go/token"
	"os"
	"strings"

	"sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/diag"
)

// IDUnparsed: a marker, not one of immutable-gen's, whose value
// controller-tools cannot parse (`+kubebuilder:validation:MaxLength=abc`).
// One of ours that does not parse is IDInvalid.
const IDUnparsed diag.ID = "IG043"

// Fixes of the findings of Refusals.
const (
	fixOwnMarker   = "write one of the forms `immutable-gen help markers` lists"
	fixOtherMarker = "give the marker a value of its type (`immutable-gen crd -ww` lists the CRD markers and their arguments)"
)

// Refusals turns the errors controller-tools records about markers into
// findings. It reads each Go file it needs once.
type Refusals struct {
	// ours holds the definitions of immutable-gen's markers.
	ours  *markers.Registry
	lines map[string][][]byte
}

// NewRefusals returns an empty Refusals.
func NewRefusals() (*Refusals, error) {
	ours := &markers.Registry{}
	if err := Register(ours); err != nil {
		return nil, err
	}
	return &Refusals{ours: ours, lines: map[string][][]byte{}}, nil
}

// Diagnostic is the finding for an error controller-tools records at pos
// with message msg, or ok false when it is not about a marker: a marker at
// pos that does not parse — IDInvalid with the forms as fix for one of
// ours (those Register defines), IDUnparsed with the marker as subject for
// another — or, elsewhere, one of our markers refused where it stands (its
// message starts with it and says the fix). Every generator reports these
// errors through it, so that one mistake reads alike, and prints once,
// whichever generators ran.
func (r *Refusals) Diagnostic(pos token.Position, msg string) (d diag.Diagnostic, ok bool) {
	d = diag.Diagnostic{Pos: pos, Severity: diag.Error, Message: msg}
	if marker := r.markerAt(pos); marker != "" {
		if r.isOurs(marker) {
			d.ID, d.Fix = IDInvalid, fixOwnMarker
		} else {
			d.ID, d.Fix, d.Subject = IDUnparsed, fixOtherMarker, marker
		}
		return d, true
	}
	if r.isOurs(firstMarker(msg)) {
		d.ID = IDInvalid
		return d, true
	}
	return d, false
}

// isOurs reports whether marker (`+name=value`) is one of immutable-gen's.
func (r *Refusals) isOurs(marker string) bool {
	if marker == "" {
		return false
	}
	for _, target := range []markers.TargetType{markers.DescribesField, markers.DescribesType, markers.DescribesPackage} {
		if r.ours.Lookup(marker, target) != nil {
			return true
		}
	}
	return false
}

// firstMarker returns the first word of msg that starts with "+"
// (`+immutable:message`), or "".
func firstMarker(msg string) string {
	for _, w := range strings.Fields(msg) {
		if strings.HasPrefix(w, "+") && len(w) > 1 {
			return w
		}
	}
	return ""
}

// markerAt returns the marker (`+name=value`) of the // comment that starts
// at pos, or "" when there is none there.
func (r *Refusals) markerAt(pos token.Position) string {
	if pos.Line == 0 || pos.Column == 0 {
		return ""
	}
	lines, ok := r.lines[pos.Filename]
	if !ok {
		if b, err := os.ReadFile(pos.Filename); err == nil {
			lines = bytes.Split(b, []byte("\n"))
		}
		r.lines[pos.Filename] = lines
	}
	if pos.Line > len(lines) || pos.Column-1 > len(lines[pos.Line-1]) {
		return ""
	}
	text, ok := strings.CutPrefix(string(lines[pos.Line-1][pos.Column-1:]), "//")
	if !ok {
		return ""
	}
	if text = strings.TrimSpace(text); !strings.HasPrefix(text, "+") {
		return ""
	}
	return text
}
