// +groupName=plan.example.com
package v1
