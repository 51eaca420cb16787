package engine

import (
	"fmt"
	"reflect"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/immutable"
)

// ValidateUpdateTyped is ValidateUpdate for Go values: API structs (or
// pointers to them) are converted to unstructured content with
// runtime.DefaultUnstructuredConverter, as the API server would serialize
// them; a map[string]interface{} or a runtime.Unstructured (such as
// *unstructured.Unstructured) is used as is. A nil value is an absent object.
//
// When obj and old are deeply equal Go values nothing is converted: equal
// values serialize equally, so there is nothing to report. A value that
// cannot be converted is reported as one field.ErrorTypeInternal error.
func (c *Checker) ValidateUpdateTyped(obj, old interface{}) field.ErrorList {
	if c == nil || reflect.DeepEqual(obj, old) {
		return nil
	}
	nu, err := toUnstructured(obj)
	if err != nil {
		return field.ErrorList{immutable.WithOrigin(field.InternalError(nil, fmt.Errorf("converting the new object: %w", err)))}
	}
	ou, err := toUnstructured(old)
	if err != nil {
		return field.ErrorList{immutable.WithOrigin(field.InternalError(nil, fmt.Errorf("converting the old object: %w", err)))}
	}
	return c.ValidateUpdate(nu, ou)
}

// toUnstructured converts a Go value to unstructured content. The converter
// panics on some values (a func field, say); that is turned into an error.
func toUnstructured(v interface{}) (u map[string]interface{}, err error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]interface{}:
		return x, nil
	case k8sruntime.Unstructured:
		if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, nil
		}
		return x.UnstructuredContent(), nil
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Pointer && rv.IsNil():
		return nil, nil
	case rv.Kind() != reflect.Pointer:
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		v = p.Interface()
	}
	defer func() {
		if r := recover(); r != nil {
			u, err = nil, fmt.Errorf("cannot convert %T to unstructured content: %v", v, r)
		}
	}()
	return k8sruntime.DefaultUnstructuredConverter.ToUnstructured(v)
}
