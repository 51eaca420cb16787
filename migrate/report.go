package migrate

import (
	"encoding/json"
	"fmt"
	"slices"
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
				fmt.Fprintf(&b, "  %s:%d: %s: %s\n    → %s\n      %s\n", rel(x.Pos.Filename), x.Pos.Line, x.On, x.Marker, x.To, x.verdict())
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
		b.WriteString("\ndifferential (the updates each migrated field's rules and schema name, then random ones; the API server's validator with ratcheting, before and after):\n")
		for _, c := range r.Proof.CRDs {
			fmt.Fprintf(&b, "  %s %s: %d updates (%d targeted, %d random) of %s\n", c.CRD, c.Version, c.Updates, c.Targeted, c.Updates-c.Targeted, strings.Join(c.Fields, ", "))
			fmt.Fprintf(&b, "    refused before: %d, after: %d\n", c.RefusedBefore, c.RefusedAfter)
			if c.Conditional > 0 {
				fmt.Fprintf(&b, "    conditional fields: %d updates, the condition held on %d\n", c.Conditional, c.Held)
			}
			for _, r := range c.Reworded {
				// Refused before and after, with errors of other paths or
				// types: clients that match on them need to know.
				fmt.Fprintf(&b, "    errors change at %s (refused before and after, %d targeted update(s); e.g. %s): %s → %s\n", r.Field, r.Count, r.Update, strings.Join(r.Before, ", "), strings.Join(r.After, ", "))
			}
			for _, d := range c.Differences {
				example := "a random one"
				if d.Update != "" {
					example = d.Update
				}
				fmt.Fprintf(&b, "    %s at %s: %d update(s), %d targeted; e.g. %s:\n", d.Class, d.Field, d.Count, d.Targeted, example)
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
	missing := append(slices.Clip(r.Missing), r.Proof.Missing()...)
	if len(missing) > 0 {
		b.WriteString("\ntargeted cases missing (differences only random updates found: a bug of immutable-gen, please report it; a rewrite they are about is left as written):\n")
		for _, d := range missing {
			fmt.Fprintf(&b, "  %s at %s: old %s, new %s\n", d.Class, d.Field, js(d.Old), js(d.New))
		}
	}
	b.WriteString("\n")
	exact := 0
	for _, x := range r.Rules {
		if x.Migrated() && x.Exact {
			exact++
		}
	}
	switch holes, refusals, weaker := r.Proof.Count(proof.ClosesHole), r.Proof.Count(proof.NewRefusal), r.Proof.Count(proof.NewAcceptance); {
	case found == 0:
		b.WriteString("nothing to migrate\n")
	case migrated == 0:
		b.WriteString("nothing migrated: every rule stays as written, each with its reason above\n")
	case weaker > 0:
		fmt.Fprintf(&b, "NOT PROVEN: %d update(s) the original refused are allowed after the migration\n", weaker)
	case refusals > 0:
		fmt.Fprintf(&b, "NOT PROVEN: %d update(s) the original allowed are refused after the migration and change no field its rules call immutable (written with --accept-refusals)\n", refusals)
	case holes > 0:
		fmt.Fprintf(&b, "proven: %d rewrite(s) exact, the others close holes (%d update(s)); every difference closes a hole\n", exact, holes)
	default:
		fmt.Fprintf(&b, "proven: all %d rewrite(s) exact, no verdict differs\n", exact)
	}
	return b.String()
}

// verdict says how the differential found a rewrite.
func (r Rule) verdict() string {
	switch {
	case r.Exact:
		return "exact: the same verdicts as the rule on every update"
	case r.Refusals > 0:
		return fmt.Sprintf("NOT PROVEN: refuses %d update(s) the rule allows that change nothing it calls immutable (kept with --accept-refusals)", r.Refusals)
	}
	return fmt.Sprintf("closes holes: refuses %d update(s) the rule let through that change what it calls immutable", r.Holes)
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
