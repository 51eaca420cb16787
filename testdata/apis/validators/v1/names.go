package v1

// walkPort and keyRouteOf take names the generated code would otherwise
// use: the generator picks others (walkPort_2, keyRoute_2Of).
func walkPort() string { return "port" }

func keyRouteOf() string { return "route" }

var _, _ = walkPort, keyRouteOf
