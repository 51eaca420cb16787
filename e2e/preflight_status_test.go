package e2e

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestPreflightStatusParity: updates through /status, and updates of the
// resource that change status, on a CRD with the status subresource and
// rules on status and spec: preflight's verdict, errors and warnings equal
// a real apiextensions-apiserver's (dry run) for each, and preflight says
// what the server dropped.
func TestPreflightStatusParity(t *testing.T) {
	s := startServer(t)
	p := newParity(t, s, "../testdata/check-update/status/crd.yaml", 7)
	p.storeOlds(t, 0, false)
	c := p.checker(t)
	ctx := context.Background()
	yamlOf := func(text string) interface{} {
		var v interface{}
		if err := yaml.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	const spec = "{size: 3, zone: a}"
	for i, tc := range []struct {
		name      string
		oldStatus string // stored through /status first; "" for none
		newSpec   string
		newStatus string // "" for none
		viaStatus bool   // through /status, else an update of the resource
		dropped   bool
	}{
		{name: "the first status write", newSpec: spec, newStatus: "{phase: Pending}", viaStatus: true},
		{name: "a value the status schema refuses", newSpec: spec, newStatus: "{count: -1}", viaStatus: true},
		{name: "an enum the status schema refuses", newSpec: spec, newStatus: "{phase: Lost}", viaStatus: true},
		{name: "set once, then fixed", oldStatus: "{id: x1}", newSpec: spec, newStatus: "{id: x2}", viaStatus: true},
		{name: "not removed", oldStatus: "{id: x1}", newSpec: spec, newStatus: "{phase: Done}", viaStatus: true},
		{name: "status removed", oldStatus: "{phase: Done}", newSpec: spec, viaStatus: true},
		{name: "a spec change beside it is dropped", newSpec: "{size: 99, zone: b}", newStatus: "{phase: Running}", viaStatus: true, dropped: true},
		{name: "an update of the resource keeps the stored status", oldStatus: "{id: x1}", newSpec: spec, newStatus: "{id: x2}", dropped: true},
		{name: "an update of the resource: spec judged, status dropped", oldStatus: "{id: x1}", newSpec: "{size: 3, zone: b}", newStatus: "{count: -1}", dropped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("status-%02d", i)
			stored, err := p.res.Create(ctx, unstr(p.object(name, yamlOf(spec))), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.oldStatus != "" {
				stored.Object["status"] = yamlOf(tc.oldStatus)
				if stored, err = p.res.UpdateStatus(ctx, stored, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			obj := p.object(name, yamlOf(tc.newSpec))
			if tc.newStatus != "" {
				obj["status"] = yamlOf(tc.newStatus)
			}
			obj["metadata"].(map[string]interface{})["resourceVersion"] = stored.GetResourceVersion()
			p.warn.take()
			if tc.viaStatus {
				res, err := c.UpdateStatus(obj, stored.Object)
				if err != nil {
					t.Fatal(err)
				}
				_, serr := p.res.UpdateStatus(ctx, unstr(obj), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
				p.compare(t, "/status update", stored.Object, obj, res, serr)
				if (res.Dropped != "") != tc.dropped {
					t.Errorf("dropped %q", res.Dropped)
				}
				return
			}
			res, err := c.Update(obj, stored.Object)
			if err != nil {
				t.Fatal(err)
			}
			_, serr := p.res.Update(ctx, unstr(obj), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			p.compare(t, "update", stored.Object, obj, res, serr)
			if (res.Dropped != "") != tc.dropped {
				t.Errorf("dropped %q", res.Dropped)
			}
		})
	}
}
