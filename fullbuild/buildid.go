package fullbuild

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"io"
	"os"
)

// binaryKey names the cache directory of the full build of the executable at
// path: a hash of its Go build ID, which the linker derives from the
// binary's contents, or, for an executable without one that can be read
// here (not ELF, or built with -buildid=), a hash of its contents.
func binaryKey(path string) (string, error) {
	h := sha256.New()
	if id, err := elfBuildID(path); err == nil && id != "" {
		io.WriteString(h, "go build ID\x00"+id)
	} else {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		io.WriteString(h, "contents\x00")
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// The Go linker writes the build ID into an ELF note of its own section
// (on Linux it is not in the text, where other formats carry it).
const (
	goBuildIDSection = ".note.go.buildid"
	goBuildIDNote    = 4 // the note type, under the name "Go"
)

var errNoBuildID = errors.New("no Go build ID note")

// elfBuildID returns the Go build ID of the ELF executable at path, as
// go tool buildid prints it.
func elfBuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sec := f.Section(goBuildIDSection)
	if sec == nil {
		return "", errNoBuildID
	}
	data, err := sec.Data()
	if err != nil {
		return "", err
	}
	// Notes: name size, descriptor size, type (4 bytes each), then the
	// name and the descriptor, each padded to 4 bytes.
	order := f.ByteOrder
	for len(data) >= 12 {
		nameSize, descSize, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
		data = data[12:]
		nameEnd := align4(uint64(nameSize))
		descEnd := nameEnd + align4(uint64(descSize))
		if descEnd > uint64(len(data)) {
			break
		}
		name := bytes.TrimRight(data[:nameSize], "\x00")
		if typ == goBuildIDNote && string(name) == "Go" {
			return string(data[nameEnd : nameEnd+uint64(descSize)]), nil
		}
		data = data[descEnd:]
	}
	return "", errNoBuildID
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }
