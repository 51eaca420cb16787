package crdgen

import (
	"encoding/json"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// encode writes the file as controller-tools' WriteYAML does.
func encode(header string, obj map[string]any) ([]byte, error) {
	y, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(header)+4+len(y))
	out = append(out, header...)
	out = append(out, "---\n"...)
	return append(out, y...), nil
}

// fromTree decodes a CRD tree back into the typed CRD, as the API server
// would read the file (fields it does not know, like the KEP extensions, are
// dropped).
func fromTree(obj map[string]any) (*apiextv1.CustomResourceDefinition, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var c apiextv1.CustomResourceDefinition
	if err := json.Unmarshal(j, &c); err != nil {
		return nil, err
	}
	return &c, nil
}
