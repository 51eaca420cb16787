// Package v1 is the test API of the outputs' agreement on placement: one
// kind per case, each accepted or refused by the placement rules, run
// through the crd, openapi and validators generators by
// placement's TestOutputsAgree, which wants the same findings (rule and
// marker) from all three. The cases go one, two and three struct levels
// deep, through list items, map values and sets.
//
// +k8s:openapi-gen=true
// +groupName=agree.example.com
package v1
