package output

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/controller-tools/pkg/genall"
)

func write(t *testing.T, b *Buffer, rule genall.OutputRule, path, data string) {
	t.Helper()
	w, err := b.Rule(rule).Open(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(data))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCommitWritesAllAtOnce(t *testing.T) {
	dir := t.TempDir()
	b := &Buffer{}
	write(t, b, genall.OutputToDirectory(dir), "a.yaml", "a")
	write(t, b, genall.OutputArtifacts{Config: genall.OutputToDirectory(filepath.Join(dir, "sub"))}, "b.yaml", "b")
	write(t, b, genall.OutputToNothing, "c.yaml", "c")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("buffered output reached the disk before Commit: %v", entries)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"a.yaml": "a", "sub/b.yaml": "b"} {
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v", path, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c.yaml")); !os.IsNotExist(err) {
		t.Error("output:none wrote a file")
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestCommitFailureTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(existing, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A destination under a regular file cannot be created.
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Buffer{}
	write(t, b, genall.OutputToDirectory(dir), "a.yaml", "new")
	write(t, b, genall.OutputToDirectory(blocker), "b.yaml", "b")
	if err := b.Commit(); err == nil {
		t.Fatal("Commit succeeded")
	}
	got, _ := os.ReadFile(existing)
	if string(got) != "old" {
		t.Errorf("existing file changed to %q", got)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if fi, _ := os.Stat(existing); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode changed: %v", fi.Mode())
	}
}

func TestCommitKeepsMode(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(existing, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &Buffer{}
	write(t, b, genall.OutputToDirectory(dir), "a.yaml", "new")
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(existing); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode())
	}
}

func TestHeader(t *testing.T) {
	file := filepath.Join(t.TempDir(), "boilerplate.go.txt")
	if err := os.WriteFile(file, []byte("// Copyright YEAR The Authors.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := &genall.GenerationContext{InputRule: genall.InputFromFileSystem}
	for _, tc := range []struct {
		name, file, year, want string
		wantErr                bool
	}{
		{name: "no header file", want: ""},
		{name: "year substituted", file: file, year: "2026", want: "// Copyright 2026 The Authors.\n"},
		{name: "no year", file: file, want: "// Copyright  The Authors.\n"},
		{name: "missing file", file: file + ".missing", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Header(ctx, tc.file, tc.year)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("Header(%q, %q) = %q, %v; want %q, error %v", tc.file, tc.year, got, err, tc.want, tc.wantErr)
			}
		})
	}
	if h := HeaderHelp(); len(h) != 2 || h["HeaderFile"].Summary == "" || h["Year"].Summary == "" {
		t.Errorf("HeaderHelp() = %v", h)
	}
}

// TestStale: Stale names the destinations Commit would change — a file
// that differs, a file that is missing — in artifact order, leaves out the
// up-to-date ones and those with no file (stdout, none), and writes
// nothing.
func TestStale(t *testing.T) {
	cases := []struct {
		name  string
		disk  map[string]string // files present before
		write map[string]string // artifacts to output:dir, in name order
		none  bool              // also an artifact to output:none and one to stdout
		want  []string
	}{
		{"all up to date", map[string]string{"a.yaml": "a", "b.yaml": "b"}, map[string]string{"a.yaml": "a", "b.yaml": "b"}, false, nil},
		{"one differs", map[string]string{"a.yaml": "a", "b.yaml": "old"}, map[string]string{"a.yaml": "a", "b.yaml": "b"}, false, []string{"b.yaml"}},
		{"one missing", map[string]string{"a.yaml": "a"}, map[string]string{"a.yaml": "a", "b.yaml": "b"}, false, []string{"b.yaml"}},
		{"a file on disk no generator writes is not compared", map[string]string{"a.yaml": "a", "z.yaml": "z"}, map[string]string{"a.yaml": "a"}, false, nil},
		{"stdout and none have no file", nil, nil, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.disk {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b := &Buffer{}
			for _, name := range []string{"a.yaml", "b.yaml"} {
				if data, ok := tc.write[name]; ok {
					write(t, b, genall.OutputToDirectory(dir), name, data)
				}
			}
			if tc.none {
				write(t, b, genall.OutputToNothing, "c.yaml", "c")
				write(t, b, genall.OutputToStdout, "d.yaml", "d")
			}
			got, err := b.Stale()
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, name := range tc.want {
				want = append(want, filepath.Join(dir, name))
			}
			if !slices.Equal(got, want) {
				t.Errorf("Stale = %q, want %q", got, want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(tc.disk) {
				t.Errorf("Stale wrote files: %d entries, had %d", len(entries), len(tc.disk))
			}
			for name, data := range tc.disk {
				if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != data {
					t.Errorf("%s changed to %q", name, got)
				}
			}
		})
	}
}
