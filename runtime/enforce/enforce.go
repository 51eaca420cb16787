// Package enforce maps the API resources whose updates are checked to the
// runtime.Checkers that check them. It is the part the two admission
// adapters share: the k8s.io/apiserver admission plugin
// (runtime/admission) and the controller-runtime webhook (runtime/webhook).
//
// A Resource names one API resource (group, version, plural name), the
// subresources checked besides the main resource, and the Checker of the
// schema of that version. FromCRD derives Resources from a
// CustomResourceDefinition manifest carrying the immutability extensions
// (immutable-gen crd:immutability=extensions); CheckerFromDefinitions and
// CheckerFromOpenAPI compile the kube-openapi definitions or OpenAPI
// document of an aggregated API server. A Set indexes Resources for the
// lookup on each request; it is read-only once built.
//
// None of them builds a check that allows everything: a CRD, definition or
// resource without immutability extensions — such as the default CEL
// output of immutable-gen crd, which the API server enforces itself — is
// refused with a NoExtensionsError, whose one text names
// crd:immutability=extensions, the output the runtime enforces.
package enforce

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// StatusSubresource is the subresource through which a resource's status is
// written. Its requests carry the whole object (the server has reset
// everything but the status), so the Checker of the resource applies.
const StatusSubresource = "status"

// A Resource is one API resource whose updates are checked.
type Resource struct {
	// Resource is the resource as requests name it: API group, version and
	// plural resource name, e.g. cache.example.com/v1, cacheclusters. The
	// objects of requests on it are in this version.
	Resource schema.GroupVersionResource
	// Subresources are the subresources checked besides the main resource,
	// e.g. "status". Only subresources whose objects are the resource's own
	// kind can be checked: "scale" (an autoscaling/v1 Scale) cannot, and is
	// refused.
	Subresources []string
	// Checker checks the updates of objects of this version.
	Checker *runtime.Checker
}

// String names r as "group/version, Resource=plural" does in Kubernetes
// messages, with its subresources.
func (r Resource) String() string {
	s := r.Resource.String()
	if len(r.Subresources) > 0 {
		s += " (subresources: " + strings.Join(r.Subresources, ", ") + ")"
	}
	return s
}

// validate checks one Resource.
func (r Resource) validate() error {
	var errs []error
	gvr := r.Resource
	if gvr.Version == "" {
		errs = append(errs, errors.New("version is empty"))
	}
	if gvr.Resource == "" {
		errs = append(errs, errors.New("resource is empty"))
	}
	if strings.Contains(gvr.Resource, "/") {
		errs = append(errs, fmt.Errorf("resource %q names a subresource: list subresources in Subresources", gvr.Resource))
	}
	if r.Checker == nil {
		errs = append(errs, errors.New("no Checker"))
	}
	for _, sub := range r.Subresources {
		switch {
		case sub == "":
			errs = append(errs, errors.New(`subresource "" is the main resource, which is always checked`))
		case sub == "scale":
			errs = append(errs, errors.New(`subresource "scale" cannot be checked: its objects are autoscaling/v1 Scale, not the resource's kind`))
		case strings.Contains(sub, "/"):
			errs = append(errs, fmt.Errorf("subresource %q contains a slash", sub))
		}
	}
	return errors.Join(errs...)
}

// A Set indexes Resources by resource and subresource. It is read-only once
// built and safe for concurrent use.
type Set struct {
	checkers  map[key]*runtime.Checker
	resources []Resource
}

type key struct {
	gvr schema.GroupVersionResource
	sub string
}

// NewSet indexes resources. It fails, naming the resource, on an empty
// version or resource name, a missing Checker, a subresource that cannot be
// checked, and a resource listed twice; and with a *NoExtensionsError on a
// resource none of whose versions has a Checker that checks anything
// (runtime.Checker.Empty): the Set would allow every update of it. One
// version's Checker may be empty when another version's is not, as FromCRD
// lists every served version of a CRD.
func NewSet(resources []Resource) (*Set, error) {
	s := &Set{checkers: map[key]*runtime.Checker{}}
	seen := map[schema.GroupVersionResource]bool{}
	// checks says, per resource in the order of its first version, whether
	// some version's Checker checks anything.
	checks := map[schema.GroupResource]bool{}
	var order []schema.GroupResource
	var errs []error
	for i, r := range resources {
		if err := r.validate(); err != nil {
			errs = append(errs, fmt.Errorf("resources[%d] %s: %w", i, r.Resource, err))
			continue
		}
		if seen[r.Resource] {
			errs = append(errs, fmt.Errorf("resources[%d] %s: listed twice", i, r.Resource))
			continue
		}
		seen[r.Resource] = true
		gr := r.Resource.GroupResource()
		if _, ok := checks[gr]; !ok {
			order = append(order, gr)
		}
		checks[gr] = checks[gr] || !r.Checker.Empty()
		r.Subresources = dedupe(r.Subresources)
		s.checkers[key{r.Resource, ""}] = r.Checker
		for _, sub := range r.Subresources {
			s.checkers[key{r.Resource, sub}] = r.Checker
		}
		s.resources = append(s.resources, r)
	}
	for _, gr := range order {
		if !checks[gr] {
			errs = append(errs, &NoExtensionsError{Resource: gr})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.Slice(s.resources, func(i, j int) bool { return lessGVR(s.resources[i].Resource, s.resources[j].Resource) })
	return s, nil
}

// Checker returns the Checker for updates of resource gvr through
// subresource sub ("" for the main resource), or nil when they are not
// checked.
func (s *Set) Checker(gvr schema.GroupVersionResource, sub string) *runtime.Checker {
	if s == nil {
		return nil
	}
	return s.checkers[key{gvr, sub}]
}

// Resources returns the indexed resources, ordered by group, version and
// resource, subresources sorted. The slice is a copy.
func (s *Set) Resources() []Resource {
	if s == nil {
		return nil
	}
	out := make([]Resource, len(s.resources))
	for i, r := range s.resources {
		r.Subresources = append([]string(nil), r.Subresources...)
		out[i] = r
	}
	return out
}

// Len returns the number of resources in s.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.resources)
}

func dedupe(subs []string) []string {
	if len(subs) == 0 {
		return nil
	}
	out := append([]string(nil), subs...)
	sort.Strings(out)
	n := 1
	for _, s := range out[1:] {
		if s != out[n-1] {
			out[n] = s
			n++
		}
	}
	return out[:n]
}

func lessGVR(a, b schema.GroupVersionResource) bool {
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	if a.Version != b.Version {
		return a.Version < b.Version
	}
	return a.Resource < b.Resource
}
