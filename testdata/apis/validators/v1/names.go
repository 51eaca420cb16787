package v1

// walkPort and keyRouteOf take names the generated code would otherwise
// use: the generator picks others (walkPort_2, keyRoute_2Of).
func walkPort() string { return "port" }

func keyRouteOf() string { return "route" }

var _, _ = walkPort, keyRouteOf

// field is a name the import of apimachinery's field package would take:
// the generated file imports it as fieldpkg.
var field = "field"

var _ = field
