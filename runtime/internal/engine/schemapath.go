package engine

import "strconv"

// Schema paths name nodes of a schema in error messages, e.g.
// "definitions[io.k8s.Foo].properties[spec].items". They are strings: Compile
// is not on a hot path.

func schemaChild(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func schemaKey(path, name, key string) string {
	return schemaChild(path, name) + "[" + key + "]"
}

func schemaIndex(path, name string, i int) string {
	return schemaChild(path, name) + "[" + strconv.Itoa(i) + "]"
}
