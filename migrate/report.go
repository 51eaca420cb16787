package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/immutable-gen/immutable-gen/migrate/proof"
)

// Report renders the result for a person: each rule and what became of
// it, the differential, and the verdict. File names are relative to dir
// when below it.
func (r *Result) Report(dir string) string {
	var b strings.Builder
	rel := Options{Dir: dir}.rel
	found, migrated, left := r.Counts()
	fmt.Fprintf(&b, "%d immutability rules found: %d migrated, %d left as written\n", found, migrated, left)
	if migrated > 0 {
		b.WriteString("\nmigrated:\n")
		for _, x := range r.Rules {
			if x.Migrated() {
				fmt.Fprintf(&b, "  %s:%d: %s: %s\n    → %s\n", rel(x.Pos.Filename), x.Pos.Line, x.On, x.Marker, x.To)
			}
		}
	}
	if left > 0 {
		b.WriteString("\nleft as written:\n")
		for _, x := range r.Rules {
			if !x.Migrated() {
				fmt.Fprintf(&b, "  %s:%d: %s: %s\n    %s\n", rel(x.Pos.Filename), x.Pos.Line, x.On, x.Marker, x.Reason)
			}
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nthe crd generator on the migrated sources:\n")
		for _, d := range r.Notes {
			d.Pos.Filename = rel(d.Pos.Filename)
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if len(r.Proof.CRDs) > 0 {
		b.WriteString("\ndifferential (random updates of the migrated fields, the API server's validator with ratcheting, before and after):\n")
		for _, c := range r.Proof.CRDs {
			fmt.Fprintf(&b, "  %s %s: %d updates of %s\n", c.CRD, c.Version, c.Updates, strings.Join(c.Fields, ", "))
			fmt.Fprintf(&b, "    refused before: %d, after: %d\n", c.RefusedBefore, c.RefusedAfter)
			if c.Conditional > 0 {
				fmt.Fprintf(&b, "    conditional fields: %d updates, the condition held on %d\n", c.Conditional, c.Held)
			}
			for _, d := range c.Differences {
				fmt.Fprintf(&b, "    %s at %s: %d update(s), e.g.\n", d.Class, d.Field, d.Count)
				fmt.Fprintf(&b, "      old: %s\n      new: %s\n", js(d.Old), js(d.New))
				side := "after"
				if d.Class == proof.NewAcceptance {
					side = "before"
				}
				for _, e := range d.Errors {
					fmt.Fprintf(&b, "      refused %s: %s\n", side, e)
				}
			}
		}
	}
	b.WriteString("\n")
	switch holes, refusals, weaker := r.Proof.Count(proof.ClosesHole), r.Proof.Count(proof.NewRefusal), r.Proof.Count(proof.NewAcceptance); {
	case migrated == 0:
		b.WriteString("nothing to migrate\n")
	case weaker > 0:
		fmt.Fprintf(&b, "NOT PROVEN: %d update(s) the original refused are allowed after the migration\n", weaker)
	case refusals > 0:
		fmt.Fprintf(&b, "NOT PROVEN: %d update(s) the original allowed are refused after the migration and change no field its rules call immutable (--accept-refusals writes anyway)\n", refusals)
	case holes > 0:
		fmt.Fprintf(&b, "proven: every difference closes a hole (%d update(s))\n", holes)
	default:
		b.WriteString("proven: no verdict differs\n")
	}
	return b.String()
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
