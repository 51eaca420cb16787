package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scaleCRD has the scale and status subresources, whose checks preflight
// composes itself (replicas at the scale paths, the status kept on update),
// with no bounds on the replicas so that only those checks refuse them.
const scaleCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: scalers.preflight.example.com
spec:
  group: preflight.example.com
  names: {kind: Scaler, listKind: ScalerList, plural: scalers, singular: scaler}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              note: {type: string}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
`

// TestPreflightScaleParity checks preflight's verdicts, errors and warnings
// against a real API server's (dry run) on a CRD with the scale and status
// subresources: replicas below zero, above int32 or of the wrong type at
// the spec path, a status that a create drops and an update may not
// change, and finalizer names the server warns about.
func TestPreflightScaleParity(t *testing.T) {
	s := startServer(t)
	file := filepath.Join(t.TempDir(), "scale.yaml")
	if err := os.WriteFile(file, []byte(scaleCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newParity(t, s, file, 1)
	_, p.gvr = s.installCRD(t, file)
	p.res = p.dyn.Resource(p.gvr).Namespace(namespace)
	c := p.checker(t)
	ctx := context.Background()
	requests, rejected, warned := 0, 0, 0
	count := func(errs, warnings int) {
		requests++
		if errs > 0 {
			rejected++
		}
		if warnings > 0 {
			warned++
		}
	}

	specs := []map[string]interface{}{
		{"replicas": 3},
		{},
		{"replicas": -1},
		{"replicas": int64(3000000000)},
		{"replicas": "3"},
		{"replicas": 2, "note": "changed"},
	}
	finalizers := [][]interface{}{nil, {"cleanup"}, {"example.com/cleanup", "a.b"}, {"kubernetes", "Not_Qualified!"}}

	// Creates.
	for i, spec := range specs {
		obj := p.object(fmt.Sprintf("create-%d", i), spec)
		if f := finalizers[i%len(finalizers)]; f != nil {
			obj["metadata"].(map[string]interface{})["finalizers"] = f
		}
		obj["status"] = map[string]interface{}{"replicas": -4} // dropped on create
		res, err := c.Create(obj)
		if err != nil {
			t.Fatal(err)
		}
		p.warn.take()
		_, serr := p.res.Create(ctx, unstr(obj), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		p.compare(t, fmt.Sprintf("create %v", spec), nil, obj, res, serr)
		count(len(res.Errors), len(res.Warnings))
	}

	// Updates of stored objects with and without a status (the server
	// refuses a stored status that breaks the scale's checks): the update
	// keeps the stored status, which is checked again.
	for i, status := range []map[string]interface{}{
		{"replicas": 2, "selector": "app=x"},
		{},
	} {
		stored, err := p.res.Create(ctx, unstr(p.object(fmt.Sprintf("old-%d", i), map[string]interface{}{"replicas": 2})), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stored.Object["status"] = status
		if stored, err = p.res.UpdateStatus(ctx, stored, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		for j, spec := range specs {
			obj := p.object(stored.GetName(), spec)
			obj["metadata"].(map[string]interface{})["resourceVersion"] = stored.GetResourceVersion()
			if f := finalizers[j%len(finalizers)]; f != nil {
				obj["metadata"].(map[string]interface{})["finalizers"] = f
			}
			obj["status"] = map[string]interface{}{"replicas": 1} // the stored status is kept
			res, err := c.Update(obj, stored.Object)
			if err != nil {
				t.Fatal(err)
			}
			p.warn.take()
			_, serr := p.res.Update(ctx, unstr(obj), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			p.compare(t, fmt.Sprintf("update of status %v to %v", status, spec), stored.Object, obj, res, serr)
			count(len(res.Errors), len(res.Warnings))
		}
	}
	t.Logf("%d requests: preflight and the API server agreed on each; %d rejected, %d with warnings", requests, rejected, warned)
	// -1, 3000000000 and "3", in 3 creates and 2×3 updates.
	if rejected != 9 || warned == 0 {
		t.Errorf("%d rejected (want 9) and %d warned: the cases do not exercise the scale checks and the finalizer warnings", rejected, warned)
	}
}
