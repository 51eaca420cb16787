package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

const (
	toolPackage = "github.com/immutable-gen/immutable-gen/cmd/immutable-gen"
	guideURL    = "https://github.com/immutable-gen/immutable-gen/blob/main/docs/guide.md"

	manifestsComment = "# manifests runs immutable-gen: controller-gen's generators and arguments, plus the +immutable markers."
)

// varDef matches the definition of make variable name (=, ?=, :=, ::=).
func varDef(name string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `\s*(\?|:|::)?=`)
}

// ruleDef matches a rule whose (only or first) target is target.
func ruleDef(target string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(target) + `\s*:([^=]|$)`)
}

var (
	controllerGenWord = regexp.MustCompile(`(^|\s)(controller-gen|\$\(CONTROLLER_GEN\))(\s|$)`)
	immutableGenWord  = regexp.MustCompile(`(^|\s)immutable-gen(\s|$)`)
	controllerGenRef  = regexp.MustCompile(`\$\(CONTROLLER_GEN\)|\$\{CONTROLLER_GEN\}`)
)

// makefile is a Makefile as lines, without their newlines.
type makefile struct{ lines []string }

func (m *makefile) find(re *regexp.Regexp) int {
	for i, l := range m.lines {
		if re.MatchString(l) {
			return i
		}
	}
	return -1
}

func (m *makefile) insert(at int, lines ...string) {
	m.lines = append(m.lines[:at], append(lines, m.lines[at:]...)...)
}

// recipeEnd is the index after the recipe of the rule at line i.
func (m *makefile) recipeEnd(i int) int {
	j := i + 1
	for j < len(m.lines) && strings.HasPrefix(m.lines[j], "\t") {
		j++
	}
	return j
}

// wireMakefile makes a kubebuilder go/v4 (or go/v3) Makefile run immutable-gen
// for its manifests target, in place of controller-gen with the same
// arguments:
//
//   - IMMUTABLE_GEN ?= $(LOCALBIN)/immutable-gen next to CONTROLLER_GEN, and
//     IMMUTABLE_GEN_VERSION next to CONTROLLER_TOOLS_VERSION;
//   - an immutable-gen target next to controller-gen's that installs it with
//     go install into $(LOCALBIN), as the other tools are — unless
//     IMMUTABLE_GEN is given on the command line or in the environment
//     (make manifests IMMUTABLE_GEN=/path/to/immutable-gen), which is then
//     used as it is;
//   - manifests depends on immutable-gen and runs "$(IMMUTABLE_GEN)".
//
// The generate target (deep-copy code) keeps controller-gen. Each step is
// skipped when already done, so wiring twice changes nothing; when setVersion
// is true, an existing IMMUTABLE_GEN_VERSION is replaced by version.
func wireMakefile(src, version string, setVersion bool) (string, error) {
	m := &makefile{lines: strings.Split(src, "\n")}
	if m.find(varDef("LOCALBIN")) < 0 {
		return "", errors.New("no LOCALBIN variable: this does not look like a kubebuilder go/v4 Makefile; wire immutable-gen by hand (" + guideURL + ")")
	}

	// The manifests target.
	rule := m.find(ruleDef("manifests"))
	if rule < 0 {
		return "", fmt.Errorf(`no manifests target: add one that runs "$(IMMUTABLE_GEN)" rbac:roleName=manager-role crd webhook paths="./..." output:crd:artifacts:config=config/crd/bases (%s)`, guideURL)
	}
	m.lines[rule] = manifestsPrerequisites(m.lines[rule])
	runs := false
	for j := rule + 1; j < m.recipeEnd(rule); j++ {
		m.lines[j] = controllerGenRef.ReplaceAllString(m.lines[j], "$$(IMMUTABLE_GEN)")
		runs = runs || strings.Contains(m.lines[j], "$(IMMUTABLE_GEN)")
	}
	if !runs {
		return "", fmt.Errorf("the manifests target (line %d) does not run $(CONTROLLER_GEN): replace its generator by \"$(IMMUTABLE_GEN)\" by hand (%s)", rule+1, guideURL)
	}
	if m.find(regexp.MustCompile(`^`+regexp.QuoteMeta(manifestsComment)+`$`)) < 0 {
		at := rule
		if rule > 0 && strings.HasPrefix(m.lines[rule-1], ".PHONY:") {
			at = rule - 1
		}
		m.insert(at, manifestsComment)
	}

	// The tool variables.
	if m.find(varDef("IMMUTABLE_GEN")) < 0 {
		at := m.find(varDef("CONTROLLER_GEN"))
		if at < 0 {
			at = m.find(varDef("LOCALBIN"))
		}
		m.insert(at+1, "IMMUTABLE_GEN ?= $(LOCALBIN)/immutable-gen")
	}
	versionLine := "IMMUTABLE_GEN_VERSION ?= " + version
	if at := m.find(varDef("IMMUTABLE_GEN_VERSION")); at >= 0 {
		if setVersion {
			m.lines[at] = versionLine
		}
	} else {
		at := m.find(varDef("CONTROLLER_TOOLS_VERSION"))
		if at < 0 {
			at = m.find(varDef("IMMUTABLE_GEN"))
		}
		m.insert(at+1, versionLine)
	}

	// The install target.
	if m.find(ruleDef("immutable-gen")) < 0 {
		install := "\ttest -s \"$(IMMUTABLE_GEN)\" || GOBIN=\"$(LOCALBIN)\" go install " + toolPackage + "@$(IMMUTABLE_GEN_VERSION)"
		if m.find(regexp.MustCompile(`^define\s+go-install-tool\b`)) >= 0 {
			install = "\t$(call go-install-tool,$(IMMUTABLE_GEN)," + toolPackage + ",$(IMMUTABLE_GEN_VERSION))"
		}
		block := []string{
			"",
			"# immutable-gen replaces controller-gen in the manifests target (" + guideURL + ").",
			"# make manifests IMMUTABLE_GEN=/path/to/immutable-gen uses that binary as it is.",
			".PHONY: immutable-gen",
			"immutable-gen: $(LOCALBIN) ## Download immutable-gen locally if necessary.",
			"ifeq ($(origin IMMUTABLE_GEN),file)",
			install,
			"endif",
		}
		at := -1
		if i := m.find(ruleDef("$(CONTROLLER_GEN)")); i >= 0 {
			at = m.recipeEnd(i)
		} else if i := m.find(ruleDef("controller-gen")); i >= 0 {
			at = m.recipeEnd(i)
		} else if i := m.find(regexp.MustCompile(`^define\s+go-install-tool\b`)); i >= 0 {
			at = i
			for at > 0 && strings.HasPrefix(m.lines[at-1], "#") {
				at--
			}
			block = append(block[1:], "")
		} else {
			at = len(m.lines)
			if at > 0 && m.lines[at-1] == "" {
				at-- // before the final newline
			}
		}
		m.insert(at, block...)
	}
	return strings.Join(m.lines, "\n"), nil
}

// manifestsPrerequisites makes the manifests rule line depend on
// immutable-gen instead of controller-gen, keeping its help comment.
func manifestsPrerequisites(line string) string {
	head, comment, hasComment := strings.Cut(line, "#")
	if immutableGenWord.MatchString(head) {
		return line
	}
	if controllerGenWord.MatchString(head) {
		head = controllerGenWord.ReplaceAllString(head, "${1}immutable-gen${3}")
	} else {
		name, prereqs, _ := strings.Cut(head, ":")
		head = name + ": immutable-gen" + strings.TrimRight(" "+strings.TrimLeft(prereqs, " \t"), " \t")
		if hasComment {
			head += " "
		}
	}
	if hasComment {
		return head + "#" + comment
	}
	return head
}
