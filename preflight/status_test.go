package preflight_test

import (
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/preflight"
)

const statusCRD = "../testdata/check-update/status/crd.yaml"

// gadget returns a Gadget with the given spec and status (YAML; status
// omitted when "").
func gadget(t testing.TB, spec, status string) map[string]interface{} {
	t.Helper()
	doc := "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: ns}\nspec: " + spec + "\n"
	if status != "" {
		doc += "status: " + status + "\n"
	}
	objs, err := preflight.Parse("gadget.yaml", []byte(doc))
	if err != nil || len(objs) != 1 {
		t.Fatalf("%v", err)
	}
	return objs[0].Object
}

// TestUpdateStatus: an update through /status is judged as the server's
// status strategy judges it — the stored object with the request's status,
// the status schema, the rules of the whole object — and the rest of the
// request is said to be dropped, not judged. TestPreflightStatusParity
// (e2e) holds these verdicts to a real API server's.
func TestUpdateStatus(t *testing.T) {
	c := checker(t, statusCRD)
	const spec = "{size: 3, zone: a}"
	for _, tc := range []struct {
		name               string
		oldStatus          string
		newSpec, newStatus string
		errs               []string // "field: detail" prefixes
		dropped            string   // a prefix of Result.Dropped
	}{
		{name: "the first status write", newSpec: spec, newStatus: "{phase: Pending}"},
		{name: "a value the status schema refuses", newSpec: spec, newStatus: "{count: -1}", errs: []string{"status.count: Invalid value"}},
		// As the server: an unsupported value blocks the CEL rules.
		{name: "an enum the status schema refuses", newSpec: spec, newStatus: "{phase: Lost}", errs: []string{"<nil>: Invalid value: null: some validation rules were not checked", "status.phase: Unsupported value"}},
		{name: "a rule on status: set once, then fixed", oldStatus: "{id: x1}", newSpec: spec, newStatus: "{id: x2}", errs: []string{"status.id: Invalid value: \"x2\": id is immutable once set"}},
		{name: "a rule on status: not removed", oldStatus: "{id: x1}", newSpec: spec, newStatus: "{phase: Done}", errs: []string{"status.id: Invalid value: id may not be removed"}},
		{name: "status removed", oldStatus: "{phase: Done}", newSpec: spec},
		{name: "a spec change beside it is dropped, not judged", newSpec: "{size: 99, zone: b}", newStatus: "{phase: Running}", dropped: "spec: an update through /status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := gadget(t, spec, tc.oldStatus)
			res, err := c.UpdateStatus(gadget(t, tc.newSpec, tc.newStatus), old)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range res.Errors {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.errs) {
				t.Fatalf("errors %q, want %q", got, tc.errs)
			}
			for i, want := range tc.errs {
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("error %q, want %q…", got[i], want)
				}
			}
			if !strings.HasPrefix(res.Dropped, tc.dropped) || (tc.dropped == "") != (res.Dropped == "") {
				t.Errorf("dropped %q, want %q…", res.Dropped, tc.dropped)
			}
		})
	}
}

// TestUpdateDropsStatus: on a CRD with the status subresource an update of
// the resource keeps the stored status: a status the status rules refuse
// is not judged, and the result says it was dropped.
func TestUpdateDropsStatus(t *testing.T) {
	c := checker(t, statusCRD)
	res, err := c.Update(gadget(t, "{size: 3, zone: a}", "{id: x2}"), gadget(t, "{size: 3, zone: a}", "{id: x1}"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed() || !strings.HasPrefix(res.Dropped, "status: the CRD has the status subresource") {
		t.Errorf("allowed %v, errors %v, dropped %q", res.Allowed(), res.Errors, res.Dropped)
	}
	res, err = c.Update(gadget(t, "{size: 4, zone: a}", "{id: x1}"), gadget(t, "{size: 3, zone: a}", "{id: x1}"))
	if err != nil || !res.Allowed() || res.Dropped != "" {
		t.Errorf("an update that leaves status alone: %v, %+v", err, res)
	}
}

// TestUpdateStatusWithoutSubresource: /status of a CRD without the
// subresource is an error, not a verdict.
func TestUpdateStatusWithoutSubresource(t *testing.T) {
	c := checker(t, widgetsCRD)
	objs, err := preflight.Parse("w.yaml", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\nspec: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	old := objs[0].Object
	if _, err := c.UpdateStatus(old, old); err == nil || !strings.Contains(err.Error(), "no status subresource") {
		t.Errorf("got %v", err)
	}
}
