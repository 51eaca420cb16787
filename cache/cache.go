// Package cache keeps the results of expensive, deterministic computations
// on disk between runs, keyed by their input and by the binary that computed
// them, as the go command's build cache does. immutable-gen uses it for the
// API server's CRD validation of CRDs that did not change since the last
// run: the same CRD bytes, checked by the same immutable-gen binary, give the
// same findings.
//
// The cache lives in $IMMUTABLE_GEN_CACHE, or else in immutable-gen/ under
// the user's cache directory ($XDG_CACHE_HOME or ~/.cache on Linux);
// IMMUTABLE_GEN_CACHE=off turns it off. A cache that cannot be read or
// written is a cache miss, never an error: results are then computed.
// Entries not used for five days are removed: a hit refreshes an entry's
// time at most hourly, and a file unused for five days is removed.
package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// EnvVar names the environment variable that sets the cache directory, or
// turns the cache off with the value "off".
const EnvVar = "IMMUTABLE_GEN_CACHE"

const (
	// trimAge is how long an unused entry is kept.
	trimAge = 5 * 24 * time.Hour
	// trimInterval is how often the directory is scanned for old entries.
	trimInterval = 24 * time.Hour
	// touchAge is how old an entry's time may get before a hit refreshes it
	// (refreshing on every hit would write on every run).
	touchAge = time.Hour
	// trimFile records the last trim.
	trimFile = "trim.txt"
)

// Cache is an on-disk cache. A nil *Cache is valid and caches nothing.
type Cache struct {
	dir  string
	salt [sha256.Size]byte
}

// Open returns the cache the environment selects, or nil when caching is off
// or there is no usable directory.
func Open() *Cache {
	dir, ok := Dir()
	if !ok {
		return nil
	}
	salt, ok := binaryID()
	if !ok {
		return nil
	}
	return &Cache{dir: dir, salt: salt}
}

// Dir returns the cache directory the environment selects: $IMMUTABLE_GEN_CACHE,
// or immutable-gen/ under the user's cache directory. It returns false when
// caching is off or there is no user cache directory. The directory may not
// exist yet.
func Dir() (string, bool) {
	dir := os.Getenv(EnvVar)
	switch dir {
	case "off":
		return "", false
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", false
		}
		dir = filepath.Join(base, "immutable-gen")
	}
	return dir, true
}

// binaryID identifies the running binary: its path, size and modification
// time (a rebuilt or reinstalled binary has a new one) and its build
// information (module versions and VCS state).
func binaryID() ([sha256.Size]byte, bool) {
	exe, err := os.Executable()
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	h := sha256.New()
	fmt.Fprintf(h, "immutable-gen cache v1\x00%s\x00%d\x00%d\x00", exe, fi.Size(), fi.ModTime().UnixNano())
	if info, ok := debug.ReadBuildInfo(); ok {
		h.Write([]byte(info.String()))
	}
	var id [sha256.Size]byte
	h.Sum(id[:0])
	return id, true
}

// Key is the key of an entry: a hash of the binary's identity and of parts,
// which name the computation and give its whole input.
type Key [sha256.Size]byte

// Key returns the key for parts.
func (c *Cache) Key(parts ...[]byte) Key {
	h := sha256.New()
	if c != nil {
		h.Write(c.salt[:])
	}
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

func (c *Cache) path(k Key) string {
	name := hex.EncodeToString(k[:])
	return filepath.Join(c.dir, name[:2], name+"-d")
}

// Get returns the data stored under k.
func (c *Cache) Get(k Key) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	p := c.path(k)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	touch(p)
	return data, true
}

// touch records a use of the entry at path, so that trim keeps it: it
// refreshes the file's modification time when that is older than an hour
// (refreshing on every use would write on every run).
func touch(path string) {
	if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > touchAge {
		now := time.Now()
		os.Chtimes(path, now, now)
	}
}

// Put stores data under k. Failures are ignored: the next run computes the
// result again.
func (c *Cache) Put(k Key, data []byte) {
	if c == nil {
		return
	}
	p := c.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	// Written beside the entry and renamed into place, so that concurrent
	// runs never read a partial entry.
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return
	}
	trim(c.dir)
}

// trim removes from dir the entries and temporary files unused for
// trimAge, at most once per trimInterval. Other files are left alone:
// $IMMUTABLE_GEN_CACHE may name a directory that holds more than the cache.
func trim(dir string) {
	mark := filepath.Join(dir, trimFile)
	if fi, err := os.Stat(mark); err == nil && time.Since(fi.ModTime()) < trimInterval {
		return
	}
	if _, err := os.Stat(dir); err != nil {
		return
	}
	cutoff := time.Now().Add(-trimAge)
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if name := d.Name(); !strings.HasSuffix(name, "-d") && !strings.HasPrefix(name, ".tmp-") {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().Before(cutoff) {
			os.Remove(path)
		}
		return nil
	})
	os.WriteFile(mark, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}
