package main

import (
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
)

// idPackage: an error controller-tools records in a package of a generator
// run that is not about a marker (markers.Refusals has those): Go syntax,
// go list, a type controller-tools cannot generate a schema for.
// controller-gen prints them bare; the generators print each once, as a
// finding.
const idPackage diag.ID = "IG044"

// packageChecks describes the findings of packageDiagnostics of its own.
func packageChecks() []diag.Check {
	return []diag.Check{
		{ID: idPackage, Severity: diag.Error, Title: "a Go package the generators cannot use: a syntax error, a go list error, or a type controller-tools cannot generate for"},
	}
}

// packageDiagnostics turns the errors recorded in the packages of the run
// and all their imports into findings, except type errors (expected from
// partial type-checking, as controller-gen has it): those about a marker
// as markers.Refusals words them, the others as idPackage.
// controller-tools records a marker's error once for each pass over the
// package's markers; diag.List.Sort drops the copies.
func packageDiagnostics(roots []*loader.Package) (diag.List, error) {
	refusals, err := markers.NewRefusals()
	if err != nil {
		return nil, err
	}
	raw := make([]*packages.Package, len(roots))
	for i, r := range roots {
		raw[i] = r.Package
	}
	var out diag.List
	packages.Visit(raw, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if e.Kind == packages.TypeError {
				continue
			}
			pos := parsePosition(e.Pos)
			d, ok := refusals.Diagnostic(pos, e.Msg)
			if !ok {
				d.ID = idPackage
				if !pos.IsValid() {
					d.Subject = "package " + p.PkgPath
				}
			}
			out = append(out, d)
		}
	})
	return out, nil
}

// parsePosition reads a go/packages error position, `file:line:col`,
// `file:line`, “ or `PKG:-` (none), into a token.Position, invalid when
// there is no line.
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
		return token.Position{} // the finding's subject names the package
	}
	return p
}
