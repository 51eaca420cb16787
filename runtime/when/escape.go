package when

import (
	"regexp"
	"strings"
)

// The escaping of property names into CEL identifiers, as the API server's
// CEL does it (k8s.io/apiserver/pkg/cel, escaping.go): a property
// `foo-bar` is read as self.foo__dash__bar, `namespace` as
// self.__namespace__.

var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

var (
	expandMatcher   = regexp.MustCompile(`(__|[-./]|[^a-zA-Z0-9-./_])`)
	unexpandMatcher = regexp.MustCompile(`(_{2}[^_]+_{2})`)
)

func identChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// escapeName is the CEL identifier of the property name, false when it
// has none.
func escapeName(name string) (string, bool) {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return "", false
	}
	if celReserved[name] {
		return "__" + name + "__", true
	}
	plain, prevUnderscore := true, false
	for _, c := range name {
		if c == '/' || c == '-' || c == '.' {
			plain = false
			break
		}
		if !identChar(c) {
			return "", false
		}
		if c == '_' && prevUnderscore {
			plain = false
			break
		}
		prevUnderscore = c == '_'
	}
	if plain {
		return name, true
	}
	ok := true
	out := expandMatcher.ReplaceAllStringFunc(name, func(s string) string {
		switch s {
		case "__":
			return "__underscores__"
		case ".":
			return "__dot__"
		case "-":
			return "__dash__"
		case "/":
			return "__slash__"
		}
		ok = false
		return ""
	})
	if !ok {
		return "", false
	}
	return out, true
}

// unescapeName is the property name a CEL identifier reads.
func unescapeName(escaped string) (string, bool) {
	if !strings.Contains(escaped, "__") { // nothing to unescape
		return escaped, true
	}
	ok := true
	out := unexpandMatcher.ReplaceAllStringFunc(escaped, func(s string) string {
		contents := s[2 : len(s)-2]
		switch contents {
		case "underscores":
			return "__"
		case "dot":
			return "."
		case "dash":
			return "-"
		case "slash":
			return "/"
		}
		if celReserved[contents] {
			if len(s) != len(escaped) {
				ok = false
			}
			return contents
		}
		ok = false
		return ""
	})
	if !ok {
		return "", false
	}
	return out, true
}
