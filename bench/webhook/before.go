package main

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
)

// beforePath is where the full-decode webhook is served.
const beforePath = "/full-decode"

// fullDecodeHandler is the webhook as it was before it decoded only what
// the check reads: both objects decoded in full into maps, then checked.
// It is the "before" of BenchmarkServeHTTP and of the load test with
// -before, served at beforePath.
func fullDecodeHandler() (admission.HandlerFunc, error) {
	resources, err := benchResources()
	if err != nil {
		return nil, err
	}
	set, err := enforce.NewSet(resources)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, req admission.Request) admission.Response {
		c := set.Checker(schema.GroupVersionResource(req.Resource), req.SubResource)
		if c == nil {
			return admission.Errored(http.StatusBadRequest, errors.New("not a checked resource"))
		}
		var obj, old map[string]interface{}
		if err := utiljson.Unmarshal(req.Object.Raw, &obj); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if err := utiljson.Unmarshal(req.OldObject.Raw, &old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		errs := c.ValidateUpdate(obj, old)
		if len(errs) == 0 {
			return admission.Allowed("")
		}
		status := apierrors.NewInvalid(schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}, req.Name, errs).Status()
		resp := admission.Denied("")
		resp.Result = &status
		return resp
	}, nil
}

func must(h admission.HandlerFunc, err error) admission.HandlerFunc {
	if err != nil {
		panic(err)
	}
	return h
}
