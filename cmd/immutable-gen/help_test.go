package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// TestHelpListsEveryCommand: `immutable-gen help`, --help and -h name
// every generator (with its own summary), every other command (with its
// synopsis) and every help topic (help's whole text is a golden file); an
// unknown topic is refused.
func TestHelpListsEveryCommand(t *testing.T) {
	var want []string
	for name, gen := range generators() {
		want = append(want, "  "+name+" ", generatorSummary(gen))
	}
	for _, c := range commands() {
		want = append(want, "  "+c.name+" ", strings.TrimPrefix(c.synopsis, "usage: "))
	}
	for _, h := range helpTopics {
		want = append(want, "immutable-gen "+h.usage)
	}
	want = append(want, "--fail-on", "--quiet", "--check")
	cases := []struct {
		name string
		args []string
	}{
		{"help", []string{"help"}},
		{"--help", []string{"--help"}},
		{"-h", []string{"-h"}},
		{"-h after a generator", []string{"crd", "-h"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d\n%s", code, &stderr)
			}
			for _, w := range want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, &stdout)
				}
			}
			if tc.name == "help" {
				golden.Check(t, filepath.Join(moduleRoot(t), "testdata", "golden", "help", "help.txt"), stdout.Bytes())
			}
		})
	}
	t.Run("each generator has a summary", func(t *testing.T) {
		for name, gen := range generators() {
			if s := generatorSummary(gen); s == "" || !strings.HasSuffix(s, ".") {
				t.Errorf("%s: summary %q", name, s)
			}
		}
	})
	t.Run("an unknown topic", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"help", "bogus"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `unknown topic "bogus"`) {
			t.Errorf("exit %d, stderr %q", code, &stderr)
		}
	})
}
