package openapi

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"

	"github.com/immutable-gen/immutable-gen/output"
	"github.com/immutable-gen/immutable-gen/schema"
)

// render writes the Go file for one package.
func render(res *pkgResult, header string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(output.GoFileHead(header))
	fmt.Fprintf(&b, "package %s\n\n", res.pkg.Name)
	if len(res.defs) == 0 {
		b.WriteString("import common \"k8s.io/kube-openapi/pkg/common\"\n\n")
		b.WriteString(funcDoc)
		b.WriteString("func ApplyImmutability(defs map[string]common.OpenAPIDefinition) {\n")
		b.WriteString("\t// No type of this package has an immutability marker.\n}\n")
	} else {
		b.WriteString(imports)
		b.WriteString(funcDoc)
		b.WriteString("func ApplyImmutability(defs map[string]common.OpenAPIDefinition) {\n")
		b.WriteString("\terr := immutableopenapi.Apply(defs, []immutableopenapi.Definition{\n")
		for _, def := range res.defs {
			fmt.Fprintf(&b, "\t\t{\n\t\t\t// %s\n\t\t\tKey: %s,\n\t\t\tMarks: []immutableopenapi.Mark{\n", def.typeName, def.key)
			for _, p := range def.patches {
				cond := ""
				if p.form == whenForm {
					cond = fmt.Sprintf(", Condition: %q", p.condition)
				}
				fmt.Fprintf(&b, "\t\t\t\t{Pointer: %q, Extension: immutableopenapi.%s%s}, // %s\n", p.pointer, extensionNames[p.form], cond, describe(p.form, p.origins))
			}
			b.WriteString("\t\t\t},\n\t\t},\n")
		}
		b.WriteString("\t})\n")
		b.WriteString("\tif err != nil {\n")
		b.WriteString("\t\tpanic(\"ApplyImmutability: \" + err.Error() + \": GetOpenAPIDefinitions and ApplyImmutability were generated from different versions of the types; regenerate both\")\n")
		b.WriteString("\t}\n}\n")
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting generated code for %s: %w\n%s", res.pkg.PkgPath, err, b.Bytes())
	}
	return out, nil
}

// extensionNames are the constants of package immutableopenapi the
// generated code names the extensions by, per form; the set-once extension
// is the one the runtime reads (runtime/extension.ImmutableOnce).
var extensionNames = [...]string{
	immutableForm:   "Immutable",
	keysForm:        "ImmutableKeys",
	onceForm:        "ImmutableOnce",
	ignoreOrderForm: "IgnoreOrder",
	noModifyForm:    "NoModify",
	noSetForm:       "NoSet",
	noUnsetForm:     "NoUnset",
	whenForm:        "When",
}

// describe says where the markers of a patch are written, for the comment
// beside it: `+immutable on field GadgetSpec.Name`, or the
// `+immutable:ignoreOrder` beside it for its own extension.
func describe(f form, origins []schema.Origin) string {
	parts := make([]string, len(origins))
	for i, o := range origins {
		m := o.Marker()
		switch f {
		case ignoreOrderForm:
			m = "+immutable:ignoreOrder"
		case whenForm:
			m = "+immutable:when"
		}
		parts[i] = m + " on " + o.Where()
	}
	return strings.Join(parts, ", ")
}

// applyPackage is the import path of the package the generated code calls.
// It depends on kube-openapi only, so that an API package calling it pulls
// in nothing of the generator.
const applyPackage = "github.com/immutable-gen/immutable-gen/runtime/immutableopenapi"

const imports = `import (
	common "k8s.io/kube-openapi/pkg/common"

	immutableopenapi "` + applyPackage + `"
)

`

const funcDoc = `// ApplyImmutability adds the immutability markers of this package's types to
// defs, the definitions openapi-gen's GetOpenAPIDefinitions returns for them,
// as extensions with the JSON boolean true: those of the immutable-fields
// KEP, x-kubernetes-immutable for +immutable and x-kubernetes-immutable-keys
// for +immutable=keys, and immutable-gen's own
// x-immutable-gen-immutable-once for +immutable=once and
// x-immutable-gen-ignore-order for +immutable:ignoreOrder (beyond the KEP;
// the immutable-gen runtime reads them). An API server serving defs
// publishes them on /openapi/v2 and /openapi/v3. +immutable:message is not
// carried: no extension has a place for it.
//
// A field marker goes on the field's property schema (beside a $ref, for a
// struct-typed field), a type marker on the definition of a struct type, and
// for any other named type on every schema that uses it: a property, list
// items, map values. Schemas are not changed in place: modified copies are
// stored in defs. Calling it twice is harmless.
//
// It panics when defs lacks a definition or a schema it marks: then
// GetOpenAPIDefinitions and this file were generated from different versions
// of the types, and both must be regenerated.
`
