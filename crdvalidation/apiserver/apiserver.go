// Package apiserver runs apiextensions-apiserver's own validation of a new
// CRD in this process: the crdvalidation.Server of immutable-gen's crd
// generator, lint and the tests.
//
// It is a package of its own because of what it links: the API server's
// CRD validation imports its webhook client, and with it gRPC, the
// OpenTelemetry SDK and client-go's REST client, which the generator's
// other packages do not need.
package apiserver

import (
	"context"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// InProcess is the API server's CRD validation run in this process.
type InProcess struct{}

// ValidateCRD returns the errors the API server's validation of a new CRD
// finds in crd (in the internal version, as crdvalidation.Internal gives it),
// ordered by their text. It never fails.
func (InProcess) ValidateCRD(crd *apiextensions.CustomResourceDefinition) (field.ErrorList, error) {
	errs := apivalidation.ValidateCustomResourceDefinition(context.Background(), crd)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs, nil
}
