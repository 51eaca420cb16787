package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	cases := []struct {
		name, env string
		want      func(t *testing.T, c *Cache)
	}{
		{"off", "off", func(t *testing.T, c *Cache) {
			if c != nil {
				t.Errorf("got a cache in %s, want none", c.dir)
			}
		}},
		{"directory", "DIR", func(t *testing.T, c *Cache) {
			if c == nil || filepath.Base(c.dir) != "cache-dir" {
				t.Errorf("got %v, want the cache in the directory the variable names", c)
			}
		}},
		{"default", "", func(t *testing.T, c *Cache) {
			base, err := os.UserCacheDir()
			if err != nil {
				t.Skip("no user cache directory")
			}
			if c == nil || c.dir != filepath.Join(base, "immutable-gen") {
				t.Errorf("got %v, want immutable-gen under %s", c, base)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env
			if env == "DIR" {
				env = filepath.Join(t.TempDir(), "cache-dir")
			}
			t.Setenv(EnvVar, env)
			tc.want(t, Open())
		})
	}
}

func open(t *testing.T) *Cache {
	t.Helper()
	t.Setenv(EnvVar, t.TempDir())
	c := Open()
	if c == nil {
		t.Fatal("no cache")
	}
	return c
}

func TestGetPut(t *testing.T) {
	c := open(t)
	k := c.Key([]byte("kind"), []byte("input"))
	if _, ok := c.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	c.Put(k, []byte("result"))
	got, ok := c.Get(k)
	if !ok || string(got) != "result" {
		t.Fatalf("Get = %q, %v; want the stored result", got, ok)
	}
	// A second Put replaces the entry.
	c.Put(k, []byte("again"))
	if got, _ := c.Get(k); string(got) != "again" {
		t.Fatalf("Get after a second Put = %q", got)
	}
}

func TestKeysSeparateInputs(t *testing.T) {
	c := open(t)
	keys := map[Key]string{}
	for name, parts := range map[string][][]byte{
		"a|bc":  {[]byte("a"), []byte("bc")},
		"ab|c":  {[]byte("ab"), []byte("c")},
		"abc":   {[]byte("abc")},
		"abc|":  {[]byte("abc"), nil},
		"other": {[]byte("x")},
	} {
		k := c.Key(parts...)
		if prev, ok := keys[k]; ok {
			t.Errorf("%s and %s have the same key", prev, name)
		}
		keys[k] = name
	}
	// Another binary (another salt) never sees this one's entries.
	other := *c
	other.salt[0] ^= 1
	if c.Key([]byte("x")) == other.Key([]byte("x")) {
		t.Error("the key does not depend on the binary")
	}
}

func TestNilCacheCachesNothing(t *testing.T) {
	var c *Cache
	k := c.Key([]byte("x"))
	c.Put(k, []byte("result"))
	if _, ok := c.Get(k); ok {
		t.Fatal("nil cache hit")
	}
}

func TestUnwritableDirectoryIsAMiss(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, filepath.Join(file, "cache")) // under a regular file
	c := Open()
	k := c.Key([]byte("x"))
	c.Put(k, []byte("result"))
	if _, ok := c.Get(k); ok {
		t.Fatal("hit from a cache that cannot be written")
	}
}

func TestTrimRemovesOldEntries(t *testing.T) {
	c := open(t)
	old, fresh := c.Key([]byte("old")), c.Key([]byte("fresh"))
	c.Put(old, []byte("1"))
	long := time.Now().Add(-trimAge - time.Hour)
	if err := os.Chtimes(c.path(old), long, long); err != nil {
		t.Fatal(err)
	}
	// The last trim was long ago: the next Put trims.
	if err := os.Chtimes(filepath.Join(c.dir, trimFile), long, long); err != nil {
		t.Fatal(err)
	}
	c.Put(fresh, []byte("2"))
	if _, ok := c.Get(old); ok {
		t.Error("an entry unused for longer than the trim age survived")
	}
	if _, ok := c.Get(fresh); !ok {
		t.Error("a fresh entry was trimmed")
	}
}

func TestHitRefreshesOldEntry(t *testing.T) {
	c := open(t)
	k := c.Key([]byte("x"))
	c.Put(k, []byte("1"))
	hours := time.Now().Add(-2 * touchAge)
	if err := os.Chtimes(c.path(k), hours, hours); err != nil {
		t.Fatal(err)
	}
	c.Get(k)
	fi, err := os.Stat(c.path(k))
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(fi.ModTime()) > touchAge {
		t.Error("a hit did not refresh the entry's time")
	}
}

func TestDir(t *testing.T) {
	base, baseErr := os.UserCacheDir()
	cases := []struct {
		name, env string
		want      string // "" when off
	}{
		{"off", "off", ""},
		{"directory", "/some/dir", "/some/dir"},
		{"default", "", filepath.Join(base, "immutable-gen")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env == "" && baseErr != nil {
				t.Skip("no user cache directory")
			}
			t.Setenv(EnvVar, tc.env)
			dir, ok := Dir()
			if ok != (tc.want != "") || dir != tc.want {
				t.Errorf("Dir() = %q, %v; want %q", dir, ok, tc.want)
			}
		})
	}
}

func TestTrimKeepsForeignFiles(t *testing.T) {
	c := open(t)
	long := time.Now().Add(-trimAge - time.Hour)
	write := func(name string) string {
		t.Helper()
		p := filepath.Join(c.dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c.Put(c.Key([]byte("x")), []byte("1")) // creates the directory
	oldTemp := write(".tmp-1")             // a Put that died: removed
	foreign := write("notes.txt")          // not the cache's: never removed
	if err := os.Chtimes(filepath.Join(c.dir, trimFile), long, long); err != nil {
		t.Fatal(err)
	}
	trim(c.dir)
	for p, want := range map[string]bool{oldTemp: false, foreign: true} {
		_, err := os.Stat(p)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v after trim, want %v", p, got, want)
		}
	}
}

func TestTouchRefreshesOnlyOldFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	recent := time.Now().Add(-touchAge / 2).Truncate(time.Second)
	if err := os.Chtimes(p, recent, recent); err != nil {
		t.Fatal(err)
	}
	touch(p)
	if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(recent) {
		t.Errorf("touch rewrote the time of a file used %v ago", touchAge/2)
	}
	touch(filepath.Join(t.TempDir(), "missing")) // nothing to do, no panic
}
