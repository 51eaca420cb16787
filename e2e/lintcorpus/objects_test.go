package lintcorpus

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// The objects TestCorpusFixesKeepTheAPIWorking sends to the API server's
// validator are built from a CRD version's schema: a minimal valid value
// of a node holds its required properties (those with a default left to
// the server's defaulting), with values that satisfy the node's enum,
// format, pattern, length and range as far as practical. Where that is
// not enough (a CEL rule asks for more), the test repairs the object with
// the optional properties the server's errors point at.

// minimal returns a minimal valid value of the schema node s, or an error
// saying why none could be built.
func minimal(s map[string]any) (any, error) {
	return minimalAt(s, "", 0)
}

func minimalAt(s map[string]any, path string, depth int) (any, error) {
	if depth > 40 {
		return nil, fmt.Errorf("%s: nested too deep", path)
	}
	if d, ok := s["default"]; ok {
		return d, nil
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0], nil
	}
	if s["x-kubernetes-int-or-string"] == true {
		return int64(1), nil
	}
	if s["x-kubernetes-embedded-resource"] == true {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}}, nil
	}
	switch s["type"] {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for _, name := range stringsOf(s["required"]) {
			ps, ok := props[name].(map[string]any)
			if !ok {
				continue // the server's validation says so, not ours
			}
			if _, ok := ps["default"]; ok {
				continue // the server defaults it
			}
			v, err := minimalAt(ps, path+"."+name, depth+1)
			if err != nil {
				return nil, err
			}
			out[name] = v
		}
		minProps, _ := number(s["minProperties"])
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for i := 0; float64(len(out)) < minProps; i++ {
				v, err := minimalAt(ap, path+"[*]", depth+1)
				if err != nil {
					return nil, err
				}
				out[fmt.Sprintf("k%d", i)] = v
			}
		}
		for _, name := range sortedKeys(props) {
			if float64(len(out)) >= minProps {
				break
			}
			if _, ok := out[name]; !ok {
				v, err := minimalAt(props[name].(map[string]any), path+"."+name, depth+1)
				if err != nil {
					return nil, err
				}
				out[name] = v
			}
		}
		return out, nil
	case "array":
		n, _ := number(s["minItems"])
		items, _ := s["items"].(map[string]any)
		out := []any{}
		for i := 0; float64(i) < n; i++ {
			if items == nil {
				return nil, fmt.Errorf("%s: minItems without items", path)
			}
			v, err := minimalAt(items, path+"[*]", depth+1)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				// Items of a set or list map differ.
				if vs, ok := v.(string); ok {
					v = vs + strings.Repeat("a", i)
				}
			}
			out = append(out, v)
		}
		return out, nil
	case "string":
		return minimalString(s, path)
	case "integer", "number":
		return minimalNumber(s, path)
	case "boolean":
		return false, nil
	case nil:
		if s["x-kubernetes-preserve-unknown-fields"] == true {
			return map[string]any{}, nil
		}
	}
	return nil, fmt.Errorf("%s: no value for type %v", path, s["type"])
}

// formats are a valid value of each string format the API server checks.
var formats = map[string]string{
	"date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "time": "00:00:00",
	"duration": "1s", "uri": "https://example.com", "url": "https://example.com",
	"email": "a@example.com", "hostname": "example.com", "ipv4": "10.0.0.1",
	"ipv6": "fd00::1", "cidr": "10.0.0.0/24", "mac": "00:00:5e:00:53:01",
	"uuid": "123e4567-e89b-12d3-a456-426614174000", "byte": "YQ==", "int-or-string": "1",
}

func minimalString(s map[string]any, path string) (any, error) {
	minLen, _ := number(s["minLength"])
	maxLen, hasMax := number(s["maxLength"])
	v := "a"
	if f, ok := s["format"].(string); ok && formats[f] != "" {
		v = formats[f]
	}
	if pat, ok := s["pattern"].(string); ok {
		m, err := matching(pat)
		if err != nil {
			return nil, fmt.Errorf("%s: pattern %q: %v", path, pat, err)
		}
		v = m
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("%s: pattern %q: %v", path, pat, err)
		}
		for float64(len(v)) < minLen && re.MatchString(v+"a") {
			v += "a"
		}
	} else {
		for float64(len(v)) < minLen {
			v += "a"
		}
	}
	if float64(len(v)) < minLen || (hasMax && float64(len(v)) > maxLen) {
		return nil, fmt.Errorf("%s: no string of length %v–%v found", path, minLen, maxLen)
	}
	return v, nil
}

func minimalNumber(s map[string]any, path string) (any, error) {
	v := 1.0
	if lo, ok := number(s["minimum"]); ok {
		v = lo
		if s["exclusiveMinimum"] == true {
			v++
		}
	}
	if hi, ok := number(s["maximum"]); ok && v > hi {
		v = hi
		if s["exclusiveMaximum"] == true {
			v--
		}
	}
	if s["type"] == "integer" {
		return int64(v), nil
	}
	return v, nil
}

// matching returns a string that the regular expression pat matches: the
// shortest choice at every repetition, the first at every alternation,
// 'a' (or the class's first character) for a class that holds it.
func matching(pat string) (string, error) {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var walk func(r *syntax.Regexp) error
	walk = func(r *syntax.Regexp) error {
		switch r.Op {
		case syntax.OpLiteral:
			b.WriteString(string(r.Rune))
		case syntax.OpCharClass:
			if len(r.Rune) == 0 {
				return fmt.Errorf("an empty class")
			}
			c := r.Rune[0]
			for i := 0; i+1 < len(r.Rune); i += 2 {
				if r.Rune[i] <= 'a' && 'a' <= r.Rune[i+1] {
					c = 'a'
				}
			}
			if c == 0 || !unicode.IsPrint(c) {
				c = firstPrintable(r.Rune)
			}
			b.WriteRune(c)
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture, syntax.OpPlus:
			return walk(r.Sub[0])
		case syntax.OpRepeat:
			for range r.Min {
				if err := walk(r.Sub[0]); err != nil {
					return err
				}
			}
		case syntax.OpConcat:
			for _, s := range r.Sub {
				if err := walk(s); err != nil {
					return err
				}
			}
		case syntax.OpAlternate:
			return walk(r.Sub[0])
		case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch,
			syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		default:
			return fmt.Errorf("cannot build a match for %v", r.Op)
		}
		return nil
	}
	if err := walk(re); err != nil {
		return "", err
	}
	s := b.String()
	if m, err := regexp.MatchString(pat, s); err != nil || !m {
		return "", fmt.Errorf("built %q, which it does not match", s)
	}
	return s, nil
}

func firstPrintable(ranges []rune) rune {
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := max(ranges[i], ' '); c <= ranges[i+1] && c < 0x7f; c++ {
			if unicode.IsPrint(c) {
				return c
			}
		}
	}
	return 'a'
}

// changed returns another valid value of the scalar schema node s than v,
// for an update that changes only that field, or false.
func changed(s map[string]any, v any) (any, bool) {
	if e, ok := s["enum"].([]any); ok {
		for _, x := range e {
			if x != v {
				return x, true
			}
		}
		return nil, false
	}
	switch x := v.(type) {
	case bool:
		return !x, true
	case string:
		if _, ok := s["pattern"]; ok {
			return nil, false
		}
		if _, ok := s["format"]; ok {
			return nil, false
		}
		if maxLen, ok := number(s["maxLength"]); ok && float64(len(x)+1) > maxLen {
			return nil, false
		}
		return x + "b", true
	case int64:
		if hi, ok := number(s["maximum"]); ok && float64(x+1) > hi {
			return nil, false
		}
		return x + 1, true
	}
	return nil, false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

func stringsOf(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
