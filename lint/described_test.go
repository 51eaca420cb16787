package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDescribedPromises: IG014 judges a description by what it promises
// (issue 31): the variants of "once set … cannot be changed" are
// promises; an upstream type's text (Kubernetes' own, in any release
// k8stext.txt holds; JobSet's, outside JobSet's own CRDs), a sentence about
// some of an object's fields, and a status object embedded below spec are
// not the custom resource's promise.
func TestDescribedPromises(t *testing.T) {
	str := func(desc string) string {
		return fmt.Sprintf(`{"type": "string", "maxLength": 10, "description": %q}`, desc)
	}
	for _, tc := range []struct {
		name string
		// group of the CRD; example.com if empty.
		group string
		// props of spec (JSON), spec's own description.
		props, specDesc string
		// want is the path of the one IG014, "" for none.
		want string
	}{
		// The promise with its condition first, and its variants.
		{name: "Once set, this field cannot be changed (OpenShift's DNS fields)", props: `{"ref": ` + str("Ref names the zone. Once set, this field cannot be changed.") + `}`, want: "spec.ref"},
		{name: "cannot be changed once set", props: `{"ref": ` + str("The zone cannot be changed once set.") + `}`, want: "spec.ref"},
		{name: "can not be modified after creation", props: `{"ref": ` + str("The zone can not be modified after creation.") + `}`, want: "spec.ref"},
		{name: "can't be updated after it is set", props: `{"ref": ` + str("It can't be updated after it is set.") + `}`, want: "spec.ref"},
		{name: "may not be changed once it is set", props: `{"ref": ` + str("Ref may not be changed once it is set.") + `}`, want: "spec.ref"},
		{name: "after creation, it cannot be altered", props: `{"ref": ` + str("After creation, it cannot be altered.") + `}`, want: "spec.ref"},
		{name: "once the object is created, it cannot be updated", props: `{"ref": ` + str("Once the cluster is created, this field cannot be updated.") + `}`, want: "spec.ref"},
		{name: "after the resource has been created, it cannot be modified", props: `{"ref": ` + str("After the resource has been created, it cannot be modified.") + `}`, want: "spec.ref"},
		{name: "becomes immutable", props: `{"ref": ` + str("The reference becomes immutable when the volume is bound.") + `}`, want: "spec.ref"},
		{name: "another field's sentence before ';'", props: `{"ref": ` + str("Other fields may change; this field is immutable.") + `}`, want: "spec.ref"},
		// Refusals that are no immutability promise.
		{name: "cannot be changed without a condition (Kubernetes' Cannot be updated.)", props: `{"ref": ` + str("Ref names the zone. Cannot be updated.") + `}`},
		{name: "once set to Auto, it cannot be changed back (ASO's nodeProvisioningProfile mode): one transition", props: `{"ref": ` + str("Mode: Once the mode it set to Auto, it cannot be changed back to Manual.") + `}`},
		{name: "once set, it cannot be changed except to add a zone", props: `{"ref": ` + str("Once set, it cannot be changed except to add a zone.") + `}`},
		{name: "Immutable except for a field (CAPZ's apiServerAccessProfile): a promise of the others", props: `{"ref": ` + str("Immutable except for `authorizedIPRanges`.") + `}`, want: "spec.ref"},
		{name: "cannot be changed to a lower value", props: `{"ref": ` + str("The size cannot be changed to a lower value.") + `}`},
		// A sentence about an object in general.
		{name: "most spec fields are immutable, at spec", specDesc: "Spec is the desired state of the cluster. Most spec fields are immutable.", props: `{"ref": {"type": "string", "maxLength": 10}}`},
		{name: "some of the fields cannot be changed after creation", props: `{"config": {"type": "object", "description": "Config of the zone. Some of the fields cannot be changed after creation.", "properties": {"ref": {"type": "string", "maxLength": 10}}}}`},
		{name: "many settings are immutable", props: `{"config": {"type": "object", "description": "Many settings are immutable.", "properties": {"ref": {"type": "string", "maxLength": 10}}}}`},
		{name: "all spec fields are immutable, at spec (a promise of spec)", specDesc: "All spec fields are immutable.", props: `{"ref": {"type": "string", "maxLength": 10}}`, want: "spec"},
		// Upstream types' texts.
		{name: "Kubernetes' own text of an older release (Service loadBalancerClass, k8s.io/api v0.26)", props: `{"loadBalancerClass": ` + str("loadBalancerClass is the class of the load balancer implementation this Service belongs to. Once set, it can not be changed.") + `}`},
		{name: "Kubernetes' own text (Job managedBy)", props: `{"managedBy": ` + str("ManagedBy field indicates the controller that manages a Job.\n\nThis field is immutable.") + `}`},
		{
			name:  "JobSet's managedBy in Kubeflow's runtime template",
			group: "trainer.kubeflow.org",
			props: `{"template": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"managedBy": ` + str("ManagedBy is used to indicate the controller or entity that manages a JobSet.\nThe value cannot exceed 63 characters.\nThe field is immutable.") + `}}}}}`,
		},
		{
			name:  "JobSet's managedBy in JobSet's own CRD (its promise, kept by its webhook)",
			group: "jobset.x-k8s.io",
			props: `{"managedBy": ` + str("ManagedBy is used to indicate the controller or entity that manages a JobSet.\nThe value cannot exceed 63 characters.\nThe field is immutable.") + `}`,
			want:  "spec.managedBy",
		},
		{name: "JobSet's sentence on a field of another name", group: "trainer.kubeflow.org", props: `{"owner": ` + str("The field is immutable.") + `}`, want: "spec.owner"},
		// Status embedded below spec.
		{name: "a status object embedded below spec", props: `{"template": {"type": "object", "properties": {"status": {"type": "object", "properties": {"phase": ` + str("Phase of the claim. This field is immutable.") + `}}}}}`},
		{name: "a scalar status below spec (a desired state) is a field", props: `{"status": ` + str("Desired status. This field is immutable.") + `}`, want: "spec.status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := crdWith(tc.props, nil)
			manifest = strings.Replace(manifest, `"group": "example.com"`, fmt.Sprintf(`"group": %q`, cmp.Or(tc.group, "example.com")), 1)
			manifest = strings.Replace(manifest, `"metadata": {"name": "widgets.example.com"}`, fmt.Sprintf(`"metadata": {"name": "widgets.%s"}`, cmp.Or(tc.group, "example.com")), 1)
			if tc.specDesc != "" {
				manifest = strings.Replace(manifest, `"spec": {"type": "object",`, fmt.Sprintf(`"spec": {"type": "object", "description": %q,`, tc.specDesc), 1)
			}
			got := slices.DeleteFunc(findings(t, manifest), func(s string) bool { return !strings.HasPrefix(s, string(IDDescribedOnly)) })
			var want []string
			if tc.want != "" {
				want = []string{string(IDDescribedOnly) + " " + tc.want}
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
