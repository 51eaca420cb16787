package respell

import (
	"math/rand"
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestRespellDecodesEqual: every spelling decodes to the value, and the
// spellings differ from encoding/json's.
func TestRespellDecodesEqual(t *testing.T) {
	in := `{"a":[0,-0,1,9223372036854775807,-9223372036854775808,2.5,-0.125,1e300,"x/y \"q\" é 😀 \u0001",true,null,{}],"b":{"c":{"d":-7}},"e":""}`
	var want map[string]interface{}
	if err := utiljson.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	distinct := map[string]bool{}
	for i := 0; i < 200; i++ {
		b := Respell(want, r)
		distinct[string(b)] = true
		var got map[string]interface{}
		if err := utiljson.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(normal(got), normal(want)) {
			t.Fatalf("%s decodes to %v, want %v", b, got, want)
		}
	}
	if len(distinct) < 150 {
		t.Errorf("only %d distinct spellings of 200", len(distinct))
	}
}

// normal makes integral float64s int64s, as equality does.
func normal(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			x[k] = normal(e)
		}
	case []interface{}:
		for i, e := range x {
			x[i] = normal(e)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}
